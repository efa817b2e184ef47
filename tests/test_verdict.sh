#!/bin/sh
# model summary ends with the model's verdict said plainly (issue 54, item
# 2) and names one "best" (item 3), on the frozen fixtures:
#   verdict: points over the bar of how many, as model validate counted
#     them (model-meta.csv), per backend and precision and for several
#     ranks; the points above their roofline; on a CPU the write-allocate
#     verdict, its ratio and whether it is close; the same in --json and
#     in report.md;
#   best: per backend and precision, the fastest verified point at a
#     lattice larger than the last-level cache, its lattice beside it
#     (computed here again from model.csv and stream-meta.csv);
#   lbmkernels' lbm-meta.csv: best_mlups and best_lattice by the same rule.
# Last line: "verdict: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
. plots/csv.sh
fx=tests/fixtures
h100=$fx/nvidia-h100-80gb-hbm3 cpu=$fx/pthread-skylake-avx512-intel-xeon-processor x4=$fx/nvidia-h100-80gb-hbm3-x4

summary() { model/model summary --data "$1" ${2:+--backend "$2"} 2>/dev/null; }

# ---- the verdict: the summary's last lines -------------------------------
for d in $h100 $cpu $x4; do
    summary "$d" >"$tmp/s"
    over=$(metaval "$d/model-meta.csv" points_over)
    points=$(($(metaval "$d/model-meta.csv" points) + $(metaval "$d/model-meta.csv" ranks_points)))
    grep -q "^verdict: FAIL, $over of $points points over the model's error bar (|error| > $(metaval "$d/model-meta.csv" max_error_pct) % from 128³ cells, > $(metaval "$d/model-meta.csv" max_error_small_pct) % below)$" "$tmp/s" &&
        ok || bad "$d: no verdict of $over of $points points: $(tail -n 8 "$tmp/s")"
    # the verdict is the end: nothing after its block but its own lines
    awk '/^verdict:/ { v = NR } END { exit !v }' "$tmp/s" && [ -z "$(sed -n '/^verdict:/,$p' "$tmp/s" | tail -n +2 | grep -v '^  ')" ] &&
        ok || bad "$d: the summary does not end with the verdict: $(tail -n 4 "$tmp/s")"
    # per backend and precision: the groups' counts sum to the one-rank points
    awk '/^verdict:/ { on = 1; next } on && $1 != "several" && $4 == "of" && $6 == "over" { o += $3; n += $5 } END { print o + 0, n + 0 }' "$tmp/s" >"$tmp/sum"
    awk '/^verdict:/ { on = 1; next } on && /several ranks/ { o += $3; n += $5 } END { print o + 0, n + 0 }' "$tmp/s" >"$tmp/ranks"
    [ "$(($(cut -d' ' -f1 "$tmp/sum") + $(cut -d' ' -f1 "$tmp/ranks")))" = "$over" ] &&
        [ "$(cut -d' ' -f2 "$tmp/sum")" = "$(metaval "$d/model-meta.csv" points)" ] &&
        ok || bad "$d: the per-group counts ($(cat "$tmp/sum"), ranks $(cat "$tmp/ranks")) do not add up to $over of $points"
    grep -q "^  above their roofline (model.csv flags): measured $(metaval "$d/model-meta.csv" points_measured_above_roofline), predicted $(metaval "$d/model-meta.csv" points_predicted_above_roofline) of $(wc -l <"$d/model.csv" | awk '{ print $1 - 1 }') points" "$tmp/s" &&
        ok || bad "$d: the points above their roofline not said: $(tail -n 4 "$tmp/s")"
done
grep -q '^  cuda    fp16s   13 of  151 over (from 128³: 4 of 123; below: 9 of 28)$' "$(summary $h100 >"$tmp/s"; echo "$tmp/s")" &&
    ok || bad "H100's fp16s line: $(grep fp16s "$tmp/s" | tail -n 1)"
grep -q '^  several ranks   36 of  128 over' "$(summary $x4 >"$tmp/s"; echo "$tmp/s")" && ok || bad "x4: several ranks not counted"
# no --backend filter leaks another backend into the verdict
summary $fx/nvidia-h200 opencl >"$tmp/s"
! sed -n '/^best:/,$p' "$tmp/s" | grep -q '^  cuda ' && grep -q '^verdict: FAIL, 39 of 224 points' "$tmp/s" &&
    ok || bad "--backend opencl: $(sed -n '/^best:/,$p' "$tmp/s")"

