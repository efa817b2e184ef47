#!/bin/sh
# lbm.csv's and model.csv's launch column (issue 34): model validate reads
# an lbm.csv without it as linear (as one that says linear), predicts a
# rows launch with its idle threads (moving no words, holding slots), refuses a launch it cannot read (exit
# 2 naming the column), and writes the launch in model.csv; model summary
# reads a model.csv written before the column.
# Last line: "model-launch: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

# fresh [DIR]: a copy of the synthetic GPU folder (or of DIR) without model.csv
fresh() { rm -rf "$tmp/d"; mkdir "$tmp/d"; cp "${1:-tests/model-data/gpu}"/*.csv "$tmp/d/"; rm -f "$tmp/d"/model*.csv; }
# add_launch VALUE [ROW]: the launch column (added where lbm.csv has none),
# linear but VALUE on data row ROW (default 4)
add_launch() {
    awk -F, -v OFS=, -v v="$1" -v r="${2:-4}" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "launch") c = i; if (!c) { c = NF + 1; $c = "launch" } print; next }
        { $c = NR == r + 1 ? v : "linear"; print }' \
        "$tmp/d/lbm.csv" >"$tmp/x" && mv "$tmp/x" "$tmp/d/lbm.csv"
}
validate() { model/model validate --data "$tmp/d" --backend cuda >"$tmp/out" 2>"$tmp/err"; }
# column NAME of model.csv, every row
column() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$tmp/d/model.csv"; }

fresh; validate
[ -z "$(column launch | grep -v '^linear$')" ] && [ -n "$(column launch)" ] && ok ||
    bad "an lbm.csv without launch: model.csv launch column '$(column launch | tr '\n' ' ')'"
column full_mlups >"$tmp/old"
fresh; add_launch linear; validate
column full_mlups | cmp -s - "$tmp/old" && ok || bad "launch=linear predicts otherwise than no launch column"
fresh; add_launch rows; validate
column launch | sed -n 4p | grep -qx rows && ok || bad "model.csv does not say rows: $(column launch | tr '\n' ' ')"
# the H100's folder: its row 3, push 256^3 in blocks of 192, launched as
# rows of 384 threads (a third idle): the idle threads move no words, so
# the prediction is not the linear one's x 256/384 that charging them as
# working would give, but it moves (they hold a third of the slots: level 2
# and the threads sweep are read at 2/3 of the occupancy)
h100=tests/fixtures/nvidia-h100-80gb-hbm3
awk -F, 'NR == 4 { exit !($3 == "push" && $6 == 256 && $11 == 192) }' $h100/lbm.csv || bad "$h100/lbm.csv row 3 moved"
fresh $h100; validate; column full_mlups >"$tmp/old"
fresh $h100; add_launch rows 3; validate
old3=$(sed -n 3p "$tmp/old") new3=$(column full_mlups | sed -n 3p)
awk -v a="$new3" -v b="$old3" 'BEGIN { exit !(a != b && a > 0.9 * b) }' && ok ||
    bad "rows of 384 threads for 256 cells: $new3, linear $old3 (wanted another value above 0.9 x linear)"
[ "$(column full_mlups | sed 3d)" = "$(sed 3d "$tmp/old")" ] && ok || bad "rows on row 3 moved other rows"
for v in grid bogus; do
    fresh; add_launch $v; validate; rc=$?
    [ $rc = 2 ] && grep -q "lbm.csv:5: column 'launch'.*'$v'" "$tmp/err" && [ ! -e "$tmp/d/model.csv" ] && ok ||
        bad "launch=$v: exit $rc: $(cat "$tmp/err")"
done
# a model.csv written before the launch column (the committed one with that
# column cut out) still summarises
fresh; cp tests/fixtures/nvidia-h100-80gb-hbm3/model-meta.csv "$tmp/d/"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "launch") c = i }
    { if (c) { for (i = c; i < NF; i++) $i = $(i + 1); NF-- } print }' tests/fixtures/nvidia-h100-80gb-hbm3/model.csv >"$tmp/d/model.csv"
if head -1 "$tmp/d/model.csv" | tr ',' '\n' | grep -qx launch; then bad "the launch column was not cut out"
else model/model summary --data "$tmp/d" >/dev/null 2>"$tmp/err" && ok || bad "summary of an old model.csv: $(cat "$tmp/err")"; fi

echo "model-launch: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
