#!/bin/sh
# Notes that follow from the numbers they print (issue 54, item 5), on
# frozen fixtures: a clamp names the occupancy that was outside and the
# sweep it missed; a projection is never within_measured; more ranks than
# the devices measured is refused with the projection that means more
# devices; a CPU's report quotes no host transfer, and no cost ratio over a
# slope that is noise.  Last line: "notes: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
h100=tests/fixtures/nvidia-h100-80gb-hbm3
x4=tests/fixtures/nvidia-h100-80gb-hbm3-x4
cpu=tests/fixtures/pthread-skylake-avx512-intel-xeon-processor

# ---- an occupancy clamp names what was outside ------------------------------
# fp64 at 0.375: inside the 8-byte block-256 sweep (0.125..0.625); the base
# probe's occupancy (1.000, the N-word probe's) is what lies outside
notes() { model/model predict --data "$h100" --scheme pull --precision fp64 --size 256 "$@" 2>&1 | sed -n 's/^notes: //p'; }
n=$(notes --occupancy 0.375)
case "$n" in *"occupancy 0.375 outside"*) bad "0.375 called outside a sweep that holds it: $n" ;; *) ok ;; esac
case "$n" in *"the base probe's occupancy 1.000 outside the 8-byte block-256 occupancy sweep's 0.125..0.625: clamped"*) ok ;;
    *) bad "no note naming the base probe's occupancy and the sweep it missed: $n" ;; esac
n=$(notes --occupancy 0.75)
case "$n" in *"the kernel's occupancy 0.750 outside the 8-byte block-256 occupancy sweep's 0.125..0.625: clamped"*) ok ;;
    *) bad "no note naming the kernel's occupancy outside: $n" ;; esac

