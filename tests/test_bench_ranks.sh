#!/bin/sh
# core/bench-ranks.sh, make bench's multi-device stage, against stand-ins
# for mpirun, stream and lbmkernels (no MPI, no device): which runs it
# starts with which flags, the rows it merges, what it records, and when it
# skips or fails.  Last line: "bench_ranks: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
root=$(pwd)

# A tree the script runs in: core/bench-ranks.sh, stand-in tools, bin/mpirun.
# STUB_DEVICES devices named test-gpu; STUB_PROBE=1: stream offers
# --interconnect (paths host, peer); STUB_FAIL=<path>: lbmkernels fails on
# it; lbmkernels says mpi is not available; STUB_NO_MPI=1: lbmkernels has
# no --ranks-scaling; STUB_CPT=1: its lbm.csv has cells_per_thread.
make_tree() { # DIR
    mkdir -p "$1/core" "$1/stream" "$1/lbmkernels" "$1/bin" "$1/work"
    cp "$root/core/bench-ranks.sh" "$1/core/"
    cat >"$1/bin/mpirun" <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "mpirun (stand-in) 0"; exit 0; }
echo "mpirun $*" >>"$STUB_LOG"
while [ "$1" != -np ]; do shift; done
np=$2; shift 2
OMPI_COMM_WORLD_SIZE=$np exec "$@"
EOF
    cat >"$1/stream/stream" <<'EOF'
#!/bin/sh
out=""
for a in "$@"; do
    case "$a" in
    --list) i=0; while [ $i -lt "${STUB_DEVICES:-1}" ]; do echo "cuda device $i: Test GPU [cuda] slug=test-gpu, 132 CUs, 80 GiB"; i=$((i + 1)); done; exit 0 ;;
    --describe) echo "global_mem_bytes,85000000000"; exit 0 ;;
    --help) [ "${STUB_PROBE:-0}" = 1 ] && echo "  --interconnect  the probe"
            [ "${STUB_PROBE:-0}" = 1 ] && [ "${STUB_NO_BESIDE:-0}" = 0 ] && echo "  --beside LIST   the probe beside a copy"
            exit 0 ;;
    esac
done
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
mkdir -p "$out"
echo "device,backend,path,rank_a,rank_b,direction,latency_us,bandwidth_gbs,r2,points" >"$out/interconnect-fit.csv"
echo "test-gpu,cuda,host,0,1,both-ways,20,10,0.99,12" >>"$out/interconnect-fit.csv"
printf 'key,value\ngit_commit,0123456789ab\n' >"$out/interconnect-meta.csv"
echo "test-gpu,cuda,peer,0,1,both-ways,3,100,0.99,12" >>"$out/interconnect-fit.csv"
echo "device,backend,path,rank_a,rank_b,device_a,device_b,uuid_a,uuid_b,direction,bytes,reps,us_min,us_median,us_max,gbs_median" >"$out/interconnect.csv"
EOF
    cat >"$1/lbmkernels/lbmkernels" <<'EOF'
#!/bin/sh
case "$1" in --help) [ "${STUB_NO_MPI:-0}" = 1 ] || echo "  --ranks-scaling weak|strong"; exit 0 ;; esac
while [ $# -gt 0 ]; do
    case "$1" in --out) out=$2 ;; --exchange) x=$2 ;; --ranks-scaling) sc=$2 ;; --sizes) n=$2 ;; --overlap) ov=$2 ;; esac
    shift
done
[ "$x" = mpi ] && { echo "lbmkernels: --exchange mpi: CUDA-aware MPI is not available (no MPIX_Query_cuda_support)" >&2; exit 2; }
[ "$x" = "${STUB_FAIL:-}" ] && { echo "lbmkernels: validation failed" >&2; exit 1; }
mkdir -p "$out"
r=$OMPI_COMM_WORLD_SIZE
cpt=""; [ "${STUB_CPT:-0}" = 1 ] && cpt=",cells_per_thread"
echo "device,backend,scheme,precision,boundary,nx,ny,nz,cells,block_size,mlups_median$cpt,ranks,exchange,overlap,scaling,nz_local,exchange_us" >"$out/lbm.csv"
[ "$r" = 1 ] && x=none
[ -n "$cpt" ] && cpt=,1
for o in 0 1; do
    [ "$ov" = off ] && [ $o = 1 ] && continue
    nz=$n; [ "$sc" = weak ] && nz=$((n * r))
    echo "test-gpu,cuda,pull,fp32,periodic,$n,$n,$nz,$((n * n * nz)),256,1000$cpt,$r,$x,$o,$sc,$((nz / r)),10" >>"$out/lbm.csv"
