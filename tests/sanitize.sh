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

# allocator_may_return_null: the tests ask for impossible buffers on
#   purpose and expect NULL, where ASan would stop the process instead.
# detect_leaks stays on: a leak of ours fails the suite; tests/lsan.supp
#   names the drivers' own (each justified there).
# halt_on_error (UBSan): undefined behaviour fails its test, not a warning.
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:abort_on_error=0"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# the fuzz harnesses run in make test already, with their own sanitizers
export LBP_FUZZ_SECONDS=0
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)
echo "test-sanitize: building with $cc $san in $dir/"
exec make -C "$dir" --no-print-directory CC="$cc" CFLAGS="-O1 -g $san" LDFLAGS="$san" GIT_COMMIT="$commit" test
