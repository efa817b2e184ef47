#!/bin/sh
# make diff (core/diff.sh): on frozen fixtures, a run against itself gives
# 1.000 at every lattice and agrees, two runs give B/A of their best
# measured MLUPS (checked against lbm.csv) and differ (exit 1), each run's
# drift is beside them; on two runs of tests/diff-data, the agreement
# check: the bound from both rows' spread and both drifts, each kernel and
# lattice within it or not, the verdict; rows keyed by every column that
# names a kernel (stores, cells per thread, ranks); which runs A and B name
# (a slug, a QUICK run, none); a bad command line or nothing to compare
# exits 2.  Last line: "diff: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
a=tests/fixtures/nvidia-h100-80gb-hbm3 b=tests/fixtures/nvidia-h200

sh core/diff.sh "$b" "$b" >"$tmp/same" || bad "diff of a run with itself exited $?"
# the table's rows: a lattice NXxNYxNZ in the fifth column (the kernel's
# key in the fourth)
rows=$(awk '$5 ~ /^[0-9]+x[0-9]+x[0-9]+$/' "$tmp/same" | wc -l)
ones=$(awk '$5 ~ /^[0-9]+x[0-9]+x[0-9]+$/ && $8 == "1.000" && $10 == "yes"' "$tmp/same" | wc -l)
if [ "$rows" -gt 0 ] && [ "$rows" = "$ones" ]; then ok; else bad "a run against itself: $ones of $rows ratios 1.000"; fi
tail -n 1 "$tmp/same" | grep -q "^diff: runs agree: \([0-9]*\) of \1 kernels within bounds" && ok || bad "a run against itself: $(tail -n 1 "$tmp/same")"

sh core/diff.sh --allow-other-device "$a" "$b" >"$tmp/ab"
rc=$?
# two GPUs differ: exit 1 and the verdict says so
[ $rc = 1 ] && tail -n 1 "$tmp/ab" | grep -q "^diff: runs DIFFER: [0-9]* of [0-9]* kernels outside bounds" && ok \
    || bad "diff $a $b: exit $rc, $(tail -n 1 "$tmp/ab")"
# cuda push fp32 256^3 at one cell per thread: the best mlups_median of
# each lbm.csv, and their ratio
best() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["backend"] == "cuda" && $c["scheme"] == "push" && $c["precision"] == "fp32" && $c["nx"] == 256 && $c["ny"] == 256 && $c["nz"] == 256 &&
    $c["cells_per_thread"] == 1 && $c["mlups_median"] + 0 > m { m = $c["mlups_median"] + 0 } END { print m }' "$1/lbm.csv"; }
want=$(awk -v x="$(best "$a")" -v y="$(best "$b")" 'BEGIN { printf "%.3f", y / x }')
got=$(awk '$1 == "cuda" && $2 == "push" && $3 == "fp32" && $4 == "cpt=1" && $5 == "256x256x256" { print $8 }' "$tmp/ab")
if [ -n "$got" ] && [ "$got" = "$want" ]; then ok; else bad "cuda push fp32 256^3: B/A '$got', lbm.csv gives $want"; fi
if grep -q "^A: $a (drift, median |change| of the recheck probes: cuda [0-9.]* %" "$tmp/ab"; then ok; else bad "A's drift missing: $(head -3 "$tmp/ab")"; fi
if grep -q "^B: $b (drift" "$tmp/ab"; then ok; else bad "B's drift missing"; fi
# the check can fail: a changed value is seen
cp -r "$b" "$tmp/b2"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } { $c["mlups_median"] = $c["mlups_median"] * 2; print }' \
    "$b/lbm.csv" >"$tmp/b2/lbm.csv"
sh core/diff.sh "$b" "$tmp/b2" >"$tmp/doubled"
rc=$?
if awk '$5 ~ /^[0-9]+x[0-9]+x[0-9]+$/ && $8 != "2.000" { exit 1 }' "$tmp/doubled"; then ok; else bad "doubled MLUPS do not read 2.000"; fi
[ $rc = 1 ] && tail -n 1 "$tmp/doubled" | grep -q "^diff: runs DIFFER: \([0-9]*\) of \1 kernels outside bounds" && ok \
    || bad "doubled MLUPS: exit $rc, $(tail -n 1 "$tmp/doubled")"

