#!/bin/sh
# Across ranks, on PoCL under mpirun (2 and 3 ranks on the CPU): the
# exchange's paths on a stand-in device (tests/test_exchange); every
# scheme and precision decomposed equals one rank's run bit for bit, mass
# kept, planted values land in the right halo slot of the right neighbour
# (lbmkernels --verify); a corrupted result fails; the timing writes lbm.csv
# rows with the ranks' columns; the interconnect probe writes its files;
# bad input ends every rank with exit 2 and one line from rank 0, a failure
# on one rank ends them all; nothing hangs (each run under timeout).
# Without MPI it says so and skips.  Last line: "test_mpi: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() { echo "test_mpi: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

if ! command -v mpirun >/dev/null 2>&1 || ! command -v mpicc >/dev/null 2>&1; then
    echo "test_mpi: skipped: no mpirun or mpicc (make deps installs openmpi-bin libopenmpi-dev)"
    finish
fi
for t in lbmkernels/lbmkernels stream/stream tests/test_exchange; do
    if ! ldd "$t" 2>/dev/null | grep -q libmpi; then
        echo "test_mpi: skipped: $t was built without MPI (rebuild: make clean all)"
        finish
    fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one thread per rank: the ranks share the CI machine's cores
export POCL_MAX_PTHREAD_COUNT=1
# In the sanitizer build (make test-sanitize), no leak check under mpirun:
# Open MPI leaves its components' allocations behind at MPI_Finalize and
# unloads them, so LeakSanitizer reports stacks through unnamed modules that
# no suppression can select.  ASan's memory errors and UBSan stay on; the
# same tools' leaks are checked by their one-rank tests.
[ -n "${LBP_SANITIZE:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -q"
LIMIT=300

# run N NAME ARGS...: every rank's exit status in $tmp/NAME.rc.<rank>,
# stdout+stderr of the whole job in $tmp/NAME.log, mpirun's status in $tmp/NAME.rc
run() {
    n=$1 name=$2; shift 2
    timeout $LIMIT $MPIRUN -np "$n" sh -c '"$@"; echo $? > "$0.rc.$OMPI_COMM_WORLD_RANK"' "$tmp/$name" "$@" \
        >"$tmp/$name.log" 2>&1
    echo $? >"$tmp/$name.rc"
}
# every rank of run NAME ended with status S (and the job in time)
all_ranks() {
    name=$1 want=$2 n=$3
    [ "$(cat "$tmp/$name.rc")" != 124 ] || { bad "$name: timed out (a rank hung)"; return; }
    got=$(cat "$tmp/$name".rc.* 2>/dev/null | sort | uniq -c | awk '{printf "%s x%s ", $2, $1}')
    if [ "$got" = "$want x$n " ]; then ok; else bad "$name: ranks ended with [${got}], expected $want on all $n: $(tail -n 5 "$tmp/$name.log")"; fi
}
has() { # NAME PATTERN: the job's output holds it
    if grep -q "$2" "$tmp/$1.log"; then ok; else bad "$1: no '$2' in: $(tail -n 5 "$tmp/$1.log")"; fi
}
lines() { # NAME PATTERN COUNT
    c=$(grep -c "$2" "$tmp/$1.log")
    if [ "$c" -eq "$3" ]; then ok; else bad "$1: $c lines of '$2', expected $3"; fi
}
LBM="lbmkernels/lbmkernels --backend opencl"

# 0. core/exchange's three paths on a stand-in device of shared memory (the
# peer path's ready/done messages and views, the mpi path's datatypes)
for n in 2 3; do
    run $n exchange$n tests/test_exchange
    all_ranks exchange$n 0 $n
    lines exchange$n "PASSED  \] 6 test(s)" $n
done

# 1. every scheme, fp32 and fp64, both boundaries, overlap off and on: the
# CPU's kernel shape (a row per thread) on 2 ranks (fp16s below: its
# conversions make PoCL slow enough that all three would pass the limit)
# (make test: fp32 alone on 2 ranks, fp16s alone on 3; make test-full: all)
full=${LBP_TEST_FULL:-0}; [ "$full" = 0 ] && full=""
p2=fp32 p3=fp16s n2=16 n3=16
[ -n "$full" ] && p2=fp32,fp64 p3=fp32,fp16s n2=32 n3=32
run 2 verify2 $LBM --verify --precisions $p2
all_ranks verify2 0 2
lines verify2 "bit for bit as one rank: passed" $n2
lines verify2 "halos: planted values where they belong: passed" $((n2 / 2))
# the GPU's shape (two cells per thread, a partial last pair: nx = 13) on 3
# ranks, slabs of 2 planes (the overlap has no interior then: it must still
# hold), in fp32 and fp16s
run 3 verify3 $LBM --verify --cells-per-thread 2 --sizes 13x10x2 --precisions $p3
all_ranks verify3 0 3
lines verify3 "bit for bit as one rank: passed" $n3
lines verify3 "halos: planted values where they belong: passed" $((n3 / 2))

# 2. a corrupted decomposed result is caught, on every rank
run 2 planted $LBM --verify --schemes pull --precisions fp32 --boundary cavity --overlap off --plant-error
all_ranks planted 1 2
has planted "not bit for bit the same"

# 3. timing: one row per overlap, the ranks' columns at the end of lbm.csv, before the kernel's record
run 2 timing $LBM --schemes aa --precisions fp32 --sizes 16 --quick --steps 4 --reps 2 --out "$tmp/timing"
all_ranks timing 0 2
csv=$tmp/timing/lbm.csv
if head -n 1 "$csv" 2>/dev/null | grep -q ',cells_per_thread,pass_spread_pct,stores,ranks,exchange,overlap,scaling,nz_local,exchange_us,launch,words_read,words_written,misaligned_reads,misaligned_writes$'; then ok; else bad "lbm.csv header: $(head -n 1 "$csv" 2>/dev/null)"; fi
rows=$(awk -F, 'NR > 1 && $(NF-10) == 2 && $(NF-9) == "host" && $(NF-7) == "weak" && $(NF-6) == 16 && $(NF-5) > 0 && $8 == 32 { print $(NF-8) }' "$csv" | sort | tr '\n' ' ')
if [ "$rows" = "0 1 " ]; then ok; else bad "lbm.csv rows (overlap of 2-rank, host, weak, 16 planes each, 16x16x32 rows): [$rows]: $(cat "$csv")"; fi
if grep -q '^ranks,2$' "$tmp/timing/lbm-meta.csv" && grep -q '^rank_1_device,' "$tmp/timing/lbm-meta.csv"; then ok; else bad "lbm-meta.csv lacks ranks, rank_1_device"; fi

# 4. the interconnect: 3 pairs x one-way and both-ways x 3 sizes, fitted;
# then the rings of ranks 0-1 and 0-2 (every rank to both neighbours at once,
# its messages verified: on 3 ranks a swapped neighbour would show)
run 3 interconnect stream/stream --backend opencl --interconnect --sizes 4K,64K,1M --reps 3 --beside none --out "$tmp/ic"
all_ranks interconnect 0 3
ic=$tmp/ic/interconnect.csv fit=$tmp/ic/interconnect-fit.csv
if [ "$(head -n 1 "$ic" 2>/dev/null)" = "device,backend,path,rank_a,rank_b,device_a,device_b,uuid_a,uuid_b,direction,bytes,reps,us_min,us_median,us_max,gbs_median,paired_alone_us_median,paired_ratio_median,beside" ]; then ok; else bad "interconnect.csv header: $(head -n 1 "$ic" 2>/dev/null)"; fi
if [ "$(awk -F, 'NR > 1 && $3 == "host" && $10 != "ring" && $16 > 0' "$ic" | wc -l)" -eq 18 ]; then ok; else bad "interconnect.csv: not 18 host rows with a bandwidth"; fi
if [ "$(head -n 1 "$fit" 2>/dev/null)" = "device,backend,path,rank_a,rank_b,direction,latency_us,bandwidth_gbs,r2,points,beside" ] &&
   [ "$(awk -F, 'NR > 1 && $6 != "ring" && $10 == 3' "$fit" | wc -l)" -eq 6 ]; then ok; else bad "interconnect-fit.csv: $(cat "$fit" 2>/dev/null)"; fi
rings=$(awk -F, 'NR > 1 && $3 == "host" && $10 == "ring" && $4 == 0 && $16 > 0 { print $5 }' "$ic" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
if [ "$rings" = "1:3 2:3 " ]; then ok; else bad "interconnect.csv: ring rows (rank_b:sizes) [$rings], expected rings 0-1 and 0-2 at 3 sizes"; fi
if [ "$(awk -F, 'NR > 1 && $3 == "host" && $6 == "ring" && $4 == 0 && $10 == 3 { print $5 }' "$fit" | tr '\n' ' ')" = "1 2 " ]; then ok; else bad "interconnect-fit.csv: no ring fits 0-1, 0-2: $(cat "$fit")"; fi
if [ "$(awk -F, 'FNR > 1 && $NF != "none"' "$ic" "$fit" | wc -l)" -eq 0 ]; then ok; else bad "--beside none wrote rows beside a copy"; fi

# 4b. the rings again beside a copy on every rank's device (2 ranks: the
# ring 0-1), at the sizes from 256K (64K is left out), each its own fit;
# alone rows as ever; the model reads both (alone for the pairs)
run 2 beside stream/stream --backend opencl --interconnect --sizes 64K,256K,1M --reps 2 --beside-bytes 1M --out "$tmp/bs"
all_ranks beside 0 2
ic=$tmp/bs/interconnect.csv fit=$tmp/bs/interconnect-fit.csv
got=$(awk -F, 'NR > 1 && $NF == "copy" && $16 > 0 { print $3 ":" $10 ":" $5 ":" $11 }' "$ic" | tr '\n' ' ')
if [ "$got" = "host:ring:1:262144 host:ring:1:1048576 " ]; then ok; else bad "interconnect.csv beside rows [$got], expected the host ring 0-1 at 256K and 1M"; fi
if [ "$(awk -F, 'NR > 1 && $NF == "none"' "$ic" | wc -l)" -eq 9 ]; then ok; else bad "interconnect.csv: not 9 rows alone (one-way, both-ways, ring x 3 sizes)"; fi
# each run beside paired with one alone just before it: every row beside
# says the pairs' alone median and ratio (beside / alone); rows alone neither
paired=$(awk -F, 'NR > 1 && $NF == "copy" && $17 > 0 && $18 > 0 && $16 > 0 { print $11 }' "$ic" | tr '\n' ' ')
if [ "$paired" = "262144 1048576 " ]; then ok; else bad "interconnect.csv: beside rows without their paired alone median and ratio [$paired]: $(cat "$ic")"; fi
if [ "$(awk -F, 'NR > 1 && $NF == "none" && ($17 != "" || $18 != "")' "$ic" | wc -l)" -eq 0 ]; then ok; else bad "interconnect.csv: rows alone with a pairing"; fi
if [ "$(awk -F, 'NR > 1 && $NF == "copy" && $6 == "ring" && $10 == 2 { print $3 }' "$fit")" = host ]; then ok; else bad "interconnect-fit.csv: no host ring fit beside a copy: $(cat "$fit")"; fi
if grep -q '^beside,none;copy$' "$tmp/bs/interconnect-meta.csv" && grep -q '^beside_copy_bytes,1048576$' "$tmp/bs/interconnect-meta.csv"; then ok; else bad "interconnect-meta.csv lacks beside, beside_copy_bytes"; fi
has beside "beside the exchanges a copy of 2 x 1048576 bytes"
# --beside copy alone: only the rings beside
run 2 beside_only stream/stream --backend opencl --interconnect --sizes 256K --reps 2 --beside copy --beside-bytes 1M --out "$tmp/bo"
all_ranks beside_only 0 2
if [ "$(awk -F, 'NR > 1 { print $10 "-" $NF }' "$tmp/bo/interconnect.csv" | tr '\n' ' ')" = "ring-copy " ]; then ok; else bad "--beside copy: $(cat "$tmp/bo/interconnect.csv")"; fi
if [ "$(awk -F, 'NR > 1 && $17 > 0 && $18 > 0' "$tmp/bo/interconnect.csv" | wc -l)" -eq 1 ]; then ok; else bad "--beside copy: the row beside lacks its pairing alone: $(cat "$tmp/bo/interconnect.csv")"; fi
# a device of one queue (openmp) has no exchange beside a kernel: alone only, said
run 2 onequeue stream/stream --backend openmp --interconnect --exchange host --sizes 256K --reps 2 --out "$tmp/oq"
all_ranks onequeue 0 2
lines onequeue "has one queue: no exchange beside a copy" 1
if [ "$(awk -F, 'NR > 1 { print $NF }' "$tmp/oq/interconnect.csv" | sort -u)" = none ]; then ok; else bad "one queue: rows beside a copy written"; fi

# 5. bad input: exit 2 on every rank, one line from rank 0
run 2 badbeside stream/stream --backend opencl --interconnect --beside sideways
all_ranks badbeside 2 2
lines badbeside "sideways" 1
run 2 besidebytes stream/stream --backend opencl --interconnect --beside-bytes 1K
all_ranks besidebytes 2 2
lines besidebytes "beside-bytes" 1
run 2 besidealone stream/stream --backend opencl --beside copy
all_ranks besidealone 2 2
lines besidealone "only with --interconnect" 1
run 2 indivisible $LBM --verify --ranks-scaling strong --sizes 12x10x7
all_ranks indivisible 2 2
lines indivisible "do not divide the lattice's 7 planes" 1
run 3 thin $LBM --verify --ranks-scaling strong --sizes 12x10x2
all_ranks thin 2 3
lines thin "thinner than the 1 halo plane" 1
run 2 peer $LBM --verify --exchange peer
all_ranks peer 2 2
lines peer "exchange peer: not available" 1
run 2 cudaaware $LBM --verify --exchange mpi
all_ranks cudaaware 2 2
lines cudaaware "exchange mpi: not available" 1
run 2 badflag $LBM --overlap sideways
all_ranks badflag 2 2
lines badflag "sideways" 1
# a device one rank lacks (no CUDA here): agreed, exit 2 everywhere
timeout $LIMIT $MPIRUN -np 1 sh -c '"$@"; echo $? > "$0.rc.0"' "$tmp/kinds" $LBM --verify : \
    -np 1 sh -c '"$@"; echo $? > "$0.rc.1"' "$tmp/kinds" lbmkernels/lbmkernels --backend cuda --verify >"$tmp/kinds.log" 2>&1
echo $? >"$tmp/kinds.rc"
all_ranks kinds 2 2
has kinds "rank 1: cuda"
run 2 ic_alone stream/stream --backend opencl --quick
all_ranks ic_alone 2 2

# 6. the copy beside the exchange gone wrong on the last rank alone: every
# rank exits 1, rank 1's reason said once, nothing written
run 2 besidewrong stream/stream --backend opencl --interconnect --sizes 256K --reps 2 --beside copy --beside-bytes 1M --plant-error --out "$tmp/bw"
all_ranks besidewrong 1 2
lines besidewrong "the copy beside the exchange, rank 1: element 4 of 65536" 1
if [ -f "$tmp/bw/interconnect.csv" ]; then bad "interconnect.csv written though a copy beside was wrong"; else ok; fi

# 6b. a failure on one rank alone (rank 0 cannot write its results) ends the
# job, in time and not with success
timeout $LIMIT $MPIRUN -np 2 $LBM --schemes pull --precisions fp32 --sizes 8 --quick --out /proc/lbmprobe-cannot >"$tmp/alone.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then ok; else bad "one rank's failure: mpirun exited $rc: $(tail -n 3 "$tmp/alone.log")"; fi

finish
