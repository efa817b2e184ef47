#!/bin/sh
# make diff (core/diff.sh): on committed data, a run against itself gives
# 1.000 at every lattice, two runs give B/A of their best measured MLUPS
# (checked against lbm.csv), each run's drift is beside them; on two runs of
# tests/diff-data, the agreement check: the bound from both rows' spread and
# both drifts, each lattice and scheme within it or not, rows of several
# ranks left out; a bad command line exits 2.  Last line: "diff: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
a=tests/fixtures/nvidia-h100-80gb-hbm3 b=tests/fixtures/nvidia-h200

sh core/diff.sh "$b" "$b" >"$tmp/same" || bad "diff of a run with itself exited $?"
# the table's rows: a lattice NXxNYxNZ in the fourth column
rows=$(awk '$4 ~ /^[0-9]+x[0-9]+x[0-9]+$/' "$tmp/same" | wc -l)
ones=$(awk '$4 ~ /^[0-9]+x[0-9]+x[0-9]+$/ && $7 == "1.000" && $9 == "yes"' "$tmp/same" | wc -l)
if [ "$rows" -gt 0 ] && [ "$rows" = "$ones" ]; then ok; else bad "a run against itself: $ones of $rows ratios 1.000"; fi

sh core/diff.sh --allow-other-device "$a" "$b" >"$tmp/ab" || bad "diff $a $b exited $?"
# cuda push fp32 256^3: the best mlups_median of each lbm.csv, and their ratio
best() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["backend"] == "cuda" && $c["scheme"] == "push" && $c["precision"] == "fp32" && $c["nx"] == 256 && $c["ny"] == 256 && $c["nz"] == 256 &&
    $c["mlups_median"] + 0 > m { m = $c["mlups_median"] + 0 } END { print m }' "$1/lbm.csv"; }
want=$(awk -v x="$(best "$a")" -v y="$(best "$b")" 'BEGIN { printf "%.3f", y / x }')
got=$(awk '$1 == "cuda" && $2 == "push" && $3 == "fp32" && $4 == "256x256x256" { print $7 }' "$tmp/ab")
if [ -n "$got" ] && [ "$got" = "$want" ]; then ok; else bad "cuda push fp32 256^3: B/A '$got', lbm.csv gives $want"; fi
if grep -q "^A: $a (drift, median |change| of the recheck probes: cuda [0-9.]* %" "$tmp/ab"; then ok; else bad "A's drift missing: $(head -3 "$tmp/ab")"; fi
if grep -q "^B: $b (drift" "$tmp/ab"; then ok; else bad "B's drift missing"; fi
# the check can fail: a changed value is seen
cp -r "$b" "$tmp/b2"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } { $c["mlups_median"] = $c["mlups_median"] * 2; print }' \
    "$b/lbm.csv" >"$tmp/b2/lbm.csv"
sh core/diff.sh "$b" "$tmp/b2" >"$tmp/doubled"
if awk '$4 ~ /^[0-9]+x[0-9]+x[0-9]+$/ && $7 != "2.000" { exit 1 }' "$tmp/doubled"; then ok; else bad "doubled MLUPS do not read 2.000"; fi
grep -q "^agreement: 0 of [0-9]* backend/scheme/precision groups" "$tmp/doubled" && ok || bad "doubled MLUPS agree: $(tail -n 1 "$tmp/doubled")"

# the agreement check on two runs (tests/diff-data/README): bound 2.5 + 2.5
# (each row's 2 % repetitions and 0.5 % passes) + 1.0 + 0.8 (the drifts)
f=tests/diff-data/first s2=tests/diff-data/second
sh core/diff.sh "$f" "$s2" >"$tmp/agree" || bad "diff of the two fixture runs exited $?"
row() { awk -v k="$1" '$1 " " $2 " " $3 " " $4 == k { print $7, $8, $9 }' "$tmp/agree"; }
[ "$(row 'cuda push fp32 64x64x64')" = "1.010 6.80 yes" ] && ok || bad "push 64^3: '$(row 'cuda push fp32 64x64x64')', want 1.010 6.80 yes"
[ "$(row 'cuda push fp32 128x128x128')" = "0.990 6.80 yes" ] && ok || bad "push 128^3 (the 2-rank row left out): '$(row 'cuda push fp32 128x128x128')'"
[ "$(row 'cuda pull fp32 64x64x64')" = "1.100 6.80 NO" ] && ok || bad "pull 64^3: '$(row 'cuda pull fp32 64x64x64')', want 1.100 6.80 NO"
grep -q "cuda    pull   fp32  median B/A 1.100, 0 of 2 lattices within the bound: DIFFERS" "$tmp/agree" && ok || bad "pull's group line: $(grep pull "$tmp/agree" | tail -n 1)"
grep -q "cuda    push   fp32  median B/A 1.000, 2 of 2 lattices within the bound$" "$tmp/agree" && ok || bad "push's group line: $(grep push "$tmp/agree" | tail -n 1)"
grep -q "^agreement: 1 of 2 backend/scheme/precision groups agree at every lattice (2 of 4 lattices within the bound)$" "$tmp/agree" && ok \
    || bad "agreement line: $(tail -n 1 "$tmp/agree")"
# without drift.csv the bound is the spread alone: push's 1 % still within 5 %
cp -r "$f" "$tmp/nf"; cp -r "$s2" "$tmp/ns"; rm "$tmp/nf/drift.csv" "$tmp/ns/drift.csv"
sh core/diff.sh "$tmp/nf" "$tmp/ns" >"$tmp/nodrift"
awk '$1 " " $2 " " $4 == "cuda push 64x64x64" { exit !($8 == "5.00" && $9 == "yes") }' "$tmp/nodrift" && ok || bad "without drift: $(grep 'push.*64x64x64' "$tmp/nodrift")"
grep -q "drift, median |change| of the recheck probes: not measured" "$tmp/nodrift" && ok || bad "no drift not said"

for args in "" "$a" "$a /nonexistent" "$a $b extra" "$a tests"; do
    sh core/diff.sh $args >/dev/null 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then ok; else bad "diff '$args' exited $rc (want 2)"; fi
done
echo "diff: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
