#!/bin/sh
# make test-full: each libFuzzer harness of tests/fuzz/ for a short while
# (LBP_FUZZ_SECONDS, default 10 there, 0 in make test; 0 skips) from the committed corpus, so an
# input that once crashed a parser is replayed on every change.  Needs clang
# with libFuzzer (make deps installs it); without it the harnesses are
# skipped, not failed.  Last line: "fuzz: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
# make test leaves them to make test-full (building the harnesses with
# clang's sanitizers is a minute of a 2-core machine)
full=${LBP_TEST_FULL:-0}; [ "$full" = 0 ] && full=""
secs=${LBP_FUZZ_SECONDS:-${full:+10}}
secs=${secs:-0}
harnesses=$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c; done)
skip() {
    echo "fuzz: skipped: $1"
    echo "[  SKIPPED ] $(echo $harnesses | wc -w) test(s)."
    echo "fuzz: 0 passed, 0 failed"
    exit 0
}
[ "$secs" = 0 ] && skip "LBP_FUZZ_SECONDS=0 (make test-full runs them)"
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)(n * 0); }\n' >"$probe/p.c"
${FUZZ_CC:-clang} -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1
have=$?
rm -rf "$probe"
[ $have -eq 0 ] || skip "${FUZZ_CC:-clang} with libFuzzer not found (make deps installs clang and libclang-rt-dev)"
if ! make --no-print-directory -s fuzz-bins >/dev/null 2>"${TMPDIR:-/tmp}/lbp-fuzz-build.$$"; then
    cat "${TMPDIR:-/tmp}/lbp-fuzz-build.$$"
    rm -f "${TMPDIR:-/tmp}/lbp-fuzz-build.$$"
    echo "FAIL: the fuzz harnesses do not build"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi
rm -f "${TMPDIR:-/tmp}/lbp-fuzz-build.$$"
exec sh tests/fuzz/run.sh --short "$secs" $harnesses
