#!/bin/sh
# The README's numbers come from a command on the committed data (issue
# 54, item 3), checked on frozen copies of those folders (the fixtures
# hold the same measurements as data/<device>; tests never read data/):
#   the sample summary under "Reading the summary": every line of it is a
#   line of `model summary` on the H100's folder;
#   the "best FP32/FP64/FP16S MLUPS" rows: the H100 and H200 columns are
#   the summary's best of that precision (MLUPS rounded, scheme, lattice,
#   % of roofline).
# Last line: "readme: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
fx=tests/fixtures

# ---- the sample ----------------------------------------------------------
awk '/^## Reading the summary/ { on = 1 } on && /^```$/ { if (inside) exit; inside = 1; next } inside' README.md >"$tmp/sample"
model/model summary --data $fx/nvidia-h100-80gb-hbm3 >"$tmp/summary" 2>/dev/null || bad "model summary on the H100 fixture exited $?"
[ "$(grep -c . "$tmp/sample")" -ge 5 ] && ok || bad "no sample summary under 'Reading the summary'"
while IFS= read -r line; do
    grep -qxF -- "$line" "$tmp/summary" && ok || bad "the README's sample line is not model summary's: '$line'"
done <"$tmp/sample"
grep -q '^verdict: ' "$tmp/sample" && grep -q '^best: ' "$tmp/sample" && ok || bad "the README's sample shows no best or verdict"

# ---- the best rows -------------------------------------------------------
# COLUMN PRECISION FOLDER [BACKEND]: the README's cell against the summary's best
best_cell() {
    cell=$(awk -F' \\| ' -v c="$1" -v p="$2" 'index($1, "| best " toupper(p) " MLUPS") == 1 { print $(c + 1) }' README.md)
    want=$(model/model summary --data "$3" ${4:+--backend "$4"} 2>/dev/null | sed -n '/^best:/,/^verdict:/p' |
        awk -v p="$2" '$2 == p { m = sprintf("%.0f", $3); while (m ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]$/, ",&", m)
            s = $5 == "aa" ? "A-A" : $5; pct = $8; sub(/^\(/, "", pct); printf "%s %s %s (%s %%)", m, s, $7, pct }')
    case "$cell" in "${want:-no best in model summary}"*) ok ;; *) bad "README's best $2 ($1st column) '$cell', model summary on $3: '$want'" ;; esac
}
for p in fp32 fp64 fp16s; do
    best_cell 1 $p $fx/nvidia-h100-80gb-hbm3
    best_cell 3 $p $fx/nvidia-h200 cuda
done
echo "readme: $passed passed, $failed failed"
[ "$failed" = 0 ]
