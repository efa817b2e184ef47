#!/bin/sh
# likwid-bench gets every CPU of the machine, whatever the CPU set of the
# thread that starts it: the OpenMP backend binds stream's master thread
# to one core (OMP_PROC_BIND), and a child inherits that set, where
# likwid-bench would place all its threads (a flat saturation curve).  A
# stand-in likwid-bench on PATH writes the CPUs it may run on and prints a
# report the parser reads; stream runs a sweep (the OpenMP runtime binds
# its threads then) and its likwid sweep on the OpenMP
# device with OMP_PROC_BIND=close.  Needs 2 CPUs or more (else skipped).
# Last line: "likwid-affinity: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
cpus=$(nproc 2>/dev/null || echo 1)
if [ "$cpus" -lt 2 ] || ! stream/stream --list 2>/dev/null | grep -q '^openmp device'; then
    echo "likwid-affinity: one CPU or no OpenMP device: skipped"
    echo "likwid-affinity: 0 passed, 0 failed"
    exit 0
fi
mkdir "$tmp/bin"
cat >"$tmp/bin/likwid-bench" <<EOS
#!/bin/sh
grep '^Cpus_allowed_list' /proc/self/status | awk '{ print \$2 }' >>"$tmp/seen"
printf 'Cycles:\t\t\t35648024\nTime:\t\t\t1.371111e-02 sec\nIterations:\t\t20\nIterations per thread:\t10\n'
printf 'Size (Byte):\t\t64000000\nData volume (Byte):\t640000000\nMByte/s:\t\t46677.48\n'
EOS
chmod +x "$tmp/bin/likwid-bench"
want=$(grep '^Cpus_allowed_list' /proc/self/status | awk '{ print $2 }')
PATH="$tmp/bin:$PATH" OMP_PLACES=cores OMP_PROC_BIND=close OMP_NUM_THREADS=$cpus \
    stream/stream --backend openmp --sweeps word,likwid --quick --out "$tmp/out" >"$tmp/log" 2>&1
if [ -s "$tmp/seen" ]; then ok; else bad "the stand-in likwid-bench never ran: $(tail -n 2 "$tmp/log")"; fi
if [ -s "$tmp/seen" ] && [ "$(sort -u "$tmp/seen")" = "$want" ]; then ok
else bad "likwid-bench ran on CPUs '$(sort -u "$tmp/seen" | tr '\n' ' ')', this test on '$want'"; fi
echo "likwid-affinity: $passed passed, $failed failed"
[ "$failed" = 0 ]