done
EOF
    chmod +x "$1/bin/mpirun" "$1/stream/stream" "$1/lbmkernels/lbmkernels"
    echo "device,backend,scheme,precision,boundary,nx,ny,nz,cells,block_size,mlups_median,ranks,exchange,overlap,scaling,nz_local,exchange_us" >"$1/work/lbm.csv"
    echo "test-gpu,cuda,pull,fp32,periodic,256,256,256,16777216,192,4000,1,none,0,none,256,0" >>"$1/work/lbm.csv"
}
# stage DIR [ENV=VALUE...]: run the stage there; its exit status in $rc
stage() {
    d=$1; shift
    (cd "$d" && env PATH="$d/bin:$PATH" STUB_LOG="$d/mpirun.log" "$@" sh core/bench-ranks.sh work cuda test-gpu gpu) >"$d/out.log" 2>&1
    rc=$?
}
rows() { awk -F, -v n="$2" 'NR > 1 && $12 == n' "$1/work/lbm.csv" | wc -l; } # DIR RANKS: rows with that many
meta() { awk -F, -v k="$2" '$1 == k { sub(/^[^,]*,/, ""); print }' "$1/work/ranks-meta.csv"; }

# 1. two devices: the probe on 2 ranks, then 1 and 2 ranks, host and peer
# (the probe's paths; mpi not measured), weak and strong
d=$tmp/two; make_tree "$d"
stage "$d" STUB_DEVICES=2 STUB_PROBE=1
[ "$rc" = 0 ] && ok || bad "two devices: exit $rc: $(cat "$d/out.log")"
[ "$(grep -c -- '--interconnect' "$d/mpirun.log")" = 1 ] && grep -q -- '-np 2 stream/stream --backend cuda --interconnect' "$d/mpirun.log" && ok || bad "probe not run once on 2 ranks: $(cat "$d/mpirun.log")"
[ "$(grep -c 'lbmkernels' "$d/mpirun.log")" = 12 ] && ok || bad "expected 12 lbmkernels runs (2 precisions x 2 scalings x (1 rank + host, peer)), got: $(grep lbmkernels "$d/mpirun.log")"
# a GPU's FP16S beside FP32, each precision's runs in one call of its own
[ "$(grep -c -- '--precisions fp16s ' "$d/mpirun.log")" = 6 ] && [ "$(grep -c -- '--precisions fp32 ' "$d/mpirun.log")" = 6 ] &&
    [ "$(meta "$d" precisions)" = "fp32;fp16s" ] && ok || bad "fp32 and fp16s runs: $(grep -c -- '--precisions fp16s ' "$d/mpirun.log"), meta $(meta "$d" precisions)"
grep -q -- '--exchange mpi' "$d/mpirun.log" && bad "mpi run though the probe did not measure it" || ok
grep -q -- '-np 2 lbmkernels/lbmkernels .*--sizes 256 --block-size 192 --ranks-scaling weak --exchange peer --overlap both' "$d/mpirun.log" && ok || bad "weak peer run's flags: $(grep peer "$d/mpirun.log" | head -n 1)"
grep -q -- '-np 2 lbmkernels/lbmkernels .*--sizes 512 .*--ranks-scaling strong --exchange host' "$d/mpirun.log" && ok || bad "strong host run at 512: $(grep strong "$d/mpirun.log" | head -n 1)"
grep -q -- '-np 1 lbmkernels.* --exchange host --overlap off' "$d/mpirun.log" && ok || bad "one-rank baseline not run"
if [ "$(id -u)" = 0 ]; then grep -q -- '--allow-run-as-root' "$d/mpirun.log" && ok || bad "root without --allow-run-as-root"
else grep -q -- '--allow-run-as-root' "$d/mpirun.log" && bad "--allow-run-as-root though not root" || ok; fi
[ "$(rows "$d" 2)" = 16 ] && ok || bad "expected 16 two-rank rows in lbm.csv, got $(rows "$d" 2)"
[ "$(rows "$d" 1)" = 5 ] && ok || bad "expected the one-device row and 4 one-rank baselines, got $(rows "$d" 1)"
[ -f "$d/work/interconnect-fit.csv" ] && [ -f "$d/work/interconnect.csv" ] && ok || bad "the probe's files not in the result folder"
[ "$(meta "$d" oversubscribed)" = no ] && [ "$(meta "$d" paths_unavailable)" = mpi ] && [ "$(meta "$d" counts)" = "1;2" ] &&
    [ "$(meta "$d" git_commit)" = 0123456789ab ] && ok ||
    bad "ranks-meta.csv: $(cat "$d/work/ranks-meta.csv")"
