#!/bin/sh
# Hostile command lines and corrupt result files (issue 36): each must end
# with the documented exit code and one line on stderr naming what is bad,
# never a crash.  Nothing here reaches a device: every case fails while the
# options or the files are read.  Last line: "cli_errors: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect CODE PATTERN CMD...: exit CODE, exactly one stderr line matching PATTERN
expect() {
    want=$1 pattern=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q -- "$pattern" "$tmp/err"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $* (arguments cut to 200 characters)" | cut -c1-200
        echo "      exit $rc (want $want), $lines stderr line(s), want /$pattern/:"
        head -n 3 "$tmp/err" | cut -c1-300 | sed 's/^/      /'
    fi
}

zeros=$(printf '0%.0s' $(seq 130))
# the list parser once cut items at 128 bytes and crashed (exit 139): a long
# valid item is read whole (then the bad --reps stops the run), a long bad
# one is named
expect 2 "^membench: --reps: '0'" ./membench/membench --words "${zeros}1..4" --reps 0
expect 2 "^membench: --words: '4x' is not a whole number" ./membench/membench --words "${zeros}1..4x"
expect 2 "^membench: --words: empty item in '1,,2'" ./membench/membench --words 1,,2
expect 2 "^membench: --thread-counts: range '64..1' runs backwards" ./membench/membench --thread-counts 64..1
expect 2 "^membench: --tile: '8x8' is not BXxBYxBZ" ./membench/membench --tile 32x8x1,8x8
expect 2 "^membench: --tile: '64x32x1': each size >= 1, at most 1024 threads" ./membench/membench --tile 64x32x1
expect 2 "^membench: --tile-from: .*nonexistent.kernel" ./membench/membench --tile-from tests/kernels/nonexistent.kernel
expect 2 "^lbmkernels: --block-sizes: empty item" ./lbmkernels/lbmkernels --block-sizes 64,
# "16xx16x16" was read as 16^3
for s in 16xx16x16 x16x16x16 16x16x16x 16x16 16x16x16x16; do
    expect 2 "^lbmkernels: --sizes: '$s' is not NXxNYxNZ" ./lbmkernels/lbmkernels --sizes "$s"
done

# corrupt result files: one line naming the file and the line
mkdir -p "$tmp/nul" "$tmp/cut" "$tmp/huge"
cp tests/model-data/gpu/*.csv "$tmp/nul"; cp tests/model-data/gpu/*.csv "$tmp/cut"; cp tests/model-data/gpu/*.csv "$tmp/huge"
# a NUL byte at a line's start once made the row look blank: dropped silently
{ head -n 3 tests/model-data/gpu/membench.csv; printf '\0'; tail -n +4 tests/model-data/gpu/membench.csv; } >"$tmp/nul/membench.csv"
# a file cut inside its last field, no newline: once read as a shorter number
head -c -3 tests/model-data/gpu/stream.csv >"$tmp/cut/stream.csv"
# a number no int holds, where the model reads an int: once undefined
sed '2s/^test-gpu,cuda,size,copy,4,/test-gpu,cuda,size,copy,1e308,/' tests/model-data/gpu/stream.csv >"$tmp/huge/stream.csv"
predict() { ./model/model predict --data "$1" --backend cuda --scheme push --precision fp32 --size 16; }
# (a malformed input is bad usage: exit 2)
expect 2 "membench.csv:4: NUL byte" predict "$tmp/nul"
expect 2 "stream.csv:10: the file ends inside this line" predict "$tmp/cut"
expect 2 "stream.csv:2: .*word_bytes.*'1e308'" predict "$tmp/huge"

# make CFLAGS=... keeps the flags the build needs
if make -s -n -B CFLAGS=-O0 core/cli.o | grep -q -- "-std=c11 .*-Wall .*-MMD.* -O0"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL: make CFLAGS=-O0 drops -std=c11, -Wall or -MMD: $(make -s -n -B CFLAGS=-O0 core/cli.o)"
fi

echo "cli_errors: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