# ---- a CPU: the write-allocate verdict and its margin --------------------
summary $cpu >"$tmp/s"
grep -q '^  write-allocate: yes, likwid-bench copy_mem / copy 1.31 (yes above 1.25, no below 1.10)$' "$tmp/s" &&
    grep -q '^    0.06 above the yes threshold: not close' "$tmp/s" && ok || bad "CPU: the write-allocate ratio: $(tail -n 3 "$tmp/s")"
grep -q 'write-allocate' "$(summary $h100 >"$tmp/g"; echo "$tmp/g")" && bad "a GPU's summary names write-allocate" || ok
# a ratio near the threshold, its samples on both sides: close, said so
d=$(mktemp -d "$tmp/XXXXXX"); cp $cpu/model.csv $cpu/model-meta.csv "$d/"
sed '/^write_allocate/d' $cpu/stream-meta.csv >"$d/stream-meta.csv"
printf 'write_allocate,yes\nwrite_allocate_ratio,1.270\nwrite_allocate_ratio_min,1.210\nwrite_allocate_ratio_max,1.330\nwrite_allocate_close,1\n' >>"$d/stream-meta.csv"
summary "$d" >"$tmp/s"
grep -q '^  write-allocate: yes, likwid-bench copy_mem / copy 1.27 (samples 1.21..1.33) (yes above 1.25, no below 1.10)$' "$tmp/s" &&
    grep -q '^    0.02 above the yes threshold: CLOSE, another run may decide the other way' "$tmp/s" && ok || bad "a close verdict: $(tail -n 3 "$tmp/s")"
# no likwid figures: said, not guessed
sed '/^write_allocate/d; /^likwid/d' $cpu/stream-meta.csv >"$d/stream-meta.csv"
summary "$d" | grep -q '^  write-allocate: not decided' && ok || bad "no likwid: $(summary "$d" | tail -n 2)"

