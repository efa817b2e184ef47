#!/bin/sh
# Launch probes (model/corrections/launchprobe.h): membench --kernel FILE --launch-probe
# LIST writes the file's launch at each N into membench-launch.csv (PoCL);
# the model reads a folder's membench-launch.csv where it measured the
# kernel's launch on its lattice: the probe kernel itself is then predicted
# at its measured MLUPS, another kernel at that launch moves by the line
# through N, another lattice or one word count does not move, and a row
# that is no launch probe, a number out of its range, or the file without
# its meta, is one line and exit 2; a launch measured twice is read at the
# mean.  The probes are the H100's committed measurements of the thermal
# model's launch (rows of 130 in blocks of 128 at half occupancy).
# Last line: "launch-probe: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
k=tests/kernels/thermal39-rows.kernel

membench/membench --launch-probe 19,27 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(grep -c . "$tmp/err")" = 1 ] && grep -q "goes with --kernel" "$tmp/err" && ok ||
    bad "--launch-probe without --kernel: $(cat "$tmp/err")"
membench/membench --kernel $k --size 8x8x8 --launch-probe 19,0 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- "--launch-probe: '0'" "$tmp/err" && ok || bad "--launch-probe 0: $(cat "$tmp/err")"
if stream/stream --backend opencl --describe >/dev/null 2>&1; then
    membench/membench --backend opencl --kernel $k --size 130x6x5 --launch-probe 19,27 --reps 2 --out "$tmp/m" \
        >"$tmp/out" 2>&1 && ok || bad "--launch-probe on PoCL: $(cat "$tmp/out")"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { print $c["launch"], $c["nx"], $c["launched_threads"], $c["words_read"], $c["words_written"],
          $c["misaligned_reads"], $c["misaligned_writes"] }' "$tmp/m/membench-launch.csv" >"$tmp/rows" 2>/dev/null
    printf 'rows 130 7680 19 19 0 0\nrows 130 7680 27 27 0 0\n' | cmp -s - "$tmp/rows" && [ ! -e "$tmp/m/membench-kernel.csv" ] &&
        grep -q "^launch_probe_words,19;27" "$tmp/m/membench-launch-meta.csv" && ok ||
        bad "membench-launch.csv: $(cat "$tmp/rows")"
else
    echo "no OpenCL device: the PoCL run is skipped"
fi

# a folder with the H100's probes of the thermal model's launch on 130^3
data=$tmp/data
cp -r tests/fixtures/nvidia-h100-80gb-hbm3-x4 "$data"
offsets=tests/kernels/measured/nvidia-h100-80gb-hbm3-offsets.csv
{ head -n 1 $offsets; grep -E ',rs(19|27)-b128,rows,130,130,130,' $offsets; } >"$data/membench-launch.csv"
printf 'key,value\ntool,membench-launch\n' >"$data/membench-launch-meta.csv"
[ "$(wc -l <"$data/membench-launch.csv")" = 3 ] && ok || bad "the committed probes at 130^3 are not two rows"
predict() { # KERNEL_FILE LATTICE FOLDER: the full level's MLUPS
    model/model predict --kernel "$1" --size "$2" --data "$3" 2>&1 | awk '$1 == 3 && $2 == "full" { print $3 }'
}
# the probe at N=19 as a kernel file: predicted at what was measured
sed -e 's/^words_read = 39/words_read = 19/' -e 's/^words_written = 39/words_written = 19/' \
    -e 's/^misaligned_reads = 20/misaligned_reads = 0/' $k >"$tmp/probe19.kernel"
measured19=$(awk -F, '$4 == "rs19-b128" { print $30 }' "$data/membench-launch.csv")
got=$(predict "$tmp/probe19.kernel" 130x130x130 "$data")
awk -v a="$got" -v b="$measured19" 'BEGIN { exit !(a > 0 && (a - b) / b < 1e-4 && (b - a) / b < 1e-4) }' && ok ||
    bad "the N=19 probe predicted $got, measured $measured19"
# the launch measured twice at N=19: the mean of the two
cp "$data/membench-launch.csv" "$tmp/probes"
awk -F, -v OFS=, '$4 == "rs19-b128" { $30 = $30 * 0.9; print }' "$tmp/probes" >>"$data/membench-launch.csv"
got=$(predict "$tmp/probe19.kernel" 130x130x130 "$data")
awk -v a="$got" -v b="$measured19" 'BEGIN { m = b * 0.95; exit !(a > 0 && (a - m) / m < 1e-4 && (m - a) / m < 1e-4) }' &&
    ok || bad "the N=19 probe measured twice predicted $got, not the mean of $measured19 and 0.9 of it"
cp "$tmp/probes" "$data/membench-launch.csv"
# the thermal model at that launch: moved, and said so; unchanged elsewhere
before=$(predict $k 130x130x130 tests/fixtures/nvidia-h100-80gb-hbm3-x4) after=$(predict $k 130x130x130 "$data")
awk -v a="$after" -v b="$before" 'BEGIN { exit !(a > 0 && b > 0 && (b - a) / b > 0.01) }' && ok ||
    bad "thermal39 on 130^3: $before without the probes, $after with them"
model/model predict --kernel $k --size 130x130x130 --data "$data" 2>&1 |
    grep -q "measured with aligned probes (membench-launch.csv).*N=19 x .*N=27 x .*at the kernel's N=39 on their line" &&
    ok || bad "no note of the launch probes"
[ "$(predict $k 1024x1024x8 "$data")" = "$(predict $k 1024x1024x8 tests/fixtures/nvidia-h100-80gb-hbm3-x4)" ] && ok ||
    bad "another lattice moved"
# one word count: not read, said
grep -v ',rs27-b128,' "$data/membench-launch.csv" >"$tmp/one" && cp "$tmp/one" "$data/membench-launch.csv"
[ "$(predict $k 130x130x130 "$data")" = "$before" ] &&
    model/model predict --kernel $k --size 130x130x130 --data "$data" 2>&1 | grep -q "at one word count" && ok ||
    bad "one word count was read"
# not a launch probe, a bad block, no meta: one line, exit 2
bad_input() { # WHAT: the folder's model predict exits 2 with one line that says WHAT
    model/model predict --kernel $k --size 130x130x130 --data "$data" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && [ "$(grep -c . "$tmp/err")" = 1 ] && grep -q -- "$1" "$tmp/err" && ok ||
        bad "expected exit 2 and '$1', got $rc: $(cat "$tmp/err")"
}
cp "$tmp/one" "$data/membench-launch.csv"
sed -i '2s/,19,19,0,0,4,/,19,19,10,0,4,/' "$data/membench-launch.csv"
bad_input "membench-launch.csv:2: words read 19, written 19, misaligned 10 and 0"
cp "$tmp/one" "$data/membench-launch.csv"
sed -i '2s/,128x1x1,/,128x1,/' "$data/membench-launch.csv"
bad_input "membench-launch.csv:2: block '128x1'"
cp "$tmp/one" "$data/membench-launch.csv"
sed -i '2s/,4,2,152,/,4,3,152,/' "$data/membench-launch.csv"
bad_input "membench-launch.csv:2: column lattices: expected a whole number in \[1, 2\]"
cp "$tmp/one" "$data/membench-launch.csv"
rm "$data/membench-launch-meta.csv"
bad_input "membench-launch-meta.csv: missing"

echo "launch-probe: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
