#!/bin/sh
# The model's numbers do not move: for every committed data folder with a
# model.csv, `model validate --force` on a copy of it predicts every row's
# roofline, probe and full MLUPS as committed (|relative difference| <=
# 0.01 %; model.csv prints three decimals, so that bar is the file's own
# resolution at 10 MLUPS and above).  Rows are matched by their inputs
# (device, backend, scheme, precision, nx, ny, nz, cells, block size and the
# measured MLUPS copied from lbm.csv, which tells apart the rows lbm.csv
# holds once per cells_per_thread); a row missing or extra fails.
# Last line: "model-regress: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

# compare EXPECTED GOT: one line per difference, nothing when they agree
compare() {
    awk -F, -v tol=1e-4 '
    function col(name,   i) { for (i = 1; i <= NF; i++) if ($i == name) return i; return 0 }
    FNR == 1 {
        f++
        split("device backend scheme precision nx ny nz cells block_size measured_mlups", keys, " ")
        split("roofline_mlups probe_mlups full_mlups", vals, " ")
        for (k = 1; k <= 10; k++) if (!(kc[f, k] = col(keys[k]))) print FILENAME ": no column " keys[k]
        for (v = 1; v <= 3; v++) if (!(vc[f, v] = col(vals[v]))) print FILENAME ": no column " vals[v]
        next
    }
    {
        key = ""
        for (k = 1; k <= 10; k++) key = key (k > 1 ? "," : "") $(kc[f, k])
        key = key "#" (++seen[f, key])  # the n-th row with these inputs
        if (f == 1) {
            for (v = 1; v <= 3; v++) want[key, v] = $(vc[f, v])
            expected[key] = 1
            next
        }
        if (!(key in expected)) { print "extra row " key; next }
        found[key] = 1
        for (v = 1; v <= 3; v++) {
            w = want[key, v]; g = $(vc[f, v]); d = g - w; if (d < 0) d = -d
            s = w < 0 ? -w : w
            if (d > tol * s && d > 0) print vals[v] " of " key ": " g ", committed " w
        }
    }
    END {
        for (key in expected) if (!(key in found)) print "missing row " key
    }' "$1" "$2"
}

if [ ! -x model/model ]; then
    echo "model/model not built (make all)"
    echo "model-regress: 0 passed, 1 failed"
    exit 1
fi

# duplicate_keys FILE: the keys (backend, scheme, precision, lattice,
# block size, cells per thread; and a run's ranks, exchange, overlap and
# scaling, and the stores, where the file has them) that more than one row
# of model.csv has
duplicate_keys() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (!c["cells_per_thread"]) print "no column cells_per_thread"; next }
        { k = $c["backend"] "," $c["scheme"] "," $c["precision"] "," $c["nx"] "x" $c["ny"] "x" $c["nz"] "," $c["block_size"] "," $c["cells_per_thread"]
          if (c["ranks"]) k = k "," $c["ranks"] "," $c["exchange"] "," $c["overlap"] "," $c["scaling"]
          if (c["stores"]) k = k "," $c["stores"]
          if (n[k]++ == 1) print k }' "$1"
}

folders=0
for d in tests/fixtures/*/; do
    d=${d%/}
    [ -f "$d/model.csv" ] || continue
    folders=$((folders + 1))
    name=$(basename "$d")
    mkdir "$tmp/$name"
    cp "$d"/*.csv "$tmp/$name/"
    # exit 1 is a point over the error bar: the numbers are what is checked
    ./model/model validate --data "$tmp/$name" --force --max-error 5 >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ "$rc" -gt 1 ]; then
        bad "$d: model validate exited $rc: $(tail -n 1 "$tmp/$name.err")"
        continue
    fi
    compare "$d/model.csv" "$tmp/$name/model.csv" >"$tmp/$name.diff"
    if [ -s "$tmp/$name.diff" ]; then
        bad "$d: $(wc -l <"$tmp/$name.diff") difference(s) from the committed model.csv:"
        head -n 20 "$tmp/$name.diff"
    else
        ok
        echo "$d: $(($(wc -l <"$d/model.csv") - 1)) rows as committed"
    fi
    dups=$(duplicate_keys "$tmp/$name/model.csv")
    if [ -z "$dups" ]; then ok; else bad "$d: rows of model.csv that share a key: $(echo "$dups" | head -n 3)"; fi
done
[ "$folders" -gt 0 ] && ok || bad "no tests/fixtures/*/model.csv"

# the comparison itself can fail: a value moved by 0.02 %, a row dropped,
# a row added
ref=$(ls tests/fixtures/*/model.csv | head -n 1)
awk -F, -v OFS=, 'NR == 2 { $13 = sprintf("%.3f", $13 * 1.0002) } { print }' "$ref" >"$tmp/moved.csv"
if head -n 1 "$ref" | cut -d, -f13 | grep -qx full_mlups && compare "$ref" "$tmp/moved.csv" | grep -q '^full_mlups'; then
    ok
else
    bad "a moved full_mlups passed"
fi
sed '2d' "$ref" >"$tmp/dropped.csv"
if compare "$ref" "$tmp/dropped.csv" | grep -q '^missing row'; then ok; else bad "a missing row passed"; fi
{ cat "$ref"; sed -n 2p "$ref"; } >"$tmp/added.csv"
if compare "$ref" "$tmp/added.csv" | grep -q '^extra row'; then ok; else bad "an extra row passed"; fi
if [ -z "$(compare "$ref" "$ref")" ]; then ok; else bad "a file differs from itself"; fi
printf 'backend,scheme,precision,nx,ny,nz,block_size,cells_per_thread\ncuda,push,fp32,8,8,8,64,1\ncuda,push,fp32,8,8,8,64,1\ncuda,push,fp32,8,8,8,64,2\n' >"$tmp/dup.csv"
if [ "$(duplicate_keys "$tmp/dup.csv")" = "cuda,push,fp32,8x8x8,64,1" ]; then ok; else bad "a shared key passed"; fi

echo "model-regress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
