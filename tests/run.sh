#!/bin/sh
# Runs every test program given (cmocka binaries and tests/test_*.sh
# scripts; every tests/test_*.sh where none of those given is a script, as
# make test gives the binaries alone), each once, and ends with one line:
# "tests: N passed, M failed, K skipped".  It begins with one line saying
# how many run and how many at a time, so that a log whose first program
# takes minutes is not silent meanwhile.
# One worker per core takes the next program not yet taken, the slowest
# first (SLOW: most of their time is a compiler's, PoCL's or cc's, on one
# core at a time), so the cores stay busy to the end.  Each program's
# result is one line as it ends; the whole output of a program that failed
# follows at the end.  A program that passes yet prints FAILED or ERROR
# fails too: an expected catch says so in its own words, so a passing log
# reads clean.  Each run gets its own TMPDIR (removed at the end), so two
# checkouts testing at once never share a scratch path.
SLOW="tests/test_membench tests/test_lbmkernels tests/test_mpi.sh tests/test_plots.sh tests/test_validation.sh tests/test_cache_harden.sh tests/test_core tests/test_kernel_check.sh tests/test_verify_reach.sh tests/test_stream tests/test_fuzz.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
export TMPDIR="$dir/tmp"
# make test: kernels compiled without optimisation (half the compile time
# of a cold machine; what is checked is indexing and arithmetic, which
# optimisation must not change); make test-full as make bench compiles them
if [ -z "${LBP_TEST_FULL:-}" ] || [ "$LBP_TEST_FULL" = 0 ]; then
    export LBP_OCL_OPTIONS="${LBP_OCL_OPTIONS--cl-opt-disable}" LBP_OMP_CFLAGS="${LBP_OMP_CFLAGS--O0}"
fi
all="" scripts=tests/test_*.sh
for t in "$@"; do case "$t" in *.sh) scripts="" ;; esac; done
for t in "$@" $scripts; do
    [ -e "$t" ] || continue
    case " $all " in *" $t "*) ;; *) all="$all $t" ;; esac
done
# the order they are taken in: SLOW's first, as listed, then the rest
order=""
for t in $SLOW; do case " $all " in *" $t "*) order="$order $t" ;; esac; done
for t in $all; do case " $SLOW " in *" $t "*) ;; *) order="$order $t" ;; esac; done

# counts LOG T: "passed failed skipped" as the program reported them
counts() {
    # cmocka: "[  PASSED  ] 5 test(s)."; scripts: "<name>: N passed, M failed"
    case "$2" in
    *.sh) sed -n 's/^[a-z_-]*: *\([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$1" | tail -n 1 ;;
    *) printf '%s %s\n' "$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)" \
        "$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)" ;;
    esac | { read -r p f; s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
             echo "${p:-0} ${f:-0} ${s:-0}"; }
}
# run T I: T's output into $dir/I.log, "rc seconds" into $dir/I.rc, and
# its one line to stdout as it ends
run() {
    case "$1" in *.sh) cmd="sh $1" ;; *) cmd="./$1" ;; esac
    start=$(date +%s)
    $cmd >"$dir/$2.log" 2>&1 </dev/null
    rc=$?
    secs=$(($(date +%s) - start))
    echo "$rc $secs" >"$dir/$2.rc"
    set -- "$1" "$2" $(counts "$dir/$2.log" "$1")
    printf '%-34s exit %d, %s passed, %s failed, %s skipped, %d s\n' "$1" "$rc" "$3" "$4" "$5" "$secs"
}
# worker: take each program no other worker took (mkdir claims it), in
# $order; each keeps its number in $all for the report
worker() {
    for t in $order; do
        mkdir "$dir/claim.$(index "$t")" 2>/dev/null && run "$t" "$(index "$t")"
    done
}
index() { i=0; for u in $all; do i=$((i + 1)); [ "$u" = "$1" ] && { echo $i; return; }; done; }
workers=$(nproc 2>/dev/null || echo 1)
[ "$workers" -gt 8 ] && workers=8
echo "tests: $(echo $all | wc -w) programs, $workers at a time, the slowest first; each one's line as it ends"
w=1 pids=""
while [ $w -lt "$workers" ]; do worker & pids="$pids $!"; w=$((w + 1)); done
worker
for p in $pids; do wait "$p"; done

passed=0 failed=0 skipped=0 broken="" noisy="" show=""
i=0
for t in $all; do
    i=$((i + 1))
    log="$dir/$i.log"
    read -r rc secs <"$dir/$i.rc" || { rc=1 secs=0; }
    set -- $(counts "$log" "$t")
    passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
    if [ "$rc" -ne 0 ] && [ "$2" -eq 0 ]; then
        broken="$broken $t" failed=$((failed + 1))
    elif [ "$rc" -eq 0 ] && grep -q -E 'FAILED|ERROR' "$log"; then
        noisy="$noisy $t" failed=$((failed + 1))
    fi
    if [ "$rc" -ne 0 ] || [ "$2" -ne 0 ] || case " $noisy " in *" $t "*) true ;; *) false ;; esac; then
        show="$show $i:$t"
    fi
done
for s in $show; do
    echo "==== output of ${s#*:}"
    cat "$dir/${s%%:*}.log"
done
[ -n "$broken" ] && echo "tests that exited non-zero without reporting a failed test:$broken"
[ -n "$noisy" ] && echo "tests that passed but printed FAILED or ERROR (an expected catch must say so in other words):$noisy"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
