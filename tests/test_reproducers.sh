#!/bin/sh
# Reproducers of issue 36 for the tools (each its documented exit code and
# one line on stderr, naming what is wrong).  Runs on PoCL, in seconds.
# Last line: "reproducers: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
# expect RC PATTERN CMD...: CMD exits RC with one stderr line matching PATTERN
expect() {
    want=$1 pat=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "$rc" = "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -e "$pat" "$tmp/err"; then ok
    else bad "$* -> exit $rc (want $want, one line matching '$pat'): $(cat "$tmp/err")"; fi
}

# item 8: verify makes timing's size checks before it starts
expect 2 "32-bit cell index" lbmkernels/lbmkernels --backend opencl --verify --sizes 2000
# ... and the host memory of its double-precision reference (8 GB at 200^3);
# not in the sanitizer build (LBP_SANITIZE): ASan's shadow memory needs
# terabytes of address space, which ulimit -v forbids
[ -z "${LBP_SANITIZE:-}" ] && (ulimit -v 3000000 2>/dev/null) && expect 2 "GB of host memory for the double-precision reference" \
    sh -c 'ulimit -v 3000000; exec lbmkernels/lbmkernels --backend opencl --verify --sizes 200'

# item 11: membench checks --out before it compiles a probe (one line, no
# progress before it)
expect 1 "cannot create folder /dev/null/x" membench/membench --backend opencl --quick --out /dev/null/x

echo "reproducers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
