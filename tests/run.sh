#!/bin/sh
# Runs every test program given (cmocka binaries and tests/test_*.sh scripts)
# and ends with one line: "tests: N passed, M failed, K skipped".
# With two cores or more, the slowest programs (SLOW: most of their time is
# a compiler's, PoCL's or cc's, on one core at a time) run in a second lane
# beside the others; each program's output is printed whole, in the order
# given, with its exit status and seconds.
SLOW="tests/test_lbmkernels tests/test_plots.sh"
passed=0 failed=0 skipped=0 broken=""
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
all=""
for t in "$@" tests/test_*.sh; do [ -e "$t" ] && all="$all $t"; done

# run T I: T's output into $dir/I.log, its exit status and seconds into $dir/I.rc
run() {
    case "$1" in *.sh) cmd="sh $1" ;; *) cmd="./$1" ;; esac
    start=$(date +%s)
    $cmd >"$dir/$2.log" 2>&1
    echo "$? $(($(date +%s) - start))" >"$dir/$2.rc"
}
slow() { case " $SLOW " in *" $1 "*) return 0 ;; esac; return 1; }
# lane S: the slow programs (S = 1) or the others (S = 0), numbered as in $all
lane() {
    i=0
    for t in $all; do
        i=$((i + 1))
        if slow "$t"; then [ "$1" = 1 ] && run "$t" $i; else [ "$1" = 0 ] && run "$t" $i; fi
    done
}
if [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
    lane 1 &
    second=$!
    lane 0
    wait "$second"
else
    lane 1
    lane 0
fi

i=0
for t in $all; do
    i=$((i + 1))
    log="$dir/$i.log"
    cat "$log"
    read -r rc secs <"$dir/$i.rc" || { rc=1 secs=0; }
    # cmocka: "[  PASSED  ] 5 test(s)."; scripts: "<name>: N passed, M failed"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    case "$t" in *.sh)
        p=$(sed -n 's/^[a-z_-]*: *\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' "$log" | tail -n 1)
        f=$(sed -n 's/^[a-z_-]*: *\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$log" | tail -n 1) ;;
    esac
    passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0})) skipped=$((skipped + ${s:-0}))
    if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        broken="$broken $t"
        failed=$((failed + 1))
    fi
    echo "== $t: exit $rc, $secs s"
done
[ -n "$broken" ] && echo "tests that exited non-zero without reporting a failed test:$broken"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
