#!/bin/sh
# A row kernel reads membench's row_nx sweep (a CPU: the rows probe with
# the lattice's own rows of NX cells, ends apart, beside rows of 256 at the
# same cells) at its NX.  On a 16-core server run from before that sweep
# (tests/model-data/cpu16-rows, 663ba6bc0f5c: the rows sweep with its
# variants, no row_nx sweep), with a row_nx sweep added at NX = 32 and
# 64 (pairs of the rows sweep's aligned and payload rows at 32^3 and 64^3,
# the NX row's time x RA and x RP):
#   - at ratios 1 every prediction is the folder's own (the sweep adds
#     nothing where the rows cost what the long rows cost);
#   - at RA 1.5 / 1.2 and RP 2.0 / 1.4 (NX 32 / 64) every point below
#     256^3 predicts slower, every one at 256^3 the same (the rows sweep's
#     own rows); predict's note gives the ratios, interpolated in log NX
#     (48: 1.5 - 0.3 log2 1.5 = 1.325, 2 - 0.6 log2 1.5 = 1.649; 128: halfway from 64 to 256 in log,
#     1.1 and 1.2) and clamped below 32, noted;
#   - without the sweep, the note says the rows of 256 stand in;
#   - the rows sweep's folded payload read where measured (below).
# Last line: "model-rownx: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
src=tests/model-data/cpu16-rows

cp -r "$src" "$tmp/old"
model/model validate --data "$tmp/old" --force >"$tmp/old.log" 2>&1

with_row_nx() { # DIR RA32 RA64 RP32 RP64
    cp -r "$src" "$1"
    awk -F, -v OFS=, -v ra32="$2" -v ra64="$3" -v rp32="$4" -v rp64="$5" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
        { print }
        $c["sweep"] == "rows" && $c["misaligned_reads"] == 0 && $c["misaligned_writes"] == 0 &&
        $c["stores"] == "normal" && ($c["threads"] == 32768 || $c["threads"] == 262144) {
            nx = $c["threads"] == 32768 ? 32 : 64
            r = $c["ops"] > 0 ? (nx == 32 ? rp32 : rp64) : (nx == 32 ? ra32 : ra64)
            for (own = 0; own < 2; own++) {
                split($0, f, ",")
                f[c["sweep"]] = "row_nx"
                f[c["row"]] = own ? nx : 256
                for (k = 0; k < 3; k++) {
                    col = k == 0 ? "ms_min" : k == 1 ? "ms_median" : "ms_max"
                    f[c[col]] = sprintf("%.6f", f[c[col]] * (own ? r : 1))
                }
                line = f[1]
                for (i = 2; i <= NF; i++) line = line "," f[i]
                print line
            }
        }' "$src/membench.csv" >"$1/membench.csv"
    model/model validate --data "$1" --force >"$1.log" 2>&1
}
with_row_nx "$tmp/one" 1 1 1 1
with_row_nx "$tmp/nx" 1.5 1.2 2.0 1.4

n_nx=$(grep -c ',row_nx,' "$tmp/nx/membench.csv")
if [ "$n_nx" -eq 48 ]; then ok; else bad "$n_nx row_nx rows made, not 2 lattices x 2 layouts x 2 x 3 words x 2"; fi
if [ -s "$tmp/old/model.csv" ] && [ -s "$tmp/one/model.csv" ] && [ -s "$tmp/nx/model.csv" ]; then
    ok
else
    bad "validate wrote no model.csv"
fi

full_by_point() { # MODEL_CSV: key full_mlups, a row per point
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { print $c["scheme"] "," $c["precision"] "," $c["nx"] "," $c["block_size"] "," $c["measured_mlups"], \
              $c["full_mlups"] }' "$1"
}
full_by_point "$tmp/old/model.csv" >"$tmp/old.full"
full_by_point "$tmp/one/model.csv" >"$tmp/one.full"
full_by_point "$tmp/nx/model.csv" >"$tmp/nx.full"
if cmp -s "$tmp/old.full" "$tmp/one.full"; then ok; else bad "ratios 1 moved predictions: $(diff "$tmp/old.full" "$tmp/one.full" | head -4)"; fi
paste -d' ' "$tmp/old.full" "$tmp/nx.full" | awk '
    { split($1, k, ","); n++ }
    $1 != $3 { print "rows out of order: " $1 " " $3; next }
    k[3] >= 256 && $4 != $2 { print $1 ": " $2 " -> " $4 " at 256^3" }
    k[3] < 256 && !($4 < $2) { print $1 ": " $2 " -> " $4 ", not slower" }
    END { if (n < 100) print "only " n " points" }' >"$tmp/diff"