[ -d "$d/work/.ranks-run" ] && bad "the run folder was left behind" || ok
# the probe's rings again beside a copy, recorded
grep -q -- '-np 2 stream/stream --backend cuda --interconnect --beside none,copy' "$d/mpirun.log" && [ "$(meta "$d" interconnect_beside)" = "none;copy" ] && ok ||
    bad "probe not run beside a copy: $(grep -- '--interconnect' "$d/mpirun.log"), meta $(meta "$d" interconnect_beside)"
# a probe without --beside: run as before, recorded as alone
d=$tmp/twoalone; make_tree "$d"
stage "$d" STUB_DEVICES=2 STUB_PROBE=1 STUB_NO_BESIDE=1
[ "$rc" = 0 ] && ! grep -q -- '--beside' "$d/mpirun.log" && [ "$(meta "$d" interconnect_beside)" = none ] && ok ||
    bad "a probe without --beside: exit $rc, $(grep -- '--interconnect' "$d/mpirun.log"), meta $(meta "$d" interconnect_beside)"

# 2. eight devices, --quick: 1 and 8 ranks only, pull only, half lattices
d=$tmp/eight; make_tree "$d"
(cd "$d" && env PATH="$d/bin:$PATH" STUB_LOG="$d/mpirun.log" STUB_DEVICES=8 STUB_PROBE=1 sh core/bench-ranks.sh work cuda test-gpu gpu --quick) >"$d/out.log" 2>&1
[ "$(meta "$d" counts)" = "1;8" ] && ok || bad "quick counts: $(meta "$d" counts)"
grep -q -- '-np 8 lbmkernels.*--schemes pull .*--sizes 128 ' "$d/mpirun.log" && ok || bad "quick weak run: $(grep -- '-np 8 lbm' "$d/mpirun.log" | head -n 1)"
grep -q -- '-np 8 lbmkernels.*--sizes 256 .*strong' "$d/mpirun.log" && ok || bad "quick strong lattice not 256"
grep -q -- '--precisions fp16s' "$d/mpirun.log" && bad "quick runs fp16s too" || ok

# RANKS_PRECISIONS: the precisions asked for; one that is none: exit 1, named
d=$tmp/prec; make_tree "$d"
stage "$d" STUB_DEVICES=2 STUB_PROBE=1 RANKS_PRECISIONS=fp32
[ "$rc" = 0 ] && [ "$(grep -c 'lbmkernels' "$d/mpirun.log")" = 6 ] && ! grep -q -- '--precisions fp16s' "$d/mpirun.log" &&
    [ "$(meta "$d" precisions)" = fp32 ] && ok || bad "RANKS_PRECISIONS=fp32: exit $rc, $(grep -c lbmkernels "$d/mpirun.log") runs"
stage "$d" STUB_DEVICES=2 STUB_PROBE=1 RANKS_PRECISIONS="fp32 fp8"
[ "$rc" = 1 ] && grep -q "RANKS_PRECISIONS: 'fp8' is not fp32, fp64 or fp16s" "$d/out.log" && ok || bad "RANKS_PRECISIONS=fp8: exit $rc, $(tail -n 1 "$d/out.log")"
# a CPU: FP32 alone unless asked
d=$tmp/cpu; make_tree "$d"
(cd "$d" && env PATH="$d/bin:$PATH" STUB_LOG="$d/mpirun.log" STUB_DEVICES=2 STUB_PROBE=1 sh core/bench-ranks.sh work cuda test-gpu cpu) >"$d/out.log" 2>&1
[ $? = 0 ] && ! grep -q -- '--precisions fp16s' "$d/mpirun.log" && grep -q -- '--precisions fp32' "$d/mpirun.log" && ok || bad "a CPU runs fp32 alone: $(grep -c lbmkernels "$d/mpirun.log") runs"

