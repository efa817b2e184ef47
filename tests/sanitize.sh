#!/bin/sh
# make test-sanitize: the whole test suite (make test) built with
# AddressSanitizer and UndefinedBehaviorSanitizer, tools included (the tests
# run them), in a copy of the tree under .sanitize/, so the instrumented
# objects never replace the normal build's.  Unchanged files keep their
# times in the copy, so a second run rebuilds only what changed.
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
dir=.sanitize
mkdir -p "$dir"

# the copy: tracked files and new ones git does not ignore; files gone from
# the tree since the last run go from the copy too
list=$(mktemp)
trap 'rm -f "$list" "$list.old"' EXIT
if ! git ls-files -co --exclude-standard >"$list" 2>/dev/null; then
    echo "test-sanitize: needs git (it copies the files git knows)" >&2
    exit 1
fi
if [ -f "$dir/.sources" ]; then
    sort "$dir/.sources" >"$list.old"
    sort "$list" | comm -23 "$list.old" - | (cd "$dir" && while IFS= read -r f; do rm -f "./$f"; done)
fi
tar -cf - -T "$list" | tar -xf - -C "$dir" || exit 1
cp "$list" "$dir/.sources"

# clang's UBSan includes float-to-int overflow; gcc's needs it named
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if printf 'int main(void){return 0;}\n' | clang -x c $san - -o "$list.bin" >/dev/null 2>&1; then
    cc=clang
else
    cc=gcc san="$san -fsanitize=float-cast-overflow"
fi
rm -f "$list.bin"

# Reports go to files (log_path), one per process, not to stderr: the tests
# count a tool's stderr lines, and a report in a process whose exit status
# no test reads (a child, a rank) is found below all the same.
reports=$root/$dir/reports
rm -rf "$reports"
mkdir -p "$reports"
log="log_path=$reports/report"
# allocator_may_return_null: the tests ask for impossible buffers on
#   purpose and expect NULL, where ASan would stop the process instead.
# detect_leaks stays on: a leak of ours fails the suite; tests/lsan.supp
#   names the drivers' own (each justified there).
# halt_on_error (UBSan): undefined behaviour fails its test, not a warning.
# intercept_tls_get_addr=0: ASan's record of each thread's dynamic TLS,
#   kept from __tls_get_addr, went stale in processes where PoCL's compiler
#   (not instrumented) builds the FP16S prelude (a "DTLS 5 at 0xe9" range);
#   LeakSanitizer's tracer then crashed reading it at exit, in some memory
#   layouts only (by the length of --out).  Without the record LSan scans no
#   dynamic TLS; lbmprobe's host code keeps nothing there.
export ASAN_OPTIONS="$log:allocator_may_return_null=1:detect_leaks=1:abort_on_error=0:intercept_tls_get_addr=0"
export LSAN_OPTIONS="$log:suppressions=$root/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="$log:print_stacktrace=1:halt_on_error=1"
# The OpenMP backend's kernels are compiled by gcc where it is (as cc is in
# a normal run), not by the sanitizer build's clang: LLVM's OpenMP runtime
# (libomp) makes LeakSanitizer's tracer crash at exit and its thread state
# look leaked in forked children, a finding about neither lbmprobe nor libomp.
command -v gcc >/dev/null 2>&1 && export LBP_OMP_CC=gcc
# tests that cannot run under ASan skip themselves (ulimit -v: ASan's shadow
# memory needs terabytes of address space)
export LBP_SANITIZE=1
# the fuzz harnesses run in make test-full, with their own sanitizers
export LBP_FUZZ_SECONDS=0
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)
echo "test-sanitize: building with $cc $san in $dir/"
make -C "$dir" --no-print-directory CC="$cc" CFLAGS="-O1 -g $san" LDFLAGS="$san" GIT_COMMIT="$commit" test
rc=$?

# A report with an error, a leak or undefined behaviour fails the run.  A
# process forked from one that had threads (PoCL's) and then ending warns
# that LeakSanitizer could not stop those threads (they do not exist in the
# child): a warning alone is no finding.
found=0
for f in "$reports"/report.*; do
    [ -e "$f" ] || continue
    if grep -v -q -e "was not suspended. False leaks are possible" -e '^$' "$f"; then
        found=$((found + 1))
        echo "test-sanitize: $f:"
        head -n 40 "$f"
    fi
done
if [ $found -gt 0 ]; then
    echo "test-sanitize: $found process(es) with sanitizer reports (in $reports)"
    exit 1
fi
echo "test-sanitize: no sanitizer report"
exit $rc