if [ ! -s "$tmp/diff" ]; then ok; else bad "row_nx not read as expected: $(head -5 "$tmp/diff")"; fi

note_at() { # SIZE SCHEME DIR: predict's row_nx note
    model/model predict --data "$3" --scheme "$2" --precision fp32 --size "$1" --block-size 64 \
        --cells-per-thread row 2>&1 | grep -i "row_nx\|rows of 256 cells stand"
}
for case in "32 push 1.500 2.000" "48 pull 1.325 1.649" "128 aa 1.100 1.200" "16 split 1.500 2.000" \
    "256 push 1.000 1.000"; do
    set -- $case
    got=$(note_at "$1" "$2" "$tmp/nx")
    if echo "$got" | grep -q "rows of $1 cells x $3 the rows sweep's, aligned; x $4 with the payload"; then
        ok
    else
        bad "$2 at $1^3: expected x $3 and x $4: $got"
    fi
done
if note_at 16 split "$tmp/nx" | grep -q "rows of 16 cells below the row_nx sweep's 32"; then ok; else bad "16^3: no clamp noted"; fi
if note_at 32 push "$tmp/old" | grep -q "no row_nx sweep of 4-byte words: the rows sweep's rows of 256 cells stand for rows of 32"; then
    ok
else
    bad "without the sweep: $(note_at 32 push "$tmp/old")"
fi

# The rows sweep's folded payload (membench/gen.h), where measured, is the
# payload a row kernel reads: added as copies of the aligned rows (no
# excess: the loop hides the arithmetic), every point predicts at least as
# fast as with the masked payload alone, those whose masked payload cost
# something faster, and predict says which payload it read; a payload_form
# other than masked or folded is refused, naming the value.
cp -r "$src" "$tmp/fold"
awk -F, -v OFS=, '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print $0 ",payload_form"; next }
    { print $0 ",masked" }
    $c["sweep"] == "rows" && $c["misaligned_reads"] == 0 && $c["misaligned_writes"] == 0 && $c["ops"] == 0 &&
    $c["stores"] == "normal" && $c["word_bytes"] != 2 {
        $c["ops"] = 150
        print $0 ",folded"
    }' "$src/membench.csv" >"$tmp/fold/membench.csv"
model/model validate --data "$tmp/fold" --force >"$tmp/fold.log" 2>&1
full_by_point "$tmp/fold/model.csv" >"$tmp/fold.full"
paste -d' ' "$tmp/old.full" "$tmp/fold.full" | awk '
    { split($1, k, ","); n++ }
    $1 != $3 { print "rows out of order: " $1 " " $3; next }
    k[2] != "fp16s" && $4 < $2 * (1 - 1e-9) { print $1 ": " $2 " -> " $4 ", slower" }
    k[2] != "fp16s" && $4 > $2 * 1.001 { faster++ }
    k[2] == "fp16s" && $4 != $2 { print $1 ": fp16s moved" }
    END { if (faster < 40) print "only " faster " points faster"; if (n < 100) print "only " n " points" }' >"$tmp/diff"
if [ ! -s "$tmp/diff" ]; then ok; else bad "folded payload not read as expected: $(head -5 "$tmp/diff")"; fi
if model/model predict --data "$tmp/fold" --scheme push --precision fp64 --size 64 --block-size 64 \
    --cells-per-thread row 2>&1 | grep -q "rows sweep: the folded payload"; then
    ok
else
    bad "predict does not say it read the folded payload"
fi
if model/model predict --data "$tmp/fold" --scheme push --precision fp16s --size 64 --block-size 64 \
    --cells-per-thread row 2>&1 | grep -q "the masked payload (no folded one of 2-byte words)"; then
    ok
else
    bad "fp16s: no note of the masked payload"
fi
sed 's/,folded$/,sideways/' "$tmp/fold/membench.csv" >"$tmp/fold/m" && mv "$tmp/fold/m" "$tmp/fold/membench.csv"
model/model validate --data "$tmp/fold" --force >"$tmp/bad.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "payload_form masked|folded, got 'sideways'" "$tmp/bad.log"; then
    ok
else
    bad "payload_form sideways: rc $rc, $(tail -2 "$tmp/bad.log")"
fi
echo "model-rownx: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
