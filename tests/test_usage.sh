#!/bin/sh
# Every tool exits 2 on a bad command line (flag, value, missing argument,
# impossible combination), never 1 (a failed measurement) nor 0, and says
# what was wrong on one line of stderr.  Needs no device: each line is
# rejected before one is opened.  Last line: "usage: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
# expect_usage TOOL ARGS...: exit 2 and a message of one line
expect_usage() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ]; then ok
    else bad "'$*' exited $rc with $lines lines (want 2 and one line): $(head -c 300 "$tmp/err")"; fi
}
two=tests/fixtures/nvidia-h200 # a folder with two backends' results
for t in stream/stream membench/membench lbmkernels/lbmkernels model/model; do
    expect_usage $t --no-such-flag
    expect_usage $t stray-argument
    expect_usage $t --force=yes   # a value to a flag
    expect_usage $t --de          # ambiguous: --device, --describe
    expect_usage $t --out         # no value
done
for t in stream/stream membench/membench lbmkernels/lbmkernels; do
    expect_usage $t --backend nosuchbackend
    expect_usage $t --device notanumber
done
expect_usage model/model
expect_usage model/model nosuchcommand
for c in predict validate summary drift; do
    expect_usage model/model $c
    expect_usage model/model $c --data "$two" --no-such-flag
done
expect_usage model/model predict --data "$two" --backend cuda --scheme push --precision fp32
expect_usage model/model predict --data "$two" --backend cuda --scheme nosuch --precision fp32 --size 64
expect_usage model/model predict --data "$two" --backend cuda --scheme push --precision fp32 --size 0
expect_usage model/model predict --data "$two" --backend cuda --scheme push --precision fp32 --size 64 \
    --occupancy 0.5 --blocks-per-sm 2
expect_usage model/model predict --data "$two" --scheme push --precision fp32 --size 64
expect_usage model/model validate --data "$two" --max-error notanumber
expect_usage model/model drift --data "$two" --backend cuda
# the check itself can fail: a command that exits 0 is caught
before=$failed
expect_usage true >/dev/null
if [ "$failed" -eq $((before + 1)) ]; then failed=$before; ok; else bad "expect_usage passed a command that exits 0"; fi
echo "usage: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