# 3. one device and RANKS=2: oversubscribed, said so
d=$tmp/over; make_tree "$d"
stage "$d" STUB_DEVICES=1 STUB_PROBE=1 RANKS=2
[ "$rc" = 0 ] && [ "$(meta "$d" oversubscribed)" = yes ] && ok || bad "RANKS=2 on one device: exit $rc, $(cat "$d/out.log")"
grep -q "oversubscribed" "$d/out.log" && ok || bad "no note that the ranks share a device"

# 4. one device, no RANKS: nothing to run, exit 0, nothing written
d=$tmp/one; make_tree "$d"
stage "$d" STUB_DEVICES=1 STUB_PROBE=1
[ "$rc" = 0 ] && [ ! -f "$d/work/ranks-meta.csv" ] && [ ! -f "$d/mpirun.log" ] && grep -q "skipped" "$d/out.log" && ok || bad "one device: exit $rc, $(cat "$d/out.log")"

# 5. RANKS asked of an lbmkernels without MPI: exit 1, the reason said
d=$tmp/nompi; make_tree "$d"
stage "$d" STUB_DEVICES=2 STUB_NO_MPI=1 RANKS=2
[ "$rc" = 1 ] && grep -q "RANKS=2: lbmkernels was built without MPI" "$d/out.log" && ok || bad "no-MPI lbmkernels with RANKS: exit $rc, $(cat "$d/out.log")"
stage "$d" STUB_DEVICES=2 STUB_NO_MPI=1
[ "$rc" = 0 ] && ok || bad "no-MPI lbmkernels without RANKS should skip, exit $rc"
stage "$d" STUB_DEVICES=2 RANKS=two
[ "$rc" = 1 ] && grep -q "RANKS=two is not a whole number" "$d/out.log" && ok || bad "RANKS=two: exit $rc"

# 6. a failing path: exit 1, named; the other runs' rows kept
d=$tmp/fail; make_tree "$d"
stage "$d" STUB_DEVICES=2 STUB_PROBE=1 STUB_FAIL=peer
[ "$rc" = 1 ] && grep -q "failed: weak-2-peer strong-2-peer" "$d/out.log" && ok || bad "failing peer: exit $rc, $(tail -n 2 "$d/out.log")"
[ "$(rows "$d" 2)" = 8 ] && ok || bad "host rows lost with the failing peer ones: $(rows "$d" 2)"

# 7. no probe: every path tried, mpi found unavailable by lbmkernels once
d=$tmp/noprobe; make_tree "$d"
stage "$d" STUB_DEVICES=2
[ "$rc" = 1 ] && grep -q "no tool offers --interconnect" "$d/out.log" && ok || bad "no probe: exit $rc"
[ "$(grep -c -- '--exchange mpi' "$d/mpirun.log")" = 1 ] && grep -q "not available" "$d/out.log" && ok || bad "mpi should be tried once, then skipped: $(grep -c -- '--exchange mpi' "$d/mpirun.log")"

# 8. a result folder whose lbm.csv has other columns: rows not merged, exit 1
d=$tmp/cols; make_tree "$d"
sed -i '1s/,exchange_us$//; 2s/,0$//' "$d/work/lbm.csv"
stage "$d" STUB_DEVICES=2 STUB_PROBE=1
[ "$rc" = 1 ] && grep -q "different columns" "$d/out.log" && [ "$(wc -l <"$d/work/lbm.csv")" = 2 ] && ok || bad "column mismatch: exit $rc, $(wc -l <"$d/work/lbm.csv") lines"

