#!/bin/sh
# Every command's exit status as the README states it: 0 success, 1 a failed
# measurement or validation (no number written), 2 bad usage or input (a bad
# flag, a missing or malformed input, a result that exists without --force).
# Per command: success, a bad flag, a missing input, and where it is cheap a
# failed validation.  On the frozen fixtures (tests/fixtures/), PoCL and
# OpenMP with tiny sizes: a few seconds.
# Last line: "exit-codes: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
fx=tests/fixtures/nvidia-h100-80gb-hbm3
gone=$tmp/missing
# expect CODE LABEL CMD...: CMD exits CODE; a refusal (2) says why on stderr
expect() {
    want=$1 label=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    if [ "$rc" = "$want" ] && { [ "$want" != 2 ] || [ -s "$tmp/err" ]; }; then ok
    else bad "$label: exit $rc (want $want): $(head -c 300 "$tmp/err")"; fi
}

# ---- stream, membench, lbmkernels ----------------------------------------
for t in stream membench lbmkernels; do
    expect 0 "$t --version" $t/$t --version
    expect 2 "$t --bogus" $t/$t --bogus
    expect 2 "$t --backend nope" $t/$t --backend nope
done
expect 0 "stream, a tiny run" stream/stream --backend opencl --sweeps size --sizes 4096 --reps 3 --out "$tmp/s"
# a result that exists is kept: the command must change (--force, --out)
expect 2 "stream over its own result" stream/stream --backend opencl --sweeps size --sizes 4096 --reps 3 --out "$tmp/s"
expect 0 "stream --force" stream/stream --backend opencl --sweeps size --sizes 4096 --reps 3 --out "$tmp/s" --force
expect 2 "membench --geometry-from a missing lbm.csv" membench/membench --backend openmp --geometry-from "$gone/lbm.csv" --out "$tmp/m"
expect 2 "membench --kernel a missing file" membench/membench --backend openmp --kernel "$gone.kernel" --size 8x8x8 --out "$tmp/m"
verify="--backend openmp --verify --schemes aa --precisions fp32 --boundary cavity --sizes 9x7x6"
expect 0 "lbmkernels --verify" lbmkernels/lbmkernels $verify --out "$tmp/l"
expect 1 "lbmkernels --verify of a planted error" lbmkernels/lbmkernels $verify --plant-error --out "$tmp/l2"

# ---- model ------------------------------------------------------------------
d=$tmp/h; cp -r "$fx" "$d"; rm -f "$d/model.csv" "$d/model-meta.csv" "$d/drift.csv"
expect 0 "model --version" model/model --version
expect 2 "model, no command" model/model
expect 2 "model bogus" model/model bogus
for c in predict validate summary drift check-kernels corrections; do
    expect 2 "model $c --bogus" model/model $c --bogus
done
p="--backend cuda --scheme pull --precision fp32 --size 256"
expect 0 "model predict" model/model predict --data "$fx" $p
expect 2 "model predict, no folder" model/model predict --data "$gone" $p
expect 2 "model predict --kernel, a missing file" model/model predict --data "$fx" --kernel "$gone.kernel" --size 256
# ranks: the interconnect fit is input like any other
expect 2 "model predict --ranks, no interconnect-fit.csv" model/model predict --data "$fx" $p --ranks 2
expect 0 "model predict --ranks" model/model predict --data tests/fixtures/nvidia-h100-80gb-hbm3-x4 $p --ranks 2

wide="--backend cuda --max-error 1000 --max-error-small 1000"
expect 0 "model validate within a wide bar" model/model validate --data "$d" $wide
expect 2 "model validate over its own model.csv" model/model validate --data "$d" $wide
expect 1 "model validate over a narrow bar" model/model validate --data "$d" --backend cuda --force --max-error 0.001 --max-error-small 0.001
expect 2 "model validate, no folder" model/model validate --data "$gone"
expect 0 "model summary" model/model summary --data "$d"
expect 2 "model summary, no folder" model/model summary --data "$gone"
expect 0 "model drift" model/model drift --data "$d"
expect 2 "model drift over its own drift.csv" model/model drift --data "$d"
expect 1 "model drift over a narrow bar" model/model drift --data "$d" --force --max-change 0.0001
expect 2 "model drift, no folder" model/model drift --data "$gone"
expect 0 "model corrections --list" model/model corrections --list
expect 0 "model corrections" model/model corrections "$d"
expect 2 "model corrections, no folder" model/model corrections "$gone"
m=tests/kernels/measured/nvidia-h100-80gb-hbm3.csv
expect 0 "model check-kernels" model/model check-kernels --data "$fx" --backend cuda --measured "$m"
expect 1 "model check-kernels over a narrow bar" model/model check-kernels --data "$fx" --backend cuda --measured "$m" --max-error 0.001
expect 2 "model check-kernels, a missing --measured" model/model check-kernels --data "$fx" --backend cuda --measured "$gone.csv"
expect 2 "model check-kernels, no --measured" model/model check-kernels --data "$fx" --backend cuda

# ---- make diff (core/diff.sh) -------------------------------------------------
f=tests/diff-data/first s2=tests/diff-data/second
expect 0 "diff, a run against itself" sh core/diff.sh "$f" "$f"
expect 1 "diff, two runs that differ" sh core/diff.sh "$f" "$s2"
expect 2 "diff --bogus" sh core/diff.sh --bogus "$f" "$s2"
expect 2 "diff, a missing run" sh core/diff.sh "$f" "$gone"

# ---- tests/kernels/check.sh (make check-kernels) ------------------------------
expect 0 "check.sh --help" sh tests/kernels/check.sh --help
expect 2 "check.sh --bogus" sh tests/kernels/check.sh --bogus
# a folder without the device's probes is refused before any kernel is
# timed (minutes), not after
mkdir -p "$tmp/empty"
expect 2 "check.sh --data without probes" timeout 20 sh tests/kernels/check.sh --data "$tmp/empty"

# ---- tests/validation/run.sh (make validate-kernels) ------------------------
expect 2 "validation/run.sh --bogus" sh tests/validation/run.sh --bogus
mkdir -p "$tmp/v" && : >"$tmp/v/validation.csv"
expect 2 "validation/run.sh over its own result" timeout 20 sh tests/validation/run.sh --backend openmp --quick --out "$tmp/v"

# ---- make bench (core/bench.sh, on the stub tools) ---------------------------
. tests/bench_stub.sh
b=$(mktemp -d "$tmp/b.XXXXXX") && bench_stub_tree "$b"
expect 2 "bench, DEVICE without BACKEND" sh -c "cd '$b' && DEVICE=0 sh core/bench.sh"
expect 2 "bench, RUN=latest" sh -c "cd '$b' && RUN=latest sh core/bench.sh"
expect 0 "bench on the stub tools" sh -c "cd '$b' && RUN=ok sh core/bench.sh"

echo "exit-codes: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
