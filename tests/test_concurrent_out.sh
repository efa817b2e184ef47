#!/bin/sh
# Runs into one result folder at the same time never mix their files:
# without --force exactly one succeeds and the others are refused at once
# (exit 1 while another holds the folder, 2 where a result exists;
# one line); with --force each ends 0 or 1, and the folder holds the files
# of one run that succeeded (rows and meta agreeing), no temp file left.
# Each run is stream on PoCL with one tiny array (a fraction of a second),
# told apart by its --sizes.  Last line: "concurrent-out: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
sizes="4096 8192 16384 32768"

# start every run of SIZES into $tmp/out (extra flags: $@) and wait for all
race() {
    for s in $sizes; do
        (stream/stream --backend opencl --sweeps size --sizes "$s" --reps 3 --out "$tmp/out" "$@" \
            >"$tmp/out-$s" 2>"$tmp/err-$s"; echo $? >"$tmp/rc-$s") &
    done
    wait
}
# the size whose run wrote the folder's files: every row's and the meta's
winner() {
    rows=$(awk -F, 'NR > 1 { print $9 }' "$tmp/out/stream.csv" | sort -u)
    meta=$(sed -n 's/^command,.*--sizes \([0-9]*\) .*/\1/p' "$tmp/out/stream-meta.csv")
    [ "$rows" = "$meta" ] && echo "$rows"
}
check_set() { # LABEL
    w=$(winner)
    if [ -n "$w" ]; then ok; else bad "$1: the rows and the meta come from different runs"; return; fi
    if [ "$(cat "$tmp/rc-$w")" = 0 ]; then ok; else bad "$1: the files are from the run of $w, which exited $(cat "$tmp/rc-$w")"; fi
    if ls "$tmp/out" | grep -q tmp; then bad "$1: temp files left: $(ls "$tmp/out")"; else ok; fi
    for s in $sizes; do
        rc=$(cat "$tmp/rc-$s")
        case $rc in
        0) grep -q "results in $tmp/out" "$tmp/out-$s" && ok || bad "$1: run $s exited 0 without naming its results" ;;
        # refused: in use (1, nothing measured), or a result that exists (2)
        1 | 2) [ "$(wc -l <"$tmp/err-$s")" -eq 1 ] && ok || bad "$1: run $s failed without one line: $(cat "$tmp/err-$s")" ;;
        *) bad "$1: run $s exited $rc: $(cat "$tmp/err-$s")" ;;
        esac
    done
}

# 1. without --force: one run wins, the others are refused
race
n0=0; for s in $sizes; do [ "$(cat "$tmp/rc-$s")" = 0 ] && n0=$((n0 + 1)); done
if [ "$n0" -eq 1 ]; then ok; else bad "without --force $n0 runs succeeded (expected exactly 1)"; fi
check_set "without --force"
for s in $sizes; do
    case $(cat "$tmp/rc-$s") in
    1) grep -q -e "in use by another run" "$tmp/err-$s" && ok || bad "run $s (exit 1): $(cat "$tmp/err-$s")" ;;
    2) grep -q -e "exists; keeping it" "$tmp/err-$s" && ok || bad "run $s (exit 2): $(cat "$tmp/err-$s")" ;;
    esac
done

# 2. with --force, into the folder the first race filled
race --force
check_set "with --force"

echo "concurrent-out: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
