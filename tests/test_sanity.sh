#!/bin/sh
# Inputs outside physics and sloppy edges (issue 55, items 5 and 7), each
# on frozen fixtures (tests/model-data, tests/diff-data), synthetic files
# or stub tools, each in a folder of its own:
#   model: a bandwidth above the device's theoretical is refused (exit 2,
#     one line naming file, line and value); a prediction above its working
#     set's roofline says so (flags, text and JSON); summary refuses MLUPS
#     that are not finite or not above 0, or absurdly large;
#   diff: runs of different devices or core counts refused unless
#     ALLOW_OTHER_DEVICE=1; the bound capped at 50 %; NaN rows and a file
#     without lbm.csv's header refused;
#   OMP_NUM_THREADS read strictly; empty list items refused; a kernel
#     file's blocks_per_sm named as such, not as a flag never given;
#   bench: RUN=<name>.partial refused, a latest that is a folder fails the
#     run with no .latest.<pid> left.
# Last line: "sanity: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

# refused WHAT PATTERN CMD...: CMD exits 2 with one line matching PATTERN
refused() {
    what=$1 pattern=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc = 2 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q -- "$pattern" "$tmp/err"; then ok
    else bad "$what: exit $rc, said: $(head -c 400 "$tmp/err")"; fi
}
# folder: a new folder of its own under $tmp
folder() { mktemp -d "$tmp/XXXXXX"; }