# ---- --json says the same ------------------------------------------------
if command -v jq >/dev/null 2>&1; then
    model/model summary --data $cpu --json >"$tmp/j" 2>/dev/null
    jq -e ".verdict.points_over == $(metaval $cpu/model-meta.csv points_over) and .verdict.pass == false and
        .verdict.write_allocate.verdict == \"yes\" and .verdict.write_allocate.close == false and
        (.best.points | map(select(.precision == \"fp32\"))[0] | .scheme == \"aa\" and .nx == 256)" "$tmp/j" >/dev/null &&
        ok || bad "summary --json: $(jq -c '.verdict, .best' "$tmp/j" 2>&1 | head -c 400)"
else bad "jq missing (make deps installs it)"; fi

# ---- best: recomputed from model.csv and stream-meta.csv ------------------
# BACKEND PRECISION: "MLUPS scheme NXxNYxNZ" of the fastest one-device row
# whose lattices (cells x lattices x 19 words) exceed l2_bytes
best_of() {
    awk -F, -v b="$2" -v p="$3" -v llc="$(metaval "$1/stream-meta.csv" l2_bytes)" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["backend"] != b || $c["precision"] != p || (c["scaling"] && $c["scaling"] != "none") { next }
        { w = p == "fp64" ? 8 : p == "fp16s" ? 2 : 4; l = $c["scheme"] == "aa" ? 1 : 2
          if ($c["cells"] * l * 19 * w <= llc) next
          if (!n++ || $c["measured_mlups"] > m) { m = $c["measured_mlups"]; s = $c["scheme"]; x = $c["nx"] "x" $c["ny"] "x" $c["nz"] } }
        END { if (n) printf "%.1f %s %s\n", m, s, x }' "$1/model.csv"
}
for d in $h100 $cpu $fx/nvidia-h200; do
    summary "$d" >"$tmp/s"
    for bp in cuda:fp32 cuda:fp64 cuda:fp16s opencl:fp32 opencl:fp64 opencl:fp16s; do
        b=${bp%:*} p=${bp#*:}
        want=$(best_of "$d" "$b" "$p")
        [ -n "$want" ] || continue
        got=$(sed -n '/^best:/,/^verdict:/p' "$tmp/s" | awk -v b="$b" -v p="$p" '$1 == b && $2 == p {
            x = $7; sub(/³/, "", x); printf "%s %s %sx%sx%s\n", $3, $5, x, x, x }')
        [ "$got" = "$want" ] && ok || bad "$d $b $p: best '$got', model.csv says '$want'"
    done
done
grep -q '^best: the fastest verified point at a lattice larger than the last-level cache (50 MiB):$' "$(summary $h100 >"$tmp/s"; echo "$tmp/s")" &&
    grep -q '^  cuda    fp32     19325.3 MLUPS split    at 512³ (96.7 % of its roofline)$' "$tmp/s" && ok || bad "H100's best: $(sed -n '/^best:/,/^verdict/p' "$tmp/s")"

# ---- make compare's best figures: the same rule, the lattice beside it ------
repo=$(pwd); mkdir -p "$tmp/cmp/data"
ln -s "$repo/$h100" "$repo/$fx/nvidia-h200" "$tmp/cmp/data/"
(cd "$tmp/cmp" && LBP_PLOTS_TABLES="$tmp/cmp/tab" sh "$repo/plots/compare.sh" nvidia-h100-80gb-hbm3 nvidia-h200) >"$tmp/log" 2>&1 ||
    bad "compare: $(tail -n 2 "$tmp/log")"
# split fp32 is the H100's and the H200's best (the summary's); aa's
# fastest past the L2 is not its largest lattice (1024³ on the H100)
grep -qxF '"split\n512³ / 512³" 19325.3 26733.4 1.383' "$tmp/cmp/tab/lbm-best-fp32.dat" &&
    grep -qxF '"aa\n768³ / 256³" 18818.5 25984.7 1.381' "$tmp/cmp/tab/lbm-best-fp32.dat" &&
    ok || bad "compare's best: $(cat "$tmp/cmp/tab/lbm-best-fp32.dat" 2>&1)"

# ---- report.md embeds the same verdict -----------------------------------
d=$(mktemp -d "$tmp/XXXXXX"); cp $cpu/model.csv $cpu/model-meta.csv $cpu/stream-meta.csv "$d/"
if command -v gnuplot >/dev/null 2>&1; then
    sh plots/render.sh "$d" "$d/out" >/dev/null 2>&1
    summary "$d" | sed -n '/^best:/,$p' >"$tmp/tail"
    n=0; while IFS= read -r line; do grep -qxF -- "$line" "$d/out/report.md" || n=$((n + 1)); done <"$tmp/tail"
    [ "$n" = 0 ] && [ -s "$tmp/tail" ] && ok || bad "report.md lacks $n of the verdict's lines"
fi

# ---- lbmkernels: best past the last-level cache in lbm-meta.csv -----------
# a cube in the cache and one past it (push fp32: 152 B a cell), so that
# the cache's faster rate can never be the best
llc=$(lbmkernels/lbmkernels --backend openmp --describe 2>/dev/null | awk -F, '$1 == "l2_bytes" { print $2 }')
big=$(awk -v l="${llc:-0}" 'BEGIN { n = int((l / 152) ^ (1 / 3)) + 8; print n < 24 ? 24 : n }')
if [ "$big" -le 200 ]; then
    OMP_NUM_THREADS=2 lbmkernels/lbmkernels --backend openmp --schemes push --precisions fp32 --sizes "16,$big" --block-size 64 \
        --quick --out "$tmp/lbm" >"$tmp/log" 2>&1 || bad "lbmkernels: $(tail -n 3 "$tmp/log")"
    m=$tmp/lbm/lbm-meta.csv
    [ "$(metaval "$m" best_lattice_push_fp32)" = "${big}x${big}x${big}" ] && ok || bad "best_lattice_push_fp32 '$(metaval "$m" best_lattice_push_fp32)', not ${big}³ past the $llc B cache"
    # lbm.csv rounds to 0.01, the meta to 0.1: the same number within 0.06
    want=$(awk -F, -v n="$big" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["nx"] == n && $c["mlups_median"] > m { m = $c["mlups_median"] } END { print m }' "$tmp/lbm/lbm.csv")
    awk -v a="$(metaval "$m" best_mlups_push_fp32)" -v b="$want" 'BEGIN { d = a - b; exit !(a != "" && d < 0.06 && d > -0.06) }' &&
        ok || bad "best_mlups_push_fp32 $(metaval "$m" best_mlups_push_fp32), the ${big}³ row $want"
else
    echo "verdict: a last-level cache of $llc B: the lbmkernels check would take a ${big}³ lattice, skipped"
fi
echo "verdict: $passed passed, $failed failed"
[ "$failed" = 0 ]
