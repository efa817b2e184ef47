#!/bin/sh
# make bench's folder handling, with stub tools (no device, seconds): a
# run goes to results/<slug>/<UTC date-time>/ with results/<slug>/latest
# pointing at it, never into data/ (the committed reference); two
# benches at once take different folders and each ends with its own
# model.csv; a .partial of another bench is never removed; a model validate
# over the error bar (exit 1, result fail) keeps the data with a note, an
# unreadable input (exit 2) or an exit 1 without a validated model.csv fails
# the bench; the recheck runs no rows sweep, and in QUICK the aligned probe
# alone.  Last line: "bench-claim: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
. tests/bench_stub.sh

bench_stub_tree "$tmp/t"
# (STRICT from the caller's make would change the exit codes checked here)
unset STRICT
bench() { (cd "$tmp/t" && sh core/bench.sh); }

# 1. two benches at once: different folders, each complete, both exit 0
STUB_SLEEP=1 bench >"$tmp/o1" 2>"$tmp/e1" & p1=$!
STUB_SLEEP=1 bench >"$tmp/o2" 2>"$tmp/e2" & p2=$!
wait $p1; rc1=$?; wait $p2; rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && ok || bad "two benches at once exited $rc1 and $rc2: $(cat "$tmp/e1" "$tmp/e2")"
d1=$(sed -n 's/.*results in \([^ ]*\) .*/\1/p' "$tmp/o1"); d2=$(sed -n 's/.*results in \([^ ]*\) .*/\1/p' "$tmp/o2")
[ -n "$d1" ] && [ -n "$d2" ] && [ "$d1" != "$d2" ] && ok || bad "two benches at once named folders '$d1' and '$d2'"
for d in $d1 $d2; do [ -f "$tmp/t/$d/model.csv" ] && [ -f "$tmp/t/$d/lbm.csv" ] && ok || bad "$d lacks model.csv or lbm.csv"; done
ls -a "$tmp/t/results/stub-dev" | grep -q partial && bad "a .partial left: $(ls -a "$tmp/t/results/stub-dev")" || ok
ls -a "$tmp/t/$d1" | grep -q bench-pid && bad "the claim's pid file left in $d1" || ok
# each keeps its whole output, the summary's line included, as bench.log
for d in $d1 $d2; do grep -qs "results in $d " "$tmp/t/$d/bench.log" && ok || bad "$d/bench.log missing or without the run's last lines"; done
# each a folder of results/stub-dev named by its UTC date-time; latest
# points at one of them, and data/ (the committed reference) is not touched
for d in $d1 $d2; do
    case $d in results/stub-dev/20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z*) ok ;; *) bad "run folder '$d' is not results/stub-dev/<UTC date-time>" ;; esac
done
l=$(readlink "$tmp/t/results/stub-dev/latest")
[ -n "$l" ] && { [ "results/stub-dev/$l" = "$d1" ] || [ "results/stub-dev/$l" = "$d2" ]; } && ok || bad "latest points at '$l', not $d1 or $d2"
[ -f "$tmp/t/results/stub-dev/latest/model.csv" ] && ok || bad "results/stub-dev/latest/model.csv missing"
[ -e "$tmp/t/data" ] && bad "a run wrote data/: $(ls -R "$tmp/t/data")" || ok
# its figures go into the run's folder, not plots/ (the references')
case "$(cat "$tmp/t/plots/render.args")" in "$d1 $d1/plots" | "$d2 $d2/plots") ok ;; *) bad "plots rendered as '$(cat "$tmp/t/plots/render.args")'" ;; esac
# a third run moves latest to itself; the committed reference data/stub-dev
# (here a marker file) is neither read nor replaced
mkdir -p "$tmp/t/data/stub-dev" && echo reference >"$tmp/t/data/stub-dev/lbm.csv"
RUN=third bench >"$tmp/o1" 2>"$tmp/e1" && [ "$(readlink "$tmp/t/results/stub-dev/latest")" = third ] && ok ||
    bad "RUN=third: latest is '$(readlink "$tmp/t/results/stub-dev/latest")': $(cat "$tmp/e1")"
[ "$(cat "$tmp/t/data/stub-dev/lbm.csv")" = reference ] && [ "$(ls "$tmp/t/data/stub-dev")" = lbm.csv ] && ok || bad "the reference data/stub-dev changed"
grep -q "make diff A=data/stub-dev B=results/stub-dev/latest" "$tmp/o1" && ok || bad "no make diff hint against the reference: $(tail -n 3 "$tmp/o1")"
ls -a "$tmp/t/results/stub-dev" | grep -q '^\.latest' && bad "a temporary latest link left" || ok
for r in latest ../x 'a b' .hidden; do
    RUN=$r bench >"$tmp/o1" 2>"$tmp/e1" && bad "RUN='$r' accepted" || ok