# ---- model: a bandwidth no bus carries ----------------------------------
# tests/model-data/gpu with a theoretical bandwidth above its copies (1,000
# GB/s past the L2; the driver's memcpy 1,200): read as before
d=$(folder); cp tests/model-data/gpu/* "$d/"; echo "theoretical_gbs,1300.0" >>"$d/stream-meta.csv"
model/model predict --data "$d" --backend cuda --scheme push --precision fp32 --size 64 >"$tmp/out" 2>"$tmp/err" &&
    ok || bad "a folder under its theoretical bandwidth: $(cat "$tmp/err")"
# x100: the copies' bandwidths a hundred times (their times a hundredth)
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
    { $c["gbs_median"] *= 100; $c["gbs_max"] *= 100; $c["ms_min"] /= 100; $c["ms_median"] /= 100; $c["ms_max"] /= 100; print }' \
    tests/model-data/gpu/stream.csv >"$d/stream.csv"
refused "x100 bandwidths (predict)" "$d/stream.csv:5: gbs_median 66666.7 GB/s is above the device's theoretical 1300.0 GB/s" \
    model/model predict --data "$d" --backend cuda --scheme push --precision fp32 --size 64
refused "x100 bandwidths (validate)" "stream.csv:5: .*above the device's theoretical" model/model validate --data "$d" --backend cuda
# only the time scaled: bytes over ms says the same
cp tests/model-data/gpu/stream.csv "$d/stream.csv"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } { $c["ms_median"] /= 100; print }' \
    tests/model-data/gpu/stream.csv >"$d/stream.csv"
refused "x100 by the time alone" "stream.csv:5: bytes_moved / ms_median .* GB/s is above the device's theoretical" \
    model/model predict --data "$d" --backend cuda --scheme push --precision fp32 --size 64

# ---- model: a prediction above its roofline is flagged ------------------
d=$(folder)
model/model predict --data tests/model-data/gpu --backend cuda --words-read 1000 --size 100000x1x1 >"$d/p" 2>"$d/e"
grep -q "^flags: predicted>roofline (level 3's 2500.0 MLUPS is 20.00 x the roofline of its working set, 125.0 MLUPS" "$d/p" &&
    ok || bad "1000 words at 100000x1x1 not flagged: $(grep -e '^flags' -e '^1 roofline' -e '^3 full' "$d/p")"
model/model predict --data tests/model-data/gpu --backend cuda --words-read 1000 --size 100000x1x1 --json >"$d/j" 2>"$d/e"
grep -q '"flags": *"predicted>roofline"' "$d/j" && ok || bad "--json has no flags predicted>roofline: $(grep -o '"flags[^,]*' "$d/j")"
model/model predict --data tests/model-data/gpu --backend cuda --scheme push --precision fp32 --size 64 >"$d/p" 2>"$d/e"
grep -q "^flags: none$" "$d/p" && ok || bad "push at 64^3 flagged: $(grep '^flags' "$d/p")"

# ---- model summary: MLUPS a run cannot have ------------------------------
d=$(folder); cp tests/model-data/cpu16-rows/* "$d/"
model/model summary --data "$d" >"$tmp/out" 2>"$tmp/err" && ok || bad "summary of the fixture: $(cat "$tmp/err")"
for v in 0 -5 1e30 nan inf; do
    awk -F, -v OFS=, -v v="$v" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 3 { $c["measured_mlups"] = v } { print }' \
        tests/model-data/cpu16-rows/model.csv >"$d/model.csv"
    refused "summary, measured_mlups $v" "$d/model.csv:3: column '\{0,1\}measured_mlups'\{0,1\}: expected a number" \
        model/model summary --data "$d"
done

# ---- make diff: one device, finite numbers, a bounded bound -------------
# meta DIR SLUG KIND UNITS THREADS: an lbm-meta.csv as a run writes it
meta() {
    printf 'key,value\ntool,lbm\ndevice,Test\nslug,%s\nkind,%s\nplatform,OpenMP: %s threads; OMP_PLACES=cores OMP_PROC_BIND=close\ncompute_units,%s\n' \
        "$2" "$3" "$5" "$4" >"$1/lbm-meta.csv"
}
d=$(folder); cp -r tests/diff-data/first "$d/a"; cp -r tests/diff-data/second "$d/b"
meta "$d/a" test-gpu gpu 132 1; meta "$d/b" test-gpu gpu 132 1
# (exit 1: their pull differs, tests/diff-data/README)
sh core/diff.sh "$d/a" "$d/b" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "^diff: runs DIFFER" "$tmp/out" && ok || bad "two runs of one device: exit $rc: $(cat "$tmp/err")"
# another device (its slug in lbm.csv's device column too)
sed 's/^test-gpu,/other-gpu,/' tests/diff-data/second/lbm.csv >"$d/b/lbm.csv"; meta "$d/b" other-gpu gpu 132 1
refused "diff of two devices" "different devices or sizes (device test-gpu vs other-gpu)" sh core/diff.sh "$d/a" "$d/b"
sh core/diff.sh --allow-other-device "$d/a" "$d/b" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && grep -q "^note: A and B differ (device test-gpu vs other-gpu)" "$tmp/out" &&
    ok || bad "--allow-other-device: $(head -n 2 "$tmp/out") $(cat "$tmp/err")"
# (make turns the differing runs' exit 1 into its own 2)
make -s diff A="$d/a" B="$d/b" ALLOW_OTHER_DEVICE=1 >"$tmp/out" 2>"$tmp/err"
grep -q "^note: A and B differ" "$tmp/out" && grep -q "^diff: runs DIFFER" "$tmp/out" &&
    ok || bad "make diff ALLOW_OTHER_DEVICE=1: $(cat "$tmp/err")"
# (make adds a line of its own)
make -s diff A="$d/a" B="$d/b" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "^diff: .*different devices" "$tmp/err" && ok || bad "make diff of two devices: exit $rc, $(cat "$tmp/err")"
# one CPU of 16 cores and threads beside one of 2
d=$(folder); cp -r tests/diff-data/first "$d/a"; cp -r tests/diff-data/first "$d/b"
meta "$d/a" xeon cpu 16 16; meta "$d/b" xeon cpu 2 2
refused "diff of 16 cores and 2" "compute_units 16 vs 2, threads 16 vs 2" sh core/diff.sh "$d/a" "$d/b"
meta "$d/b" xeon cpu 16 2
refused "diff of 16 threads and 2" "threads 16 vs 2" sh core/diff.sh "$d/a" "$d/b"
meta "$d/b" xeon gpu 16 16
refused "diff of a cpu and a gpu" "kind cpu vs gpu" sh core/diff.sh "$d/a" "$d/b"
# the bound at most 50 %: repetitions that span 150 % of the median, and
# B at 0.047 x A, do not agree
d=$(folder); cp -r tests/diff-data/first "$d/a"; cp -r tests/diff-data/first "$d/b"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
    { $c["ms_min"] = 5; $c["ms_max"] = 20; $c["mlups_median"] = 47; print }' tests/diff-data/first/lbm.csv >"$d/b/lbm.csv"
sh core/diff.sh "$d/a" "$d/b" >"$tmp/out" 2>"$tmp/err"
awk '$5 == "64x64x64" && $1 == "cuda" && $2 == "push" { print $8, $9, $10 }' "$tmp/out" >"$tmp/row"
[ "$(cat "$tmp/row")" = "0.047 50.00 NO" ] && ok || bad "a wide spread's bound: '$(cat "$tmp/row")', want 0.047 50.00 NO"
grep -q "lattices with bounds capped at 50 %" "$tmp/out" && ok || bad "capped bounds not said: $(tail -n 4 "$tmp/out")"
# NaN and infinite values, MLUPS of 0
for v in nan inf -inf 0; do
    awk -F, -v OFS=, -v v="$v" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 3 { $c["mlups_median"] = v; $c["mlups_max"] = v } { print }' \
        tests/diff-data/first/lbm.csv >"$d/b/lbm.csv"
    refused "diff with mlups_median $v" "$d/b/lbm.csv:3: mlups_median" sh core/diff.sh "$d/a" "$d/b"
done
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { $c["ms_max"] = "nan" } { print }' \
    tests/diff-data/first/lbm.csv >"$d/b/lbm.csv"
refused "diff with ms_max nan" "lbm.csv:2: ms_max 'nan' is not a finite number" sh core/diff.sh "$d/a" "$d/b"
cp tests/diff-data/first/lbm.csv "$d/b/"; sed 's/,-1.000$/,nan/' tests/diff-data/first/drift.csv >"$d/b/drift.csv"
refused "diff with a nan drift" "drift.csv:2: change_pct 'nan' is not a finite number" sh core/diff.sh "$d/a" "$d/b"
# a stream.csv renamed lbm.csv
cp tests/diff-data/first/drift.csv "$d/b/"; cp tests/model-data/gpu/stream.csv "$d/b/lbm.csv"
refused "diff of a stream.csv as lbm.csv" "its header is not lbm.csv's (no column scheme" sh core/diff.sh "$d/a" "$d/b"

# ---- OMP_NUM_THREADS ------------------------------------------------------
for v in 100000 1e9 0 -2 4,2 four; do
    refused "OMP_NUM_THREADS=$v" "OMP_NUM_THREADS: '$v' is not a whole number of threads" \
        env OMP_NUM_THREADS="$v" stream/stream --backend openmp --describe
done
OMP_NUM_THREADS=2 stream/stream --backend openmp --describe >"$tmp/out" 2>"$tmp/err" &&
    grep -q "^platform,OpenMP: 2 threads" "$tmp/out" && ok || bad "OMP_NUM_THREADS=2: $(cat "$tmp/err")"

# ---- empty list items ------------------------------------------------------
refused "lbmkernels --sizes 1,,2" "--sizes: empty item in '1,,2'" lbmkernels/lbmkernels --backend openmp --sizes 1,,2 --describe
refused "lbmkernels --sizes 16," "--sizes: empty item in '16,'" lbmkernels/lbmkernels --backend openmp --sizes 16, --describe
refused "lbmkernels --schemes ,push" "--schemes: empty item" lbmkernels/lbmkernels --backend openmp --schemes ,push --describe
refused "stream --sizes 4K,,8K" "--sizes: empty item" stream/stream --backend openmp --sizes 4K,,8K --describe
refused "membench --sweeps words," "--sweeps: empty item" membench/membench --backend openmp --sweeps words, --describe

# ---- a kernel file's blocks per SM, named where they came from -----------
d=$(folder)
printf 'name = crowded\nwords_read = 19\nblock_size = 256\nblocks_per_sm = 64\n' >"$d/k.kernel"
refused "a kernel file's blocks_per_sm" "^model: $d/k.kernel:4: blocks_per_sm: 64 blocks of 256 threads: more than the 2048" \
    model/model predict --data tests/model-data/gpu --backend cuda --kernel "$d/k.kernel" --size 64
grep -q -- "--blocks-per-sm" "$tmp/err" && bad "a flag never given named: $(cat "$tmp/err")" || ok
refused "--blocks-per-sm given" "^model: --blocks-per-sm: 32 blocks of 256 threads" \
    model/model predict --data tests/model-data/gpu --backend cuda --kernel "$d/k.kernel" --size 64 --blocks-per-sm 32

# registers where the device gives no blocks for them: the file's line
printf 'name = regs\nwords_read = 19\nblock_size = 256\nregisters = 32\n' >"$d/r.kernel"
refused "a kernel file's registers" "^model: $d/r.kernel:4: registers: 32 per thread: the device's compute capability" \
    model/model predict --data tests/model-data/gpu --backend cuda --kernel "$d/r.kernel" --size 64

# ---- bench: the run's folder names -----------------------------------------
. tests/bench_stub.sh
d=$(folder); bench_stub_tree "$d"
(cd "$d" && RUN=x.partial sh core/bench.sh) >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && ok || bad "RUN=x.partial: exit $rc, wanted 2 (a usage error)"
grep -q "RUN='x.partial': a name ending in .partial" "$tmp/err" && ok || bad "RUN=x.partial: $(cat "$tmp/err")"
[ -e "$d/results/stub-dev/x.partial.partial" ] && bad "RUN=x.partial made x.partial.partial" || ok
# latest a folder before the run: said, exit 1, nothing measured
d=$(folder); bench_stub_tree "$d"; mkdir -p "$d/results/stub-dev/latest"; echo mine >"$d/results/stub-dev/latest/notes"
(cd "$d" && sh core/bench.sh) >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "results/stub-dev/latest is a folder, not the link to the newest run" "$tmp/err" && ok ||
    bad "latest a folder: exit $rc, $(cat "$tmp/err")"
[ "$(ls -A "$d/results/stub-dev")" = latest ] && [ "$(cat "$d/results/stub-dev/latest/notes")" = mine ] && ok ||
    bad "latest a folder: left $(ls -A "$d/results/stub-dev")"
# latest made a folder while the run went on: the run ends, says so, exits 1
d=$(folder); bench_stub_tree "$d"
(cd "$d" && STUB_SLEEP=1 sh core/bench.sh) >"$tmp/out" 2>"$tmp/err" & run=$!
i=0; until [ -d "$d/results/stub-dev" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
mkdir -p "$d/results/stub-dev/latest/x"
wait $run; rc=$?
[ $rc = 1 ] && grep -q "could not point results/stub-dev/latest at .*: it is a folder, not a link" "$tmp/err" && ok ||
    bad "latest made a folder during the run: exit $rc, $(cat "$tmp/err")"
ls -A "$d/results/stub-dev" | grep -q '^\.latest' && bad "a .latest.<pid> left: $(ls -A "$d/results/stub-dev")" || ok

echo "sanity: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
