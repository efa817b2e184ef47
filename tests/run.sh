#!/bin/sh
# Runs every test program given (cmocka binaries and tests/test_*.sh scripts)
# and ends with one line: "tests: N passed, M failed, K skipped".
passed=0 failed=0 skipped=0 broken=""
log=$(mktemp)
for t in "$@" tests/test_*.sh; do
    [ -e "$t" ] || continue
    case "$t" in *.sh) cmd="sh $t" ;; *) cmd="./$t" ;; esac
    start=$(date +%s)
    $cmd >"$log" 2>&1
    rc=$?
    cat "$log"
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
    echo "== $t: exit $rc, $(( $(date +%s) - start )) s"
done
rm -f "$log"
[ -n "$broken" ] && echo "tests that exited non-zero without reporting a failed test:$broken"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
