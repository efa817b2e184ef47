#!/bin/sh
# Kernels the suite did not write (issue 56): every corpus kernel of
# tests/validation/ verifies against the host reference and yields a row
# on the CPU (OpenMP, and PoCL where present, at the --quick lattices);
# a planted fault (one population streamed the wrong way, made by sed in a
# temporary folder) fails verification with exit 1 and no number written;
# every corpus source compiles through NVRTC for sm_90 (skipped where
# NVRTC is absent); run.sh's and membench --source's refusals.
# Each test in its own folder.  Last line: "validation: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
corpus=$(ls tests/validation/*.kernel)
count=$(echo "$corpus" | wc -l)
[ "$count" -ge 12 ] && ok || bad "the corpus has $count kernels, fewer than 12"
newdir() { mktemp -d "$tmp/t.XXXXXX"; }

# usage ARGS... WHAT: membench exits 2 with one line on stderr that says WHAT
usage() {
    what=$1; shift
    d=$(newdir)
    membench/membench "$@" >"$d/out" 2>"$d/err"; rc=$?
    if [ $rc = 2 ] && [ "$(grep -c . "$d/err")" -eq 1 ] && grep -q -- "$what" "$d/err"; then ok
    else bad "membench $*: exit $rc, wanted 2 and '$what': $(cat "$d/err")"; fi
}
k=tests/validation/d3q19-pull-linear
usage "go with --kernel" --source $k.cl --size 10x10x10
usage "go with --source" --kernel $k.kernel --nvrtc-check sm_90
d=$(newdir); mkfifo "$d/fifo"
usage "not a regular file" --kernel $k.kernel --source "$d/fifo" --size 10x10x10
usage "is not one of" --kernel $k.kernel --source "$d/a b.cl" --size 10x10x10
usage "gives no velocities" --kernel tests/kernels/d3q15-rows-idle.kernel --source $k.cl --size 10x10x10
d=$(newdir); sed 's/^read_shift = -c/read_shift = -cx/; s/^misaligned.*//' $k.kernel >"$d/split.kernel"
usage "the schemes the reference runs" --kernel "$d/split.kernel" --source $k.cl --size 10x10x10
d=$(newdir); sed 's/memory order: 0,0,0  1,0,0/memory order: 0,0,0  1,0,0 1,0,0/' $k.cl >"$d/x.cl"
usage "a repeat of one" --kernel $k.kernel --source "$d/x.cl" --size 10x10x10 --backend openmp
d=$(newdir)
sh tests/validation/run.sh --bogus >"$d/out" 2>&1; [ $? = 2 ] && ok || bad "run.sh --bogus did not exit 2"
sh tests/validation/run.sh --backend openmp --quick --out data/x $k.kernel >"$d/out" 2>&1
[ $? = 2 ] && grep -q "never go to data/" "$d/out" && [ ! -e data/x ] && ok || bad "run.sh --out data/x: $(cat "$d/out")"

# run BACKEND [DATA]: the quick corpus on BACKEND, each kernel verified
# (twice: two lattices) and one row per lattice, a number in each
run_corpus() {
    d=$(newdir)
    sh tests/validation/run.sh --backend "$1" --quick ${2:+--data "$2"} --out "$d/out" >"$d/log" 2>&1; rc=$?
    [ $rc = 0 ] && ok || bad "run.sh --backend $1 --quick: exit $rc: $(cat "$d/log")"
    v=$(grep -c '^  verified' "$d/log")
    [ "$v" = $((2 * count)) ] && ok || bad "$1: $v verifications, wanted $((2 * count))"
    rows=$(awk -F, 'NR > 1 && $12 > 0' "$d/out/validation.csv" 2>/dev/null | wc -l)
    want=0
    for f in $corpus; do want=$((want + $(sed -n 's/^# validate-quick: //p' "$f" | tr ',' '\n' | wc -l))); done
    [ "$rows" = "$want" ] && ok || bad "$1: $rows rows with a measured MLUPS, wanted $want: $(cat "$d/log")"
    [ -f "$d/out/membench-kernel.csv" ] && [ "$(tail -n +2 "$d/out/membench-kernel.csv" | wc -l)" = "$want" ] && ok ||
        bad "$1: membench-kernel.csv missing or short"
    if [ -n "${2:-}" ]; then # predicted from DATA: a number in every row
        np=$(awk -F, 'NR > 1 && $13 != "n/a" && $13 > 0' "$d/out/validation.csv" | wc -l)
        [ "$np" = "$want" ] && ok || bad "$1: $np of $want rows predicted: $(cat "$d/log")"
        if model/model predict --help 2>&1 | grep -q -- --before-kernel; then # both predictions
            nb=$(awk -F, 'NR == 1 && $15 != "mlups_predicted_before_kernel" { exit } NR > 1 && $15 != "n/a" && $15 > 0' \
                "$d/out/validation.csv" | wc -l)
            [ "$nb" = "$want" ] && ok || bad "$1: $nb of $want rows predicted before the kernel: $(cat "$d/log")"
        fi
        model/model check-kernels --data "$2" --backend "$1" --measured "$d/out/membench-kernel.csv" >"$d/check" 2>&1
        [ $? -le 1 ] && grep -q "of $want points within the bar" "$d/check" && ok ||
            bad "check-kernels on the corpus rows: $(cat "$d/check")"
    fi
    # without --force a second run over the same folder is refused
    sh tests/validation/run.sh --backend "$1" --quick --out "$d/out" $k.kernel >"$d/again" 2>&1
    [ $? = 2 ] && grep -q "give --force" "$d/again" && ok || bad "$1: a second run without --force: $(cat "$d/again")"
}
run_corpus openmp

# --measured: a GPU run of the corpus (frozen) predicted again, as a
# changed model or another data folder would judge it; one row per
# measured row, each with both predictions.  Its refusals exit 2.
fx=tests/fixtures/validation-nvidia-h100-80gb-hbm3
d=$(newdir)
sh tests/validation/run.sh --measured $fx/membench-kernel.csv --data tests/fixtures/nvidia-h100-80gb-hbm3 \
    --out "$d/out" >"$d/log" 2>&1; rc=$?
want=$(tail -n +2 $fx/membench-kernel.csv | wc -l)
got=$(awk -F, 'NR > 1 && $13 > 0 && $15 > 0' "$d/out/validation.csv" 2>/dev/null | wc -l)
[ $rc = 0 ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ] && ok || bad "run.sh --measured: exit $rc, $got of $want rows predicted: $(cat "$d/log")"
for args in "--measured $d/none.csv --data $fx" "--measured $fx/membench-kernel.csv" \
    "--measured $fx/membench-kernel-meta.csv --data $fx"; do
    # shellcheck disable=SC2086
    sh tests/validation/run.sh $args --out "$d/bad" >"$d/err" 2>&1; rc=$?
    [ $rc = 2 ] && [ "$(grep -c . "$d/err")" = 1 ] && ok || bad "run.sh $args: exit $rc, wanted 2 and one line: $(cat "$d/err")"
done
# (make test: the corpus through OpenMP; make test-full: through PoCL too)
if [ "${LBP_TEST_FULL:-0}" = 0 ]; then
    echo "validation: the corpus through PoCL is make test-full's"
elif stream/stream --backend opencl --describe >/dev/null 2>&1; then
    # predicted from a frozen CPU fixture relabelled as this host's PoCL
    # device: the pipeline is checked, not the model's accuracy here
    cpu=$(newdir)
    cpu_fixture_as_this_pocl "$cpu"
    run_corpus opencl "$cpu"
else
    echo "validation: no OpenCL device (PoCL): the corpus on OpenMP only"
fi

# plant ORIGINAL SED: a copy of ORIGINAL (.cl and .kernel) with the sed
# applied to the source, in its own folder; it must change exactly one line
plant() {
    d=$(newdir)
    cp "$1.kernel" "$d/" && sed "$2" "$1.cl" >"$d/${1##*/}.cl"
    [ "$(diff "$1.cl" "$d/${1##*/}.cl" | grep -c '^>')" = 1 ] || bad "the sed '$2' did not change one line of $1.cl"
    echo "$d/${1##*/}"
}
# fault NAME BACKEND: membench exits 1, says it does not verify, writes no row
fault() {
    membench/membench --backend "$2" --kernel "$1.kernel" --source "$1.cl" --size 40x10x1 --out "${1%/*}/out" \
        >"${1%/*}/log" 2>&1; rc=$?
    [ $rc = 1 ] && grep -q "does not verify" "${1%/*}/log" && ok || bad "planted fault in $1 on $2: exit $rc: $(cat "${1%/*}/log")"
    [ ! -e "${1%/*}/out/membench-kernel.csv" ] && ! grep -q "MLUPS" "${1%/*}/log" && ok ||
        bad "planted fault in $1 on $2: a number was written"
}
# population 1 (E) pulled from the east instead of the west
p=$(plant tests/validation/d2q9-pull-grid 's/fA\[1 \* N + IDX(xw, y)\]/fA[1 * N + IDX(xe, y)]/')
fault "$p" openmp
# population 1 pulled from x + c_1 (one direction swapped in a table kernel)
p=$(plant $k 's/i32 xs = x - ex\[i\]/i32 xs = x - (i == 1 ? -ex[i] : ex[i])/')
fault "${p%/*}/d3q19-pull-linear" openmp
d=${p%/*}
sh tests/validation/run.sh --backend openmp --quick --out "$d/run" "$p.kernel" >"$d/runlog" 2>&1; rc=$?
[ $rc = 1 ] && [ ! -e "$d/run/validation.csv" ] && ok || bad "run.sh over a planted fault: exit $rc, or validation.csv written"
# FP16S push: corner population 20 sent to x + c_19 (the wrong corner)
p=$(plant tests/validation/d3q27-push-linear-fp16s 's/const u32 xn = (x + (u32)nx + (u32)(int)c27\[i\]) % (u32)nx;/const u32 xn = (x + (u32)nx + (u32)(int)c27[i == 20 ? 19 : i]) % (u32)nx;/')
if stream/stream --backend opencl --describe >/dev/null 2>&1; then fault "$p" opencl; else fault "$p" openmp; fi

# NVRTC for sm_90: every corpus source with its file's defines
d=$(newdir)
membench/membench --kernel $k.kernel --source $k.cl --nvrtc-check sm_90 >"$d/out" 2>&1; rc=$?
if [ $rc = 2 ] && grep -qi "nvrtc" "$d/out"; then
    echo "validation: NVRTC not found, the sm_90 compile checks are skipped: $(cat "$d/out")"
else
    for f in $corpus; do
        membench/membench --kernel "$f" --source "${f%.kernel}.cl" --nvrtc-check sm_90 >"$d/out" 2>&1 && ok ||
            bad "NVRTC sm_90: ${f%.kernel}.cl: $(cat "$d/out")"
    done
    printf 'KERNEL void lbm_step(GLOBAL const float *a) { a = ; }\n' >"$d/broken.cl"
    membench/membench --kernel $k.kernel --source "$d/broken.cl" --nvrtc-check sm_90 >"$d/out" 2>&1
    [ $? = 1 ] && ok || bad "a source that does not compile passed --nvrtc-check"
fi
echo "validation: $passed passed, $failed failed"
[ "$failed" = 0 ]