done
# the recheck: the threads sweep at the lattices' cells, never the rows
# sweep (the drift reads the threads sweep alone); QUICK the aligned probe
# alone
for q in 0 1; do
    rm -f "$tmp/t/membench/recheck.args"
    (cd "$tmp/t" && STUB_RECHECK=1 QUICK=$q sh core/bench.sh) >"$tmp/o1" 2>"$tmp/e1" || bad "QUICK=$q recheck run failed: $(tail -n 3 "$tmp/e1")"
    a=$(cat "$tmp/t/membench/recheck.args" 2>/dev/null)
    case " $a " in *" --sweeps threads --thread-counts 32768 "*"--no-rows "*) ok ;; *) bad "QUICK=$q recheck args: '$a'" ;; esac
    case " $a " in *" --aligned-only "*) [ $q = 1 ] && ok || bad "a full run's recheck is aligned only: '$a'" ;;
    *) [ $q = 0 ] && ok || bad "a QUICK recheck measures the variants: '$a'" ;; esac
done

# a QUICK run's folder says so
rm -rf "$tmp/t/results"
(cd "$tmp/t" && QUICK=1 sh core/bench.sh) >"$tmp/o1" 2>"$tmp/e1" && grep -q "results in results/stub-dev-quick/20[0-9-]*T[0-9]*Z " "$tmp/o1" && ok ||
    bad "a QUICK run's folder is not results/stub-dev-quick/<date-time>: $(cat "$tmp/o1" "$tmp/e1" | tail -n 3)"
[ -f "$tmp/t/results/stub-dev-quick/latest/model.csv" ] && ok || bad "results/stub-dev-quick/latest missing"

# 2. a .partial of a running bench is never removed, even with FORCE=1
# (RUN=r: the run's folder named, so that two runs ask for the same one)
rm -rf "$tmp/t/results"; mkdir -p "$tmp/t/results/stub-dev/r.partial"
sleep 30 & holder=$!
echo $holder >"$tmp/t/results/stub-dev/r.partial/.bench-pid"
RUN=r bench >"$tmp/o1" 2>"$tmp/e1" && grep -q "results in results/stub-dev/r-2 " "$tmp/o1" && ok || bad "a bench beside a running one's .partial: $(cat "$tmp/e1")"
(cd "$tmp/t" && RUN=r FORCE=1 sh core/bench.sh) >"$tmp/o1" 2>"$tmp/e1" && bad "FORCE=1 took a running bench's .partial" || ok
grep -q "in use by another bench" "$tmp/e1" && ok || bad "FORCE=1 beside a running bench: $(cat "$tmp/e1")"
[ -f "$tmp/t/results/stub-dev/r.partial/.bench-pid" ] && ok || bad "the running bench's .partial was removed"
kill $holder; wait $holder 2>/dev/null
(cd "$tmp/t" && RUN=r FORCE=1 sh core/bench.sh) >"$tmp/o1" 2>"$tmp/e1" && [ -f "$tmp/t/results/stub-dev/r/model.csv" ] && ok \
    || bad "FORCE=1 over a dead bench's .partial: $(cat "$tmp/e1")"
# a run of an existing name goes beside it; FORCE=1 replaces it
RUN=r bench >"$tmp/o1" 2>"$tmp/e1" && grep -q "results in results/stub-dev/r-3 " "$tmp/o1" && ok || bad "RUN=r beside r and r-2: $(tail -n 2 "$tmp/o1")"

# 3. model validate's exit: 1 over the bar keeps the data and notes it; 2,
# or 1 without a validated model.csv, fails the bench
rm -rf "$tmp/t/results"
STUB_MODEL_RC=1 STUB_RESULT=fail bench >"$tmp/o1" 2>"$tmp/e1" && grep -q "^note: the model fails its verdict: .* points over its error bar (per backend and precision in the verdict above" "$tmp/o1" && ok \
    || bad "points over the error bar: exit $?, $(cat "$tmp/o1" "$tmp/e1")"
grep -q "^note: exit 0 all the same (make bench STRICT=1 fails here)$" "$tmp/o1" && ok || bad "exit 0 over the bar not said: $(tail -n 2 "$tmp/o1")"
# STRICT=1: the same run exits 1, its results kept; a run within the bar 0
STRICT=1 STUB_MODEL_RC=1 STUB_RESULT=fail bench >"$tmp/o1" 2>"$tmp/e1"; rc=$?
[ $rc = 1 ] && grep -q "STRICT=1: points over the model's error bar: exit 1" "$tmp/e1" && [ -f "$tmp/t/results/stub-dev/latest/model.csv" ] && ok \
    || bad "STRICT=1 over the bar: exit $rc, $(cat "$tmp/e1")"
STRICT=1 bench >"$tmp/o1" 2>"$tmp/e1" && ok || bad "STRICT=1 within the bar: exit $?, $(cat "$tmp/e1")"
STUB_MODEL_RC=2 STUB_RESULT=none bench >"$tmp/o1" 2>"$tmp/e1"; rc=$?
[ $rc = 1 ] && grep -q "model validate failed (exit 2)" "$tmp/e1" && ok || bad "model validate exit 2: bench exit $rc, $(cat "$tmp/e1")"
STUB_MODEL_RC=1 STUB_RESULT=none bench >"$tmp/o1" 2>"$tmp/e1"; rc=$?
[ $rc = 1 ] && grep -q "no validated model.csv" "$tmp/e1" && ok || bad "model validate exit 1 without model.csv: bench exit $rc, $(cat "$tmp/e1")"

echo "bench-claim: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