# ---- a projection is never within_measured ---------------------------------
# a ring of 4 whose pair 1-2 the fit lacks: the slowest measured pair
# stands in, so the prediction is a projection
pj=$tmp/pairs
mkdir -p "$pj" && cp tests/model-data/gpu/*.csv "$pj/" && cp tests/model-data/ranks/*.csv "$pj/" || exit 1
sed -i '/^test-gpu,cuda,peer,1,2,both-ways/d' "$pj/interconnect-fit.csv"
model/model predict --data "$pj" --backend cuda --scheme pull --precision fp32 --size 256 --weak --ranks 4 \
    --exchange peer >"$tmp/p.txt" 2>&1
grep -q "^\[projection\] notes: .*1 ring pair(s) of 4 ranks not measured" "$tmp/p.txt" && ok || bad "no missing-pair note: $(cat "$tmp/p.txt")"
grep -q "^\[projection\] within_measured: no$" "$tmp/p.txt" && ok ||
    bad "a projection (a ring pair not measured) said: $(grep within_measured "$tmp/p.txt")"
model/model predict --data "$x4" --scheme pull --precision fp32 --size 256 --nodes 2 --gpus-per-node 4 \
    --link-latency-us 5 --link-gbs 25 >"$tmp/p.txt" 2>&1
grep -q "^\[projection\] within_measured: no$" "$tmp/p.txt" && grep -q "the link between nodes is given" "$tmp/p.txt" && ok ||
    bad "a projection across nodes said: $(grep 'within_measured\|notes' "$tmp/p.txt")"
# all measured (ring of 4 on the 4 devices): within_measured as the pieces say
model/model predict --data "$x4" --scheme pull --precision fp32 --size 256 --ranks 4 >"$tmp/p.txt" 2>&1
! grep -q "^\[projection\]" "$tmp/p.txt" && grep -q "^within_measured: yes$" "$tmp/p.txt" && ok ||
    bad "4 ranks on the 4 measured devices: $(grep within_measured "$tmp/p.txt")"

# ---- more ranks than devices measured: refused, --nodes suggested -----------
for r in 8 16; do
    model/model predict --data "$x4" --scheme pull --precision fp32 --size 256 --ranks "$r" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q "^model: --ranks $r: .*measured 4 ranks on 4 devices, not $r ranks ($((r / 4)) a device); give --ranks 4 or fewer, or project more devices: --nodes $((r / 4)) --gpus-per-node 4 --link-latency-us X --link-gbs Y$" "$tmp/err" && ok ||
        bad "--ranks $r on 4 devices: exit $rc, $(cat "$tmp/err") $(grep efficiency "$tmp/out")"
done
# in a list, before any row is printed
model/model predict --data "$x4" --scheme pull --precision fp32 --size 256 --ranks 1,2,4,8 --format csv >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "--ranks 8:" "$tmp/err" && ok || bad "--ranks 1,2,4,8: exit $rc, $(wc -l <"$tmp/out") lines out"
# several ranks a device where the probe itself ran them so: predicted, said
o=$tmp/over
mkdir -p "$o" && cp tests/model-data/gpu/*.csv "$o/" && cp tests/model-data/ranks/*.csv "$o/" || exit 1
sed -i 's/GPU-000[0-9]/GPU-0000/g' "$o/interconnect.csv"
model/model predict --data "$o" --backend cuda --scheme pull --precision fp32 --size 256 --weak --ranks 4 >"$tmp/p.txt" 2>&1 &&
    grep -q "4 ranks (4 a device: oversubscribed)" "$tmp/p.txt" && grep -q "efficiency .* % (against 1 device, 4 ranks a device)$" "$tmp/p.txt" && ok ||
    bad "4 ranks the probe ran on one device: $(cat "$tmp/p.txt")"

# ---- a CPU: no host transfer, no ratio over noise --------------------------
# stream: a CPU device's transfers are refused (exit 2, one line)
if stream/stream --list 2>/dev/null | grep -q "^openmp device"; then
    stream/stream --backend openmp --sweeps transfer --quick --out "$tmp/s" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "transfer times host<->device copies, but .* is a cpu device" "$tmp/err" && ok ||
        bad "stream --sweeps transfer on openmp: exit $rc, $(cat "$tmp/err")"
fi
if command -v gnuplot >/dev/null 2>&1; then
    cp -r "$cpu" "$tmp/cpu" && sh plots/render.sh "$tmp/cpu" "$tmp/cpu-plots" >/dev/null 2>&1
    r=$tmp/cpu-plots/report.md
    [ -f "$r" ] && ! grep -q "pinned transfer:" "$r" && grep -q "^- host<->device transfers: not measured on this backend" "$r" && ok ||
        bad "CPU report's transfers: $(grep -i transfer "$r" | head -n 3)"
    # the read slope is negative: the ratio is n/a, never a number
    grep -q "^- misaligned write / misaligned read cost ratio: n/a (the misaligned read extra is within noise)$" "$r" &&
        ! grep -q "times a misaligned read" "$r" && ok || bad "CPU report's cost ratio: $(grep -i 'misaligned read' "$r")"
    # a flat write slope (r^2 0.0006 over 5 points) over a positive read one
    sed -i 's/^\(pthread-skylake-avx512-intel-xeon-processor,opencl,misaligned_reads,4,19,misaligned_reads\),-0.001619,[^,]*,[^,]*,/\1,0.002,5.3,0.9,/;
            s/^\(pthread-skylake-avx512-intel-xeon-processor,opencl,misaligned_writes,4,19,misaligned_writes\),0.008786,[^,]*,[^,]*,[^,]*,[^,]*$/\1,0.000306,5.3,0.000643,0.08,5/' \
        "$tmp/cpu/membench-fit.csv"
    sh plots/render.sh "$tmp/cpu" "$tmp/cpu-plots" >/dev/null 2>&1
    grep -q "^- misaligned write / misaligned read cost ratio: n/a (the misaligned write extra is within noise)$" "$r" && ok ||
        bad "a noise-level write slope: $(grep -i 'cost ratio\|times a misaligned' "$r")"
    # a GPU's clear slopes keep their ratio and their transfer fits
    cp -r "$h100" "$tmp/gpu" && sh plots/render.sh "$tmp/gpu" "$tmp/gpu-plots" >/dev/null 2>&1
    g=$tmp/gpu-plots/report.md
    grep -q "^- a misaligned write costs 16.9 times a misaligned read" "$g" && grep -q "^- h2d pinned transfer: 9.903 us + s / 54.419 GB/s$" "$g" && ok ||
        bad "GPU report's ratio or transfers: $(grep -i 'misaligned read\|transfer:' "$g")"
    # a fitted latency below zero is no time
    sed -i 's/^transfer_h2d_pinned_latency_us,.*/transfer_h2d_pinned_latency_us,-0.001/' "$tmp/gpu/stream-meta.csv"
    sh plots/render.sh "$tmp/gpu" "$tmp/gpu-plots" >/dev/null 2>&1
    grep -q "^- h2d pinned transfer: latency n/a (fitted -0.001 us: within noise of 0), s / 54.419 GB/s$" "$g" && ok ||
        bad "a negative latency: $(grep 'h2d pinned' "$g")"
else
    echo "notes: gnuplot not installed: the report checks skipped"
fi
echo "notes: $passed passed, $failed failed"
[ "$failed" = 0 ]
