#!/bin/sh
# The plots render from committed data: every expected figure exists as a
# valid PNG and PDF, the report is written, and a missing optional file only
# skips its figure.  Last line: "plots: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_pdf() { head -c 5 "$1" | grep -q '%PDF-' && tail -c 64 "$1" | grep -q '%%EOF'; }
check() { # DIR FIGURE...
    d=$1; shift
    for f in "$@"; do
        if [ -f "$d/$f.png" ] && is_png "$d/$f.png"; then ok; else bad "$d/$f.png missing or not a PNG"; fi
        if [ -f "$d/$f.pdf" ] && is_pdf "$d/$f.pdf"; then ok; else bad "$d/$f.pdf missing or not a PDF"; fi
    done
}
if ! command -v gnuplot >/dev/null 2>&1; then echo "plots: gnuplot missing (make deps installs it)"; echo "plots: 0 passed, 1 failed"; exit 1; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. the small CPU data set: every figure OpenCL on a CPU can have
sh plots/render.sh tests/plots-data/cpu-quick "$tmp/cpu" >"$tmp/log" 2>&1 || bad "render.sh failed: $(cat "$tmp/log")"
check "$tmp/cpu" stream-size stream-blocks stream-block-size stream-word transfer probe-words probe-misaligned \
    probe-occupancy probe-threads launch lbm-opencl-fp32 lbm-opencl-fp64
if [ -f "$tmp/cpu/warp-launch.png" ]; then bad "warp figure drawn without warps.csv"; else ok; fi
if grep -q "no warps.csv" "$tmp/log"; then ok; else bad "no note for the missing warps.csv"; fi
if is_pdf "$tmp/cpu/report.pdf"; then ok; else bad "report.pdf missing or not a PDF"; fi
if grep -q "stream-size.png" "$tmp/cpu/report.md" && grep -q "measured" "$tmp/cpu/report.md"; then ok; else bad "report.md lacks figures or the summary"; fi

# 1b. a data folder with only some files: the missing ones skip their
# figures with a note, the rest are drawn, the report is still written
mkdir -p "$tmp/partial-data"
cp tests/plots-data/cpu-quick/stream.csv tests/plots-data/cpu-quick/stream-meta.csv tests/plots-data/cpu-quick/lbm.csv "$tmp/partial-data/"
sh plots/render.sh "$tmp/partial-data" "$tmp/partial" >"$tmp/log" 2>&1 || bad "render.sh failed on a partial folder: $(cat "$tmp/log")"
check "$tmp/partial" stream-size lbm-opencl-fp32
for f in transfer probe-words launch; do
    if [ -f "$tmp/partial/$f.png" ]; then bad "$f drawn without its CSV"; else ok; fi
done
if grep -q "no transfer.csv" "$tmp/log" && grep -q "no membench.csv" "$tmp/log" && grep -q "no launch.csv" "$tmp/log"; then ok; else bad "no note for a missing transfer.csv, membench.csv or launch.csv"; fi
if grep -q "best copy bandwidth" "$tmp/partial/report.md"; then ok; else bad "report.md lacks the key figures"; fi

# 1c. the checks themselves can fail: a truncated PNG and a PDF without its
# end are caught
head -c 100 "$tmp/cpu/stream-size.png" | tail -c 50 >"$tmp/broken.png"; head -c 200 "$tmp/cpu/stream-size.pdf" >"$tmp/broken.pdf"
if is_png "$tmp/broken.png"; then bad "a broken PNG passed the check"; else ok; fi
if is_pdf "$tmp/broken.pdf"; then bad "a truncated PDF passed the check"; else ok; fi

