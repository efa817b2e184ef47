#!/bin/sh
# make diff (core/diff.sh): on committed data, a run against itself gives
# 1.000 at every lattice, two runs give B/A of their best measured MLUPS
# (checked against lbm.csv), each run's drift is beside them, and a bad
# command line exits 2.  Last line: "diff: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
a=data/nvidia-h100-80gb-hbm3 b=data/nvidia-h200

sh core/diff.sh "$b" "$b" >"$tmp/same" || bad "diff of a run with itself exited $?"
rows=$(awk '$2 ~ /^(push|pull|split|aa)$/' "$tmp/same" | wc -l)
ones=$(awk '$2 ~ /^(push|pull|split|aa)$/ && $7 == "1.000"' "$tmp/same" | wc -l)
if [ "$rows" -gt 0 ] && [ "$rows" = "$ones" ]; then ok; else bad "a run against itself: $ones of $rows ratios 1.000"; fi

sh core/diff.sh "$a" "$b" >"$tmp/ab" || bad "diff $a $b exited $?"
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
if awk '$2 ~ /^(push|pull|split|aa)$/ && $7 != "2.000" { exit 1 }' "$tmp/doubled"; then ok; else bad "doubled MLUPS do not read 2.000"; fi

for args in "" "$a" "$a /nonexistent" "$a $b extra" "$a tests"; do
    sh core/diff.sh $args >/dev/null 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then ok; else bad "diff '$args' exited $rc (want 2)"; fi
done
echo "diff: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