# the agreement check on two runs (tests/diff-data/README): bound 2.5 + 2.5
# (each row's 2 % repetitions and 0.5 % passes) + 1.0 + 0.8 (the drifts)
f=tests/diff-data/first s2=tests/diff-data/second
sh core/diff.sh "$f" "$s2" >"$tmp/agree"
rc=$?
[ $rc = 1 ] && ok || bad "the two fixture runs (pull differs): exit $rc, want 1"
row() { awk -v k="$1" '$1 " " $2 " " $3 " " $4 " " $5 == k { print $8, $9, $10 }' "$tmp/agree"; }
[ "$(row 'cuda push fp32 cpt=1 64x64x64')" = "1.010 6.80 yes" ] && ok || bad "push 64^3: '$(row 'cuda push fp32 cpt=1 64x64x64')', want 1.010 6.80 yes"
[ "$(row 'cuda push fp32 cpt=1 128x128x128')" = "0.990 6.80 yes" ] && ok || bad "push 128^3 (the 2-rank row apart): '$(row 'cuda push fp32 cpt=1 128x128x128')'"
[ "$(row 'cuda pull fp32 cpt=1 64x64x64')" = "1.100 6.80 NO" ] && ok || bad "pull 64^3: '$(row 'cuda pull fp32 cpt=1 64x64x64')', want 1.100 6.80 NO"
grep -q "cuda    pull   fp32  cpt=1          median B/A 1.100, 0 of 2 lattices within the bound: DIFFERS" "$tmp/agree" && ok || bad "pull's kernel line: $(grep pull "$tmp/agree" | tail -n 1)"
grep -q "cuda    push   fp32  cpt=1          median B/A 1.000, 2 of 2 lattices within the bound$" "$tmp/agree" && ok || bad "push's kernel line: $(grep push "$tmp/agree" | tail -n 1)"
# the second's 2-rank row is a kernel of its own, in B alone
grep -q "^4 kernel lattices in both; 0 only in A, 1 only in B$" "$tmp/agree" && ok || bad "the 2-rank row: $(grep 'only in' "$tmp/agree")"
[ "$(tail -n 1 "$tmp/agree")" = "diff: runs DIFFER: 1 of 2 kernels outside bounds (cuda pull fp32 cpt=1); 2 of 4 lattices within" ] && ok \
    || bad "verdict: $(tail -n 1 "$tmp/agree")"
# without drift.csv the bound is the spread alone: push's 1 % still within 5 %
cp -r "$f" "$tmp/nf"; cp -r "$s2" "$tmp/ns"; rm "$tmp/nf/drift.csv" "$tmp/ns/drift.csv"
sh core/diff.sh "$tmp/nf" "$tmp/ns" >"$tmp/nodrift"
awk '$1 " " $2 " " $5 == "cuda push 64x64x64" { exit !($9 == "5.00" && $10 == "yes") }' "$tmp/nodrift" && ok || bad "without drift: $(grep 'push.*64x64x64' "$tmp/nodrift")"
grep -q "drift, median |change| of the recheck probes: not measured" "$tmp/nodrift" && ok || bad "no drift not said"

# every column that names a kernel keys a row: B (the first run with a
# stores column) adds a pull with non-temporal stores at twice the speed
# and a push at two cells per thread at three times; A has no stores
# column (normal).  Like is set against like: A's pull against B's normal
# pull (1.000), the others only in B, the runs agree.
cp -r "$f" "$tmp/kinds"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print $0, "stores"; next }
    { print $0, "normal" }
    $c["scheme"] == "pull" { $c["mlups_median"] *= 2; print $0, "nontemporal" }
    $c["scheme"] == "push" { $c["mlups_median"] *= 3; $c["cells_per_thread"] = 2; print $0, "normal" }' "$f/lbm.csv" >"$tmp/kinds/lbm.csv"
sh core/diff.sh "$f" "$tmp/kinds" >"$tmp/kinds.out"
rc=$?
row() { awk -v k="$1" '$1 " " $2 " " $3 " " $4 " " $5 == k { print $8, $10 }' "$tmp/kinds.out"; }
[ "$(row 'cuda pull fp32 cpt=1 64x64x64')" = "1.000 yes" ] && ok || bad "pull set against B's non-temporal pull: '$(row 'cuda pull fp32 cpt=1 64x64x64')'"
[ "$(row 'cuda push fp32 cpt=1 128x128x128')" = "1.000 yes" ] && ok || bad "push set against B's push at 2 cells per thread: '$(row 'cuda push fp32 cpt=1 128x128x128')'"
grep -q "^4 kernel lattices in both; 0 only in A, 4 only in B$" "$tmp/kinds.out" && ok || bad "kernels in B alone: $(grep 'only in' "$tmp/kinds.out")"
[ $rc = 0 ] && grep -q "^diff: runs agree: 2 of 2 kernels within bounds at every shared lattice (4 of 4 lattices)$" "$tmp/kinds.out" && ok \
    || bad "like with like: exit $rc, $(tail -n 1 "$tmp/kinds.out")"