# 1e. fp16s beside fp32 (the CPU's fp32 rows again as fp16s: 76 B per
# update): model validate predicts them, their figure is drawn and the
# report's summary carries them
mkdir -p "$tmp/half-data"
cp tests/plots-data/cpu-quick/*.csv "$tmp/half-data/"
awk -F, -v OFS=, 'NR > 1 && $4 == "fp32" { $4 = "fp16s"; $24 = 76; print }' tests/plots-data/cpu-quick/lbm.csv >>"$tmp/half-data/lbm.csv"
if model/model validate --data "$tmp/half-data" --force >"$tmp/log" 2>&1 || [ $? -eq 1 ]; then ok; else bad "model validate failed on fp16s rows: $(cat "$tmp/log")"; fi
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "precision") c = i } NR > 1 && $c == "fp16s" { n++ } END { exit !(n > 0) }' "$tmp/half-data/model.csv"; then ok; else bad "model.csv has no fp16s rows"; fi
sh plots/render.sh "$tmp/half-data" "$tmp/half" >"$tmp/log" 2>&1 || bad "render.sh failed with fp16s rows: $(cat "$tmp/log")"
check "$tmp/half" lbm-opencl-fp32 lbm-opencl-fp16s
if grep -q "fp16s" "$tmp/half/report.md"; then ok; else bad "report.md's summary lacks fp16s"; fi
# the model's two errors, at the kernel's launch and before it, per backend and precision
if grep -q "^model error, |error| % mean / worst: at the kernel's launch" "$tmp/half/report.md" &&
    grep -Eq '^opencl  fp16s <128\^3 +[0-9]+ +[0-9.]+ / +[0-9.]+ +[0-9.]+ / +[0-9.]+$' "$tmp/half/report.md"; then ok; else bad "report.md lacks the two errors"; fi

# 1d. a run on several ranks (tests/model-data/ranks beside the gpu
# folder's probes): the scaling figures, weak and strong, and the
# interconnect; without model.csv from lbm.csv alone, with a note
mkdir -p "$tmp/ranks-data"
cp tests/model-data/gpu/*.csv "$tmp/ranks-data/" && cp tests/model-data/ranks/*.csv "$tmp/ranks-data/"
printf 'key,value\nranks,4\ndevices,4\noversubscribed,no\nweak_size,256\npaths_run,host;peer\n' >"$tmp/ranks-data/ranks-meta.csv"
sh plots/render.sh "$tmp/ranks-data" "$tmp/ranks" >"$tmp/log" 2>&1 || bad "render.sh failed on a multi-rank folder: $(cat "$tmp/log")"
check "$tmp/ranks" ranks-weak-cuda-fp32 ranks-strong-cuda-fp32 interconnect lbm-cuda-fp32
if grep -q "model.csv has no multi-rank rows" "$tmp/log"; then ok; else bad "no note that the scaling figures lack the prediction"; fi
if grep -q "interconnect peer, a message each way at once (4 pairs): 3 us + 2 s / 160-200 GB/s (s the message)" "$tmp/ranks/report.md" && grep -q "multi-device stage: 4 ranks on 4 device(s)" "$tmp/ranks/report.md"; then ok; else bad "report.md lacks the interconnect fits or the stage's line"; fi
if grep -q "ranks-weak-cuda-fp32.png" "$tmp/ranks/report.md"; then ok; else bad "report.md lacks the scaling figure"; fi
# with model validate's model.csv: the predictions drawn, the summary's block in the report
if model/model validate --data "$tmp/ranks-data" --force >/dev/null 2>&1; then ok; else bad "model validate failed on the multi-rank folder"; fi
sh plots/render.sh "$tmp/ranks-data" "$tmp/ranks2" >"$tmp/log" 2>&1 || bad "render.sh failed with model.csv: $(cat "$tmp/log")"
check "$tmp/ranks2" ranks-weak-cuda-fp32 ranks-strong-cuda-fp32
if grep -q "model.csv has no multi-rank rows" "$tmp/log"; then bad "model.csv's multi-rank rows not read"; else ok; fi
if grep -q "target: model within 5 %" "$tmp/ranks2/report.md"; then ok; else bad "report.md lacks the multi-device block"; fi
if [ -f "$tmp/partial/ranks-weak-cuda-fp32.png" ] || [ -f "$tmp/partial/interconnect.png" ]; then bad "scaling figures drawn for one device's folder"; else ok; fi

# 2. a GPU reference run, when committed: warp stamps and both backends
for g in tests/fixtures/nvidia-h*; do
    [ -f "$g/warps.csv" ] || continue
    sh plots/render.sh "$g" "$tmp/gpu" >"$tmp/log" 2>&1 || bad "render.sh $g failed: $(cat "$tmp/log")"
    check "$tmp/gpu" stream-size probe-misaligned warp-launch lbm-cuda-fp32 launch transfer
    if [ "$(awk -F, 'NR>1{print $2}' "$g/lbm.csv" | sort -u | wc -l)" -gt 1 ]; then check "$tmp/gpu" lbm-backends; fi
    if [ "$(awk -F, 'NR>1{print $2}' "$g/transfer.csv" | sort -u | wc -l)" -gt 1 ]; then check "$tmp/gpu" transfer-opencl; fi
    if head -n 1 "$g/membench-geometry.csv" 2>/dev/null | grep -q ',swapped'; then check "$tmp/gpu" probe-swap; fi
    if [ -f "$g/drift.csv" ]; then check "$tmp/gpu" drift; fi
    break
done

# 4. the report's lines say what was measured: a sign printed once, no
# ratio of a negative cost, the N = 19 probe's measured time (membench.csv),
# QUICK said where the run was one -- on committed data
. plots/csv.sh
# report_lines_ok REPORT DATA: 0 when every check holds, else names the first bad line
report_lines_ok() {
    if grep -n -- '+-' "$1"; then echo "a '+-' in $1"; return 1; fi
    if grep -nE 'costs -|-[0-9.]+ times' "$1"; then echo "a negative ratio in $1"; return 1; fi
    b=$(sed -n 's/^- N = 19 probe, aligned, 4-byte words (\([a-z]*\)), measured: .*/\1/p' "$1")
    [ -z "$b" ] && return 0
    want=$(csvsel "$2/membench.csv" "backend=$b,sweep=words,words=19,word_bytes=4,misaligned_reads=0,misaligned_writes=0" ns_per_thread | head -n 1)
    grep -q "measured: $want ns per thread" "$1" || { echo "N = 19 line of $1 is not the measured $want ns"; return 1; }
}
# (make test: a QUICK CPU run and one GPU reference; make test-full: every fixture)
reports="tests/plots-data/cpu-quick tests/fixtures/nvidia-h100-80gb-hbm3"
[ "${LBP_TEST_FULL:-0}" != 0 ] && reports="tests/plots-data/cpu-quick tests/fixtures/pthread-skylake-avx512-intel-xeon-processor tests/fixtures/nvidia-h*"
for d in $reports; do
    [ -f "$d/membench.csv" ] || continue
    o=$tmp/report-$(basename "$d")
    sh plots/render.sh "$d" "$o" >"$tmp/log" 2>&1 || bad "render.sh $d failed: $(cat "$tmp/log")"
    if report_lines_ok "$o/report.md" "$d"; then ok; else bad "$o/report.md"; fi
    if grep -q "N = 19 probe, aligned" "$o/report.md"; then ok; else bad "$d: report.md lacks the N = 19 probe's line"; fi
    if grep -qs '^command,.* --quick' "$d"/*-meta*.csv; then
        if grep -q '^\*\*QUICK run: .*do not compare with a full run' "$o/report.md"; then ok; else bad "$d: a QUICK run's report does not say so"; fi
    elif grep -q QUICK "$o/report.md"; then bad "$d: a full run's report says QUICK"; else ok; fi
done
# the checks can fail: each bad line is caught
printf -- '- one more misaligned word (reads, N = 19): +-0.001 ns\n' >"$tmp/bad1.md"
printf -- '- a misaligned write costs -4.483 times a misaligned read\n' >"$tmp/bad2.md"
printf -- '- N = 19 probe, aligned, 4-byte words (opencl), measured: 9.99 ns per thread\n' >"$tmp/bad3.md"
for f in bad1 bad2 bad3; do
    if report_lines_ok "$tmp/$f.md" tests/plots-data/cpu-quick >/dev/null; then bad "$f.md passed the report check"; else ok; fi
done

# 3. make compare of a reference (slug) and a run's folder: the figures of a
# user's comparison under results/ (run from a scratch folder, so nothing is
# left in the repository), one per precision both measured
repo=$(pwd)
mkdir -p "$tmp/cmp" && cp -r tests/fixtures/nvidia-h200 "$tmp/cmp/run"
# the run without its fp16s rows: a precision one side lacks is not drawn
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "precision") p = i } NR == 1 || $p != "fp16s"' \
    tests/fixtures/nvidia-h200/lbm.csv >"$tmp/cmp/run/lbm.csv"
(cd "$tmp/cmp" && mkdir data && ln -s "$repo/tests/fixtures/nvidia-h100-80gb-hbm3" data/ &&
    sh "$repo/plots/compare.sh" nvidia-h100-80gb-hbm3 run) >"$tmp/log" 2>&1 || bad "compare of a slug and a folder failed: $(cat "$tmp/log")"
for f in stream-size lbm-best-fp32 lbm-best-fp64; do
    if [ -s "$tmp/cmp/results/compare-nvidia-h100-80gb-hbm3-vs-run/$f.png" ]; then ok; else bad "compare: no $f.png under results/: $(ls -R "$tmp/cmp/results" 2>&1 | head -5)"; fi
done
[ -e "$tmp/cmp/results/compare-nvidia-h100-80gb-hbm3-vs-run/lbm-best-fp16s.png" ] && bad "compare drew fp16s, which only one side measured" || ok
if sh plots/compare.sh nvidia-h100-80gb-hbm3 /nonexistent >/dev/null 2>&1; then bad "compare accepted a missing folder"; else ok; fi

# 5. the figures a reader can read: each figure's script and plotted points
# (LBP_PLOTS_TABLES) show the key outside the plot area of every lbm-*
# figure and a point drawn for every curve the key names; the kernels with
# non-temporal stores their own curves; a backend's LBM figure on the
# report's page whatever the backend is called
# keys_without_data DIR: "figure: title" of each curve the key names with no
# point inside the plot (curves without a title of their own, labels and
# keyless figures, say "using" in theirs and are left out)
keys_without_data() {
    for t in "$1"/*.tab; do
        awk -v f="$(basename "$t" .tab)" '
            function end() { if (title != "" && title !~ /using / && !drawn) print f ": " title; title = ""; drawn = 0 }
            /^# Curve [0-9]+ of/ { end(); next }
            /^# Curve title: / { title = substr($0, 16); next }
            /^#/ || NF == 0 { next }
            $NF == "i" { drawn = 1 }
            END { end() }' "$t"
    done
}
# key_outside GP: the last "set key" of a figure's script puts it outside
key_outside() { grep -o 'set key [^;]*' "$1" | tail -n 1 | grep -q 'outside'; }
# the CPU run relabelled as OpenMP with pull and split FP32 again with
# non-temporal stores (column stores): model validate predicts them
mkdir -p "$tmp/nt-data"
for f in tests/plots-data/cpu-quick/*.csv; do sed 's/,opencl,/,openmp,/g' "$f" >"$tmp/nt-data/$(basename "$f")"; done
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print $0, "stores"; next } { print $0, "normal" }
    ($c["scheme"] == "pull" || $c["scheme"] == "split") && $c["precision"] == "fp32" { $c["mlups_median"] *= 1.2; nt[++n] = $0 ",nontemporal" }
    END { for (i = 1; i <= n; i++) print nt[i] }' "$tmp/nt-data/lbm.csv" >"$tmp/nt-data/lbm.tmp" && mv "$tmp/nt-data/lbm.tmp" "$tmp/nt-data/lbm.csv"
model/model validate --data "$tmp/nt-data" --force >"$tmp/log" 2>&1 || [ $? -eq 1 ] || bad "model validate failed on non-temporal rows: $(cat "$tmp/log")"
LBP_PLOTS_TABLES="$tmp/nt-tab" sh plots/render.sh "$tmp/nt-data" "$tmp/nt" >"$tmp/log" 2>&1 || bad "render.sh failed on OpenMP rows: $(cat "$tmp/log")"
check "$tmp/nt" lbm-openmp-fp32 lbm-openmp-fp64
for k in push pull split aa pull-nt split-nt; do
    if grep -q "title '$k: " "$tmp/nt-tab/lbm-openmp-fp32.gp" 2>/dev/null; then ok; else bad "lbm-openmp-fp32 has no curve for $k"; fi
done
if grep -q "^plots: .*report.pdf (of .*lbm-openmp-fp32" "$tmp/log"; then ok; else bad "report.pdf leaves out the OpenMP LBM figure: $(tail -n 1 "$tmp/log")"; fi
# each kernel one colour: measured solid, predicted dashed in the same colour
colours=$(grep -o "using 1:2 with linespoints lw 2 dt 1 lc rgb '#[0-9A-F]*'" "$tmp/nt-tab/lbm-openmp-fp32.gp" 2>/dev/null | sort)
if [ "$(echo "$colours" | grep -c .)" -eq 6 ] && [ -z "$(echo "$colours" | uniq -d)" ]; then ok; else bad "lbm-openmp-fp32: not one colour per kernel: $colours"; fi
for c in $(echo "$colours" | grep -o "#[0-9A-F]*"); do
    if grep -q "using 1:3 with lines dt 2 lw 2 lc rgb '$c'" "$tmp/nt-tab/lbm-openmp-fp32.gp"; then ok; else bad "lbm-openmp-fp32: no dashed prediction in $c"; fi
done
for g in "$tmp/nt-tab"/lbm-openmp-*.gp; do
    if key_outside "$g"; then ok; else bad "$(basename "$g" .gp): the key is inside the plot area"; fi
done
# the lattices on the axis as N^3
if grep -q 'set xtics (.*"32³" 32' "$tmp/nt-tab/lbm-openmp-fp32.gp"; then ok; else bad "lbm-openmp-fp32's axis does not name the lattices"; fi
# every key entry of every figure of the CPU, OpenMP and GPU folders has data
LBP_PLOTS_TABLES="$tmp/cpu-tab" sh plots/render.sh tests/plots-data/cpu-quick "$tmp/cpu-t" >/dev/null 2>&1
LBP_PLOTS_TABLES="$tmp/gpu-tab" sh plots/render.sh tests/fixtures/nvidia-h200 "$tmp/gpu-t" >/dev/null 2>&1
for d in "$tmp/cpu-tab" "$tmp/nt-tab" "$tmp/gpu-tab"; do
    if [ "$(ls "$d"/*.tab 2>/dev/null | wc -l)" -ge 8 ]; then ok; else bad "$d: too few figures' tables"; fi
    e=$(keys_without_data "$d")
    if [ -z "$e" ]; then ok; else bad "key entries without data: $e"; fi
done
if key_outside "$tmp/gpu-tab/lbm-cuda-fp32.gp"; then ok; else bad "lbm-cuda-fp32: the key is inside the plot area"; fi
# the check itself catches an entry without data
mkdir -p "$tmp/planted" && printf '# Curve 0 of 1, 1 points\n# Curve title: "never drawn"\n# x y type\n 1  NaN  u\n' >"$tmp/planted/x.tab"
if [ -n "$(keys_without_data "$tmp/planted")" ]; then ok; else bad "an entry without data passed the check"; fi
# the copy figure's title names only the plateaus drawn
for d in "$tmp/cpu-tab" "$tmp/gpu-tab"; do
    g=$d/stream-size.gp
    if grep -q "(L2 and DRAM plateaus)\|(last-level cache and DRAM plateaus)" "$g" && ! grep -q "set label sprintf('[A-Za-z2 -]* plateau %.0f GB/s', [0-9.e+]*) at graph 0.2" "$g"; then
        bad "$(basename "$d"): stream-size's title names a cache plateau it does not draw"; else ok; fi
done
# two backends, one row each kernel and precision: no label on two lines
# (they overlapped), the two MLUPS on the right axis
if grep -q "with boxxyerror" "$tmp/gpu-tab/lbm-backends.gp" && grep -q "y2tic(3)" "$tmp/gpu-tab/lbm-backends.gp" &&
    ! grep -q '%%\\n' "$tmp/gpu-tab/lbm-backends.gp"; then ok; else bad "lbm-backends: labels stacked where they overlap"; fi
# a reference's plots drawn again redraw its comparisons (in a scratch
# checkout: data/ holds the fixtures, plots/ an empty comparison's folder)
mkdir -p "$tmp/ref/data" "$tmp/ref/plots/compare-nvidia-h100-80gb-hbm3-vs-nvidia-h200"
ln -s "$repo/tests/fixtures/nvidia-h100-80gb-hbm3" "$repo/tests/fixtures/nvidia-h200" "$tmp/ref/data/"
(cd "$tmp/ref" && sh "$repo/plots/render.sh" nvidia-h200) >"$tmp/log" 2>&1 || bad "render.sh of a reference failed: $(cat "$tmp/log")"
if [ -s "$tmp/ref/plots/compare-nvidia-h100-80gb-hbm3-vs-nvidia-h200/lbm-best-fp32.png" ]; then ok; else bad "the reference's comparison was not drawn again: $(tail -n 3 "$tmp/log")"; fi

# 4. a missing folder is a usage error
if sh plots/render.sh /nonexistent/folder "$tmp/x" >/dev/null 2>&1; then bad "render.sh accepted a missing folder"; else ok; fi
echo "plots: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
