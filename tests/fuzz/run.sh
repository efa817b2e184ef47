#!/bin/sh
# Runs libFuzzer harnesses for a bounded time each and says what they did.
#   sh tests/fuzz/run.sh [--short] SECONDS HARNESS...
# Harness binaries are .fuzz/<harness> (make fuzz-bins).  Seeds come from
# the committed corpus tests/fuzz/corpus/<harness>/, never written to; what
# a run adds goes to .fuzz/corpus/<harness>/ (kept between `make fuzz` runs,
# so a long campaign goes on where the last stopped) or, with --short (make
# test), to a scratch folder, so every short run starts from the same seeds.
# A finding is left as .fuzz/artifacts/<harness>-crash-... with the line that
# reproduces it.  Last line: "fuzz: N passed, M failed".
cd "$(dirname "$0")/../.." || exit 1
short=0
[ "$1" = --short ] && { short=1; shift; }
secs=$1; shift
passed=0 failed=0
# in memory where it can be: each input is written to a file there
scratch=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export LBP_FUZZ_DIR=$scratch
mkdir -p .fuzz/artifacts
for h in "$@"; do
    bin=.fuzz/$h seeds=tests/fuzz/corpus/$h
    if [ $short = 1 ]; then work=$scratch/$h; else work=.fuzz/corpus/$h; fi
    mkdir -p "$work" "$seeds"
    dict=""
    [ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
    log=$scratch/$h.log
    start=$(date +%s)
    # -timeout: one input that takes 10 s is a hang (the largest seeds take
    # milliseconds); -rss_limit_mb: an input that needs 2 GiB is a finding.
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix=".fuzz/artifacts/$h-" $dict "$work" "$seeds" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    took=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1))
        echo "$h: ${runs:-?} runs in $took s, corpus $(ls "$work" | wc -l) + $(ls "$seeds" | wc -l) seeds, nothing found"
    else
        failed=$((failed + 1))
        grep -E "ERROR|SUMMARY|runtime error|check failed|^    #[0-9]" "$log" | head -n 30
        art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        echo "FAIL: $h after ${runs:-?} runs ($took s, exit $rc); reproduce: $bin $art"
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