sh core/diff.sh "$tmp/kinds" "$tmp/kinds" | grep -q "^cuda    pull   fp32  cpt=1,nt  *64x64x64 .* 1.000 " && ok || bad "the non-temporal pull has no row of its own"

# which runs: make diff's A and B resolved in a folder of results
# (results/<slug>[-quick]/<run>/ and latest, as make bench writes them)
repo=$(pwd)
w=$tmp/w; mkdir -p "$w"
q=$w/results/dev-x-quick
mkdir -p "$q"; cp -r "$f" "$q/r1"; cp -r "$s2" "$q/r2"; ln -s r2 "$q/latest"
touch -d '2020-01-01' "$q/r1"; touch -d '2020-01-02' "$q/r2"
indiff() { (cd "$w" && sh "$repo/core/diff.sh" "$@"); }
# a slug: its last two runs (a QUICK run's folder found for it)
indiff dev-x >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 1 ] && grep -q "^A: results/dev-x-quick/r1 " "$tmp/o" && grep -q "^B: results/dev-x-quick/r2 " "$tmp/o" && ok \
    || bad "make diff A=dev-x: exit $rc, $(head -3 "$tmp/o") $(cat "$tmp/e")"
# the README's command after a QUICK run: results/<slug>/latest is the
# QUICK run's latest
indiff results/dev-x-quick/r1 results/dev-x/latest >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 1 ] && grep -q "^B: results/dev-x-quick/latest = r2 " "$tmp/o" && grep -q "QUICK run results/dev-x-quick/latest" "$tmp/e" && ok \
    || bad "B=results/<slug>/latest after a QUICK run: exit $rc, $(cat "$tmp/e") $(grep '^B:' "$tmp/o")"
# a runs folder and a slug as A and B: their latest runs
indiff results/dev-x-quick dev-x-quick >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 0 ] && grep -q "^A: results/dev-x-quick/latest = r2 " "$tmp/o" && ok || bad "A=<runs folder> B=<slug>: exit $rc, $(cat "$tmp/e")"
# no committed reference: one line naming it, exit 2
indiff data/dev-x results/dev-x/latest >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "no folder 'data/dev-x' (no committed reference" "$tmp/e" && ok \
    || bad "A=data/<slug> with none committed: exit $rc, $(cat "$tmp/e")"
# nothing to compare: one run, or none
rm -rf "$q/r1"
indiff dev-x >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "results/dev-x-quick holds 1 complete run: nothing to compare" "$tmp/e" && ok \
    || bad "one run: exit $rc, $(cat "$tmp/e")"
indiff dev-y >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "no runs of dev-y in results/dev-y/ or results/dev-y-quick/ (make bench writes them): nothing to compare" "$tmp/e" && ok \
    || bad "no runs: exit $rc, $(cat "$tmp/e")"
# make diff alone: this machine's best device (stream --describe), here
# with no runs of it
indiff >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "nothing to compare\|no device found" "$tmp/e" && ok || bad "make diff with no runs: exit $rc, $(cat "$tmp/e")"
slug=$(stream/stream --describe 2>/dev/null | awk -F, '$1 == "slug" { print $2 }')
if [ -n "$slug" ]; then
    # (the runs folder of this machine's device inside $w, never the checkout's)
    r=results
    mkdir -p "$w/$r/$slug"; cp -r "$f" "$w/$r/$slug/a"; cp -r "$f" "$w/$r/$slug/b"
    touch -d '2020-01-01' "$w/$r/$slug/a"
    indiff >"$tmp/o" 2>"$tmp/e"; rc=$?
    [ $rc = 0 ] && grep -q "^A: $r/$slug/a " "$tmp/o" && grep -q "^B: $r/$slug/b " "$tmp/o" && ok \
        || bad "make diff: the last two runs of $slug: exit $rc, $(cat "$tmp/e")"
fi
# the shared kernels and lattices none: nothing to compare
cp -r "$f" "$tmp/other"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } { $c["precision"] = "fp64"; print }' "$f/lbm.csv" >"$tmp/other/lbm.csv"
sh core/diff.sh "$f" "$tmp/other" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "share no kernel at any lattice" "$tmp/e" && ok || bad "no shared kernel: exit $rc, $(cat "$tmp/e")"

for args in "$a" "$a $tmp/missing" "$a $b extra" "$a tests" "--allow-other-device $a"; do
    sh core/diff.sh $args >/dev/null 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then ok; else bad "diff '$args' exited $rc (want 2)"; fi
done
echo "diff: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