# 9. each scheme at its own best one-device launch (its largest lattice,
# best MLUPS there; multi-rank rows and other backends ignored), schemes
# sharing a launch in one call, a scheme without rows (aa) in the first
d=$tmp/launch; make_tree "$d"
cat >"$d/work/lbm.csv" <<'EOF2'
device,backend,scheme,precision,boundary,nx,ny,nz,cells,block_size,mlups_median,cells_per_thread,ranks,exchange,overlap,scaling,nz_local,exchange_us
test-gpu,cuda,push,fp32,periodic,512,512,512,134217728,768,18000,1,1,none,0,none,512,0
test-gpu,cuda,push,fp32,periodic,512,512,512,134217728,512,17000,2,1,none,0,none,512,0
test-gpu,cuda,push,fp32,periodic,256,256,256,16777216,256,19000,2,1,none,0,none,256,0
test-gpu,cuda,push,fp32,periodic,512,512,1024,268435456,64,30000,2,2,peer,0,weak,512,50
test-gpu,cuda,push,fp32,periodic,512,512,512,134217728,1024,19500,1,1,host,0,weak,512,0
test-gpu,opencl,push,fp32,periodic,512,512,512,134217728,128,19000,1,1,none,0,none,512,0
test-gpu,cuda,push,fp16s,periodic,512,512,512,134217728,128,19000,1,1,none,0,none,512,0
test-gpu,cuda,pull,fp32,periodic,512,512,512,134217728,512,19000,2,1,none,0,none,512,0
test-gpu,cuda,split,fp32,periodic,512,512,512,134217728,512,19100,2,1,none,0,none,512,0
test-gpu,cuda,split,fp32,periodic,512,512,512,134217728,256,18000,1,1,none,0,none,512,0
EOF2
stage "$d" STUB_DEVICES=2 STUB_PROBE=1 STUB_CPT=1 RANKS_PATHS=peer
[ "$rc" = 0 ] && ok || bad "launches: exit $rc: $(cat "$d/out.log")"
grep -q -- '-np 2 lbmkernels/lbmkernels .*--schemes push,aa --precisions fp32 --sizes 256 --block-size 768 --cells-per-thread 1 --ranks-scaling weak --exchange peer' "$d/mpirun.log" && ok ||
    bad "push (and aa) not at push's launch: $(grep -- '--schemes push' "$d/mpirun.log" | head -n 1)"
grep -q -- '-np 2 lbmkernels/lbmkernels .*--schemes pull,split --precisions fp32 --sizes 256 --block-size 512 --cells-per-thread 2 --ranks-scaling weak --exchange peer' "$d/mpirun.log" && ok ||
    bad "pull and split not in one call at pull's launch: $(grep -- 'pull' "$d/mpirun.log" | head -n 1)"
# fp32: 2 scalings x (1 rank on host + 2 ranks on peer) x 2 launches; fp16s:
# push's launch for all four (the others have no fp16s rows), 2 x 2 x 1
[ "$(grep -c 'lbmkernels' "$d/mpirun.log")" = 12 ] && ok || bad "expected 12 lbmkernels runs, got: $(grep lbmkernels "$d/mpirun.log")"
grep -q -- '-np 2 lbmkernels/lbmkernels .*--schemes push,pull,split,aa --precisions fp16s --sizes 256 --block-size 128 --cells-per-thread 1 --ranks-scaling weak --exchange peer' "$d/mpirun.log" &&
    [ "$(meta "$d" launch_fp16s)" = "push:--block-size 128 --cells-per-thread 1;pull:--block-size 128 --cells-per-thread 1;split:--block-size 128 --cells-per-thread 1;aa:--block-size 128 --cells-per-thread 1" ] && ok ||
    bad "fp16s at its own launch: $(grep -- 'fp16s' "$d/mpirun.log" | head -n 1), meta $(meta "$d" launch_fp16s)"
[ "$(meta "$d" launch)" = "push:--block-size 768 --cells-per-thread 1;aa:--block-size 768 --cells-per-thread 1;pull:--block-size 512 --cells-per-thread 2;split:--block-size 512 --cells-per-thread 2" ] && ok ||
    bad "ranks-meta.csv launch: $(meta "$d" launch)"
stage "$d" STUB_DEVICES=2 STUB_PROBE=1 STUB_CPT=1 RANKS_PATHS=peer STUB_FAIL=peer
grep -q "failed: weak-2-peer-push+aa weak-2-peer-pull+split strong-2-peer-push+aa strong-2-peer-pull+split" "$d/out.log" && ok ||
    bad "failures not named by their group: $(tail -n 1 "$d/out.log")"

echo "bench_ranks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
