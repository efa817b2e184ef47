#!/bin/sh
# Bad input on one rank only (mpirun's MPMD form, "-np 1 prog args : -np 1
# prog args --bad"): the ranks agree, each exits 2, the job prints one line
# naming the bad value (rank 0 passes on the other rank's), nothing is
# written and nothing hangs (each job under timeout 60).  lbmkernels with
# --sizes abc, --precisions fp128, --steps 0, --overlap maybe on rank 1
# (and --sizes abc on rank 0); stream --interconnect with a bad --sizes and
# --beside on rank 1; --help or --list on one rank while the other goes on.
# On PoCL.  Without MPI it says so and skips.
# Last line: "test_mpi_usage: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
finish() { echo "test_mpi_usage: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

if ! command -v mpirun >/dev/null 2>&1; then
    echo "test_mpi_usage: skipped: no mpirun (make deps installs openmpi-bin libopenmpi-dev)"
    finish
fi
for t in lbmkernels/lbmkernels stream/stream; do
    if ! ldd "$t" 2>/dev/null | grep -q libmpi; then
        echo "test_mpi_usage: skipped: $t was built without MPI (rebuild: make clean all)"
        finish
    fi
done
# one thread per rank: the ranks share the CI machine's cores
export POCL_MAX_PTHREAD_COUNT=1
# no leak check under mpirun (tests/test_mpi.sh says why)
[ -n "${LBP_SANITIZE:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -q"
LIMIT=60

# two NAME PATTERN "RANK 0's COMMAND" "RANK 1's COMMAND": the two command
# lines (split at blanks; each given --out in the case's own folder) as one
# job, which must end in time with exit 2 on both ranks, one line of output
# holding PATTERN, and no result folder
two() {
    name=$1 pattern=$2
    dir=$(mktemp -d "$tmp/$name.XXXXXX")
    # shellcheck disable=SC2086 # the command lines split at blanks on purpose
    timeout $LIMIT $MPIRUN -np 1 sh -c '"$@"; echo $? > "$0/rc.0"' "$dir" $3 --out "$dir/out" : \
        -np 1 sh -c '"$@"; echo $? > "$0/rc.1"' "$dir" $4 --out "$dir/out" >"$dir/log" 2>&1
    if [ $? -eq 124 ]; then bad "$name: timed out after $LIMIT s (a rank hung)"; return; fi
    got=$(cat "$dir"/rc.* 2>/dev/null | tr '\n' ' ')
    if [ "$got" = "2 2 " ]; then ok; else bad "$name: ranks ended with [$got], want 2 on both: $(head -c 300 "$dir/log")"; fi
    n=$(wc -l <"$dir/log")
    if [ "$n" -eq 1 ] && grep -q -- "$pattern" "$dir/log"; then ok
    else bad "$name: $n lines, want one holding \"$pattern\": $(head -c 400 "$dir/log")"; fi
    if [ -e "$dir/out" ]; then bad "$name: results written: $(ls -R "$dir/out")"; else ok; fi
}

# a timing run small enough to finish at once, were it to start
LBM="lbmkernels/lbmkernels --backend opencl --schemes pull --precisions fp32 --sizes 8 --quick --steps 2 --reps 1"
two sizes "lbmkernels: rank 1: --sizes: 'abc' is not" "$LBM" "$LBM --sizes abc"
two precisions "lbmkernels: rank 1: --precisions: unknown value 'fp128'" "$LBM" "$LBM --precisions fp128"
two steps "lbmkernels: rank 1: --steps: '0' is not" "$LBM" "$LBM --steps 0"
two overlap "lbmkernels: rank 1: --overlap: unknown value 'maybe'" "$LBM" "$LBM --overlap maybe"
# rank 0 says its own line, as ever
two sizes0 "^lbmkernels: --sizes: 'abc' is not" "$LBM --sizes abc" "$LBM"
# both bad: rank 0's line alone
two both "^lbmkernels: --steps: '0' is not" "$LBM --steps 0" "$LBM --overlap maybe"
# a verification run alike
two verify "lbmkernels: rank 1: --precisions: unknown value 'fp128'" \
    "lbmkernels/lbmkernels --backend opencl --verify" "lbmkernels/lbmkernels --backend opencl --verify --precisions fp128"
# one rank ends at --help or --list while the other goes on: its options differ
two help "lbmkernels: rank 1: ended at --help" "$LBM" "$LBM --help"
two list "lbmkernels: --list or --describe given to some ranks only" "$LBM --list" "$LBM"

# stream's interconnect probe parses per rank alike
IC="stream/stream --backend opencl --interconnect --sizes 4K --reps 2 --beside none"
two ic_sizes "stream: rank 1: --sizes: 'abc' is not" "$IC" "$IC --sizes abc"
two ic_beside "stream: rank 1: --beside: unknown value 'maybe'" "$IC" "$IC --beside maybe"
two ic_alone "stream: rank 1: 2 ranks: under mpirun stream measures only --interconnect" \
    "$IC" "stream/stream --backend opencl --sizes 4K"

finish
