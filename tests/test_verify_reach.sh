#!/bin/sh
# Verification reaches what is timed: a kernel wrong only past a row length
# or past a block is caught by --verify and by timing's own check before it
# measures (exit 1, no number written), where the small lattice at one
# small block let it through.  The faulty kernels come from
# tests/lbmkernels_fault: lbmkernels itself, its kernel text rewritten so
# that populations 1 and 2 swap (mass kept) where LBP_FAULT_IF holds.  The
# real tool passes the same commands.  On PoCL (a row per thread, the CPU's
# shape, and a cell per thread, the GPU's), one run on OpenMP, one on two
# ranks under mpirun (where built with MPI).
# Last line: "test_verify_reach: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
finish() { echo "test_verify_reach: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }
if [ ! -x tests/lbmkernels_fault ] || [ ! -x lbmkernels/lbmkernels ]; then
    echo "test_verify_reach: skipped: lbmkernels or tests/lbmkernels_fault not built (make all tests/lbmkernels_fault)"
    finish
fi
export POCL_MAX_PTHREAD_COUNT=1
LIMIT=300
ONE="--schemes pull --precisions fp32"
TIMED="$ONE --sizes 48 --steps 2 --reps 1 --passes 1"

# case NAME FAULT TOOL ARGS...: TOOL (lbmkernels, or the faulty one with
# LBP_FAULT_IF=FAULT) in a folder of its own ($dir; results in $dir/out),
# its stdout and stderr in $dir/log, its exit status in $rc
case_run() {
    name=$1 fault=$2 tool=$3
    shift 3
    dir=$(mktemp -d "$tmp/$name.XXXXXX")
    LBP_FAULT_IF=$fault timeout $LIMIT "$tool" "$@" --out "$dir/out" >"$dir/log" 2>&1
    rc=$?
}
expect_rc() {
    if [ "$rc" -eq "$1" ]; then ok; else bad "$name: exit $rc, want $1: $(tail -n 3 "$dir/log")"; fi
}
has() { # PATTERN: the last case's output holds it
    if grep -q -- "$1" "$dir/log"; then ok; else bad "$name: no '$1' in: $(tail -n 3 "$dir/log")"; fi
}
nothing_written() {
    if [ -e "$dir/out/lbm.csv" ] || [ -e "$dir/out/lbm-meta.csv" ]; then bad "$name: results written: $(ls "$dir/out")"
    else ok; fi
}
# the lines of failed checks all name the reach lattice (PATTERN), none the
# small one: the fault hides from it
only_at() {
    n=$(grep -c "  FAILED$" "$dir/log")
    off=$(grep "  FAILED$" "$dir/log" | grep -vc -- "$1")
    if [ "$n" -gt 0 ] && [ "$off" -eq 0 ]; then ok
    else bad "$name: $n checks caught, $off of them not at '$1': $(grep "  FAILED$" "$dir/log" | head -n 3)"; fi
}

# the real kernels pass: --verify checks them at the reach of the timed
# runs (on the CPU: rows of 256 and blocks of 256 rows), timing measures
case_run verify_real "" lbmkernels/lbmkernels --backend opencl --verify $ONE
expect_rc 0
has "verify fp32 periodic, row per thread, and at the timed runs' reach (257x65x4, block 256): passed"
case_run timing_real "" lbmkernels/lbmkernels --backend opencl $TIMED
expect_rc 0
if [ "$(awk -F, 'NR > 1 && $6 == 48' "$dir/out/lbm.csv" 2>/dev/null | wc -l)" -ge 1 ]; then ok
else bad "timing_real: no 48^3 row in lbm.csv"; fi

# a fault past a row (nx > 40): the 20x18x16 lattice misses it, the reach
# catches it; timing's check at 48^3's rows catches it before a number
case_run verify_row "nx > 40" tests/lbmkernels_fault --backend opencl --verify $ONE
expect_rc 1
only_at "257x65x4"
case_run timing_row "nx > 40" tests/lbmkernels_fault --backend opencl $TIMED
expect_rc 1
has "failed verification at the timed launch (48x65x4, blocks 64,256); nothing written"
nothing_written
# the same with --quick: its own blocks (16, 64 on a CPU)
case_run quick_row "nx > 40" tests/lbmkernels_fault --backend opencl $TIMED --quick
expect_rc 1
has "at the timed launch (48x17x4, blocks 16,64)"
nothing_written

# a fault past a block (a thread's place in its block from 100 on): the
# 64-thread blocks of the small check miss it, the timed 256 catch it
case_run verify_block "local_id(0) >= 100" tests/lbmkernels_fault --backend opencl --verify $ONE
expect_rc 1
only_at "257x65x4, cells/thread row, block 256"
case_run timing_block "local_id(0) >= 100" tests/lbmkernels_fault --backend opencl $TIMED
expect_rc 1
nothing_written
# the GPU's shape (a cell per thread): every thread of the largest block
case_run timing_block_cell "local_id(0) >= 200" tests/lbmkernels_fault --backend opencl $TIMED --cells-per-thread 1
expect_rc 1
has "failed verification at the timed launch (48x4x4, blocks 64,256)"
nothing_written

# OpenMP's kernels (the same source as C): caught there too
case_run verify_openmp "nx > 40" tests/lbmkernels_fault --backend openmp --verify --schemes aa --precisions fp64
expect_rc 1
only_at "257x65x4"

# across ranks (mpirun, where lbmkernels was built with MPI): every rank's
# kernel against the reference at the timed launch before the slabs are
# compared with one rank's run (the same fault in both would agree)
if command -v mpirun >/dev/null 2>&1 && ldd tests/lbmkernels_fault 2>/dev/null | grep -q libmpi; then
    dir=$(mktemp -d "$tmp/ranks.XXXXXX") name=ranks
    [ -n "${LBP_SANITIZE:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    LBP_FAULT_IF="nx > 40" timeout $LIMIT mpirun --allow-run-as-root --oversubscribe -q -np 2 \
        sh -c '"$@"; echo $? > "$0/rc.$OMPI_COMM_WORLD_RANK"' "$dir" tests/lbmkernels_fault --backend opencl \
        --schemes aa --precisions fp32 --sizes 48 --quick --steps 4 --reps 2 --out "$dir/out" >"$dir/log" 2>&1
    got=$(cat "$dir"/rc.* 2>/dev/null | tr '\n' ' ')
    if [ "$got" = "1 1 " ]; then ok; else bad "ranks: ranks ended with [$got], want 1 on both: $(tail -n 3 "$dir/log")"; fi
    has "failed verification at the timed launch on rank 1's device; nothing written"
    nothing_written
else
    echo "test_verify_reach: across ranks skipped: no mpirun, or built without MPI"
fi

finish
