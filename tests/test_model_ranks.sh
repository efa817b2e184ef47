#!/bin/sh
# model predict --ranks, model validate and model summary on several ranks,
# through the CLI, on tests/model-data/ranks beside the gpu folder's probes
# (pull fp32: 0.21 ns a cell at these sizes, so a 256^3 slab is 3523.2 us):
# the numbers, the marks of a projection, the exit status of bad flags and
# of a missing or malformed fit (2: bad input).  Last line: "model_ranks: N
# passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
d=$tmp/ranks
mkdir -p "$d" && cp tests/model-data/gpu/*.csv "$d/" && cp tests/model-data/ranks/*.csv "$d/" || exit 1
predict() { model/model predict --data "$d" --backend cuda --scheme pull --precision fp32 "$@"; }
# expect STATUS TEXT CMD...: the exit status, and TEXT in stderr
expect() {
    want=$1 text=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "$rc" = "$want" ] && grep -qF -- "$text" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -le 2 ]; then ok
    else bad "$*: exit $rc (want $want), stderr: $(cat "$tmp/err")"; fi
}
field() { # CSV-FILE ROW COLUMN: a field of the CSV by the header's name
    awk -F, -v r="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } NR == r + 1 { print $h[c] }' "$1"
}
near() { awk -v a="$1" -v b="$2" -v t="${3:-1e-3}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t * (b < 0 ? -b : b) + 1e-9) }'; }

# ---- predict ----------------------------------------------------------------
# weak, 2 and 4 ranks through peer: 0-1 at 3 us + m / 100 GB/s a message
# each way, the ring of 4's slowest pair 2-3 at 80 GB/s; a rank sends both
# faces, m = 2 x 5 x 256 x 256 x 4 B
predict --size 256 --ranks 1,2,4 --weak --format csv >"$tmp/p.csv" 2>"$tmp/err" && ok || bad "predict --ranks 1,2,4: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/p.csv")" = 4 ] && ok || bad "expected a header and 3 rows: $(cat "$tmp/p.csv")"
near "$(field "$tmp/p.csv" 2 exchange_us)" 29.2144 && near "$(field "$tmp/p.csv" 3 exchange_us)" 35.768 && ok ||
    bad "exchange of 2 and 4 ranks: $(field "$tmp/p.csv" 2 exchange_us), $(field "$tmp/p.csv" 3 exchange_us)"
[ "$(field "$tmp/p.csv" 1 exchange)" = none ] && [ "$(field "$tmp/p.csv" 2 exchange)" = peer ] && ok || bad "default path: not peer (the fastest)"
# the step, from the pieces: max(border + interior, border + exchange) +
# the host's wait (launch.csv's sync_each, 10 us)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } NR > 2 {
    a = $h["border_us"] + $h["interior_us"]; b = $h["border_us"] + $h["exchange_us"]; t = (a > b ? a : b) + $h["sync_us"]
    if ($h["sync_us"] != 10) exit 1
    if ((t - $h["step_us"])^2 > 1e-4 || ($h["mlups"] - $h["nz"] * 65536 / t)^2 > 0.01) exit 1 }' "$tmp/p.csv" && ok || bad "step or MLUPS not max(T_alpha, T_beta)"
[ "$(field "$tmp/p.csv" 3 projection)" = no ] && ok || bad "a measured ring marked a projection"
# without overlap, through host: slab + 20 us + m / 10 GB/s + the wait
predict --size 256 --ranks 2 --weak --overlap off --exchange host --format csv >"$tmp/p.csv" 2>/dev/null
near "$(field "$tmp/p.csv" 1 step_us)" "$(awk -v s="$(field "$tmp/p.csv" 1 slab_us)" 'BEGIN { print s + 20 + 262.144 + 10 }')" 1e-5 && ok ||
    bad "host, no overlap: step $(field "$tmp/p.csv" 1 step_us)"
# strong: 4 ranks of 128 planes, efficiency against one device on the whole
predict --size 256x256x512 --ranks 4 --strong --format json >"$tmp/p.json" 2>/dev/null
grep -q '"nz_local": 128,' "$tmp/p.json" && grep -q '"scaling": "strong"' "$tmp/p.json" && grep -q '"projection": false}' "$tmp/p.json" && ok ||
    bad "strong JSON: $(cat "$tmp/p.json")"
# a projection: every text line, the CSV column and the JSON key say so
predict --size 256 --weak --nodes 64 --gpus-per-node 8 --link-latency-us 10 --link-gbs 25 >"$tmp/p.txt" 2>/dev/null
[ -s "$tmp/p.txt" ] && ! grep -qv '^\[projection\] ' "$tmp/p.txt" && ok || bad "projection lines unmarked: $(grep -v '^\[projection\]' "$tmp/p.txt" | head -n 2)"
grep -q "512 ranks (64 nodes of 8)" "$tmp/p.txt" && grep -q "across nodes 114.86 us" "$tmp/p.txt" && ok || bad "projection text: $(cat "$tmp/p.txt")"
predict --size 256 --weak --nodes 64 --gpus-per-node 8 --link-latency-us 10 --link-gbs 25 --format csv >"$tmp/p.csv" 2>/dev/null
[ "$(field "$tmp/p.csv" 1 projection)" = yes ] && [ "$(field "$tmp/p.csv" 1 ranks)" = 512 ] && ok || bad "projection CSV"
predict --size 256 --weak --nodes 2 --gpus-per-node 4 --link-latency-us 1 --link-gbs 1 --format json >"$tmp/p.json" 2>/dev/null
grep -q '"projection": true}' "$tmp/p.json" && ok || bad "projection JSON"
# bad flags: exit 2, one line naming the value
expect 2 "--ranks 3: 3 ranks do not divide nz = 256" predict --size 256 --ranks 3
# a lattice the device cannot hold: one line, exit 2 (a device of 1 GiB
# here; 256^3 of pull fp32 take 2432 MiB, a quarter slab with its halos
# 627 MiB)
m=$tmp/small-memory
mkdir -p "$m" && cp "$d"/*.csv "$m/" && echo "global_mem_bytes,1073741824" >>"$m/stream-meta.csv"
mpredict() { model/model predict --data "$m" --backend cuda --scheme pull --precision fp32 "$@"; }
expect 2 "--size 256: 1.678e+07 cells of 152 B take 2432 MiB, more than the 1 GiB of" mpredict --size 256
expect 2 "--ranks 2: a device's 1 slab of 256x256x130 (halo planes included): 8.52e+06 cells of 152 B take 1235 MiB" \
    mpredict --size 256 --ranks 4,2
mpredict --size 256 --ranks 4 >/dev/null 2>"$tmp/err" && ok || bad "a slab that fits refused: $(cat "$tmp/err")"
mpredict --size 128 >/dev/null 2>"$tmp/err" && ok || bad "a lattice that fits refused: $(cat "$tmp/err")"
sed -i 's/^global_mem_bytes,.*/global_mem_bytes,lots/' "$m/stream-meta.csv"
expect 2 "stream-meta.csv:$(grep -n '^global_mem_bytes' "$m/stream-meta.csv" | cut -d: -f1): global_mem_bytes: expected a whole number" \
    mpredict --size 128
expect 2 "--exchange: unknown value 'carrier'" predict --size 256 --ranks 2 --exchange carrier
expect 2 "--overlap: unknown value 'maybe'" predict --size 256 --ranks 2 --overlap maybe
expect 2 "go with --ranks N" predict --size 256 --weak
expect 2 "--weak and --strong: give one" predict --size 256 --ranks 2 --weak --strong
expect 2 "takes --nodes N, --gpus-per-node G, --link-latency-us X and --link-gbs Y together" predict --size 256 --nodes 4 --gpus-per-node 8
expect 2 "2 nodes of 4 GPUs are 8 ranks" predict --size 256 --ranks 4 --nodes 2 --gpus-per-node 4 --link-latency-us 1 --link-gbs 1
expect 2 "--link-gbs" predict --size 256 --nodes 2 --gpus-per-node 4 --link-latency-us 1 --link-gbs 0
# the fit missing or malformed: exit 1 naming the file; a path it lacks
rm "$d/interconnect-fit.csv"
expect 2 "interconnect-fit.csv: missing" predict --size 256 --ranks 2
predict --size 256 --ranks 1 >/dev/null 2>&1 && ok || bad "one rank needs no fit"
printf 'path,rank_a\npeer,0\n' >"$d/interconnect-fit.csv"
expect 2 "interconnect-fit.csv:1: missing column 'rank_b'" predict --size 256 --ranks 2
cp tests/model-data/ranks/interconnect-fit.csv "$d/"
expect 2 "interconnect-fit.csv: no mpi path" predict --size 256 --ranks 2 --exchange mpi

# ---- validate -----------------------------------------------------------------
model/model validate --data "$d" --force >"$tmp/v.txt" 2>"$tmp/err"; rc=$?
[ "$rc" = 0 ] && ok || bad "validate: exit $rc: $(cat "$tmp/err")"
m=$d/model.csv
[ "$(awk -F, 'NR > 1 && $16 > 1' "$m" | wc -l)" = 8 ] && ok || bad "expected 8 rows of several ranks in model.csv"
# each multi-rank row's prediction is predict's, its error against lbm.csv's
row=$(awk -F, 'NR > 1 && $16 == 4 && $17 == "peer" && $18 == 1 && $19 == "weak" { print NR - 1 }' "$m")
predict --size 256 --ranks 4 --weak --exchange peer --format csv >"$tmp/p.csv" 2>/dev/null
near "$(field "$m" "$row" full_mlups)" "$(field "$tmp/p.csv" 1 mlups)" 1e-4 && ok || bad "validate's 4-rank prediction $(field "$m" "$row" full_mlups), predict's $(field "$tmp/p.csv" 1 mlups)"
near "$(field "$m" "$row" error_pct)" "$(awk -v p="$(field "$m" "$row" full_mlups)" 'BEGIN { print 100 * (p - 18800) / 18800 }')" 1e-3 && ok || bad "error_pct of the 4-rank row"
# measured efficiency against the one-rank weak run (4700), not the sweep's 4857.1
near "$(field "$m" "$row" measured_efficiency_pct)" 100 1e-4 && ok || bad "measured efficiency $(field "$m" "$row" measured_efficiency_pct)"
near "$(field "$m" "$row" predicted_exchange_us)" 35.768 && [ "$(field "$m" "$row" devices)" = 4 ] && ok || bad "exchange or devices of the 4-rank row"
[ "$(field "$m" 1 ranks)" = 1 ] && [ "$(field "$m" 1 scaling)" = none ] && [ "$(field "$m" 1 projection)" = no ] && ok || bad "one-device row's multi-rank columns"
grep -q "several ranks: 8 points, worst |error| 1.57 %" "$tmp/v.txt" && ok || bad "validate's multi-rank line: $(grep 'several ranks:' "$tmp/v.txt")"
grep -q "^ranks_points,8" "$d/model-meta.csv" && ok || bad "model-meta.csv lacks ranks_points"
# a multi-rank row is predicted at its own launch (lbm.csv's cells_per_thread
# and occupancy), as predict --ranks is with those flags, never at a default
c=$tmp/cpt
cp -r "$d" "$c" && awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print $0, "cells_per_thread"; next }
    { cpt = ($h["ranks"] == 4 && $h["exchange"] == "peer" && $h["overlap"] == 1 && $h["scaling"] == "weak") ? 2 : 1
      if (cpt == 2) $h["occupancy"] = 0.5
      print $0, cpt }' "$d/lbm.csv" >"$c/lbm.csv" || exit 1
model/model validate --data "$c" --force >/dev/null 2>&1
predict --size 256 --ranks 4 --weak --exchange peer --cells-per-thread 2 --occupancy 0.5 --format csv >"$tmp/p2.csv" 2>/dev/null
near "$(field "$c/model.csv" "$row" full_mlups)" "$(field "$tmp/p2.csv" 1 mlups)" 1e-4 && [ "$(field "$c/model.csv" "$row" cells_per_thread)" = 2 ] && ok ||
    bad "validate's 4-rank row at 2 cells per thread: $(field "$c/model.csv" "$row" full_mlups), predict's $(field "$tmp/p2.csv" 1 mlups)"
! near "$(field "$c/model.csv" "$row" full_mlups)" "$(field "$m" "$row" full_mlups)" 1e-3 && ok ||
    bad "2 cells per thread predicted as the default launch: $(field "$c/model.csv" "$row" full_mlups)"
# the summary: the one-device table without the one-rank runs, the block, the targets
model/model summary --data "$d" >"$tmp/s.txt" 2>&1 && ok || bad "summary failed: $(cat "$tmp/s.txt")"
[ "$(grep -c '^cuda    pull   fp32' "$tmp/s.txt")" = 1 ] && grep -q '^cuda    pull   fp32            256³     4857.1' "$tmp/s.txt" && ok || bad "one-device table took a one-rank run: $(grep pull "$tmp/s.txt" | head -n 2)"
grep -q "target: weak-scaling efficiency >= 95 % at 8 GPUs with peer exchange and overlap: at 4 GPUs (the most measured): pull fp32 100.0 %: met there" "$tmp/s.txt" && ok || bad "efficiency target line: $(grep 'target: weak' "$tmp/s.txt")"
grep -q "target: model within 5 % of measured MLUPS per rank: worst |error| 1.57 % over 8 points: met" "$tmp/s.txt" && ok || bad "error target line"
# a row measured 20 % slower than predicted: over the bar, exit 1
sed -i 's/,18800,18800,/,15000,15000,/' "$d/lbm.csv"
model/model validate --data "$d" --force >"$tmp/v.txt" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "OVER" "$tmp/v.txt" && ok || bad "an off multi-rank row: exit $rc"
model/model summary --data "$d" 2>&1 | grep -q "over 8 points: not met" && ok || bad "summary should say the error target is not met"
# two ranks on one device (the probe's uuids all one): oversubscribed, held to no bar
sed -i 's/GPU-000[0-9]/GPU-0000/g' "$d/interconnect.csv"
model/model validate --data "$d" --force >"$tmp/v.txt" 2>&1; rc=$?
[ "$rc" = 0 ] && grep -q "oversubscribed" "$tmp/v.txt" && grep -q "several ranks: 8 points (8 with several ranks on one device: a check of the paths, held to no bar)$" "$tmp/v.txt" && ok ||
    bad "oversubscribed rows: exit $rc, $(grep -c oversubscribed "$tmp/v.txt") marked, $(grep 'several ranks:' "$tmp/v.txt")"
[ "$(field "$m" "$row" devices)" = 1 ] && ok || bad "devices of an oversubscribed row: $(field "$m" "$row" devices)"
model/model summary --data "$d" 2>&1 | grep -q "8 point(s) ran several ranks on one device" && ok || bad "summary should keep oversubscribed points out of the targets"
# no fit: the one-device rows still written, the others counted, exit 1
rm "$d/interconnect-fit.csv"
model/model validate --data "$d" --force >"$tmp/v.txt" 2>"$tmp/err"; rc=$?
[ "$rc" = 1 ] && grep -q "8 row(s) of several ranks not predicted" "$tmp/v.txt" && [ "$(awk 'END { print NR }' "$m")" = 7 ] && ok ||
    bad "validate without a fit: exit $rc, $(awk 'END { print NR }' "$m") lines, $(cat "$tmp/err")"
# a malformed multi-rank row: exit 2 (input it cannot read, issue 36)
# naming file and line
cp tests/model-data/ranks/interconnect-fit.csv "$d/"
sed -i '8s/,weak,256,/,weak,200,/' "$d/lbm.csv"
expect 2 "lbm.csv:8: expected nz = ranks x nz_local" model/model validate --data "$d" --force

# ---- the exchange beside a copy (interconnect.csv's column beside) ---------------
# the fixture's files with the column (every row none), and a peer ring of
# 4 measured beside a copy at 40 and 90 us around a 256^2 face (60 us
# there, log-log); the slowest pair alone is 35.768 us
b=$tmp/beside
mkdir -p "$b" && cp tests/model-data/gpu/*.csv "$b/" && cp tests/model-data/ranks/*.csv "$b/" || exit 1
sed -i '1s/$/,beside/; 2,$s/$/,none/' "$b/interconnect-fit.csv" "$b/interconnect.csv"
echo "test-gpu,cuda,peer,0,3,ring,6,50,0.99,2,copy" >>"$b/interconnect-fit.csv"
printf 'test-gpu,cuda,peer,0,3,0,3,GPU-0000,GPU-0003,ring,%s,20,%s,%s,%s,1,copy\n' 655360 40 40 40 2621440 90 90 90 >>"$b/interconnect.csv"
bpredict() { model/model predict --data "$b" --backend cuda --scheme pull --precision fp32 --size 256 --weak "$@"; }
bpredict --ranks 4 --exchange peer --overlap on --format csv >"$tmp/p.csv" 2>/dev/null
near "$(field "$tmp/p.csv" 1 exchange_us)" 60 && ok || bad "overlap on: exchange $(field "$tmp/p.csv" 1 exchange_us), expected the beside medians' 60 us"
bpredict --ranks 4 --exchange peer --overlap off --format csv >"$tmp/p.csv" 2>/dev/null
near "$(field "$tmp/p.csv" 1 exchange_us)" 35.768 && ok || bad "overlap off: exchange $(field "$tmp/p.csv" 1 exchange_us), expected alone 35.768 us"
bpredict --ranks 4 --exchange peer --overlap on >"$tmp/p.txt" 2>&1
grep -q "peer ring fit of ranks 0-3 (all at once beside a copy)" "$tmp/p.txt" && ok || bad "the route does not say beside a copy: $(cat "$tmp/p.txt")"
# no ring of 2 beside: alone, said
bpredict --ranks 2 --exchange peer --overlap on >"$tmp/p.txt" 2>&1
grep -q "no peer fit measured beside a copy" "$tmp/p.txt" && grep -q "exchange of the slowest rank: 29.21 us" "$tmp/p.txt" && ok || bad "2 ranks, no fit beside: $(cat "$tmp/p.txt")"
model/model validate --data "$b" --force >"$tmp/v.txt" 2>"$tmp/err"; rc=$?
[ "$rc" = 0 ] && ok || bad "validate beside: exit $rc: $(cat "$tmp/err")"
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h["ranks"] "-" $h["exchange"] "-" $h["overlap"] ":" $h["exchange_beside"] }' "$b/model.csv" | sort -u | tr '\n' ' ')
[ "$got" = "1-none-0:- 2-host-0:none 2-host-1:none 2-peer-0:none 2-peer-1:none 4-peer-0:none 4-peer-1:copy " ] && ok || bad "model.csv exchange_beside: [$got]"
[ "$(grep -c 'exchange-beside-copy' "$tmp/v.txt")" = 2 ] && ok || bad "validate's table marks $(grep -c 'exchange-beside-copy' "$tmp/v.txt") rows beside, expected the 2 peer rows of 4 ranks with overlap"
# the same, as the probe now writes it: each run beside paired with one
# alone (paired_alone_us_median, paired_ratio_median: 1.6 and 1.2 at the
# two sizes); with overlap the exchange is the alone reading (the slowest
# pair, 35.768 us) times the ratio at the face, sqrt(1.6 x 1.2) = 1.3856:
# 49.562 us, never the medians beside (60)
pr=$tmp/paired
mkdir -p "$pr" && cp tests/model-data/gpu/*.csv "$pr/" && cp tests/model-data/ranks/*.csv "$pr/" || exit 1
sed -i '1s/$/,beside/; 2,$s/$/,none/' "$pr/interconnect-fit.csv"
sed -i '1s/$/,paired_alone_us_median,paired_ratio_median,beside/; 2,$s/$/,,,none/' "$pr/interconnect.csv"
echo "test-gpu,cuda,peer,0,3,ring,6,50,0.99,2,copy" >>"$pr/interconnect-fit.csv"
printf 'test-gpu,cuda,peer,0,3,0,3,GPU-0000,GPU-0003,ring,%s,20,%s,%s,%s,1,%s,%s,copy\n' 655360 40 40 40 25 1.6 2621440 90 90 90 75 1.2 >>"$pr/interconnect.csv"
model/model predict --data "$pr" --backend cuda --scheme pull --precision fp32 --size 256 --weak --ranks 4 --exchange peer --overlap on --format csv >"$tmp/p.csv" 2>/dev/null
near "$(field "$tmp/p.csv" 1 exchange_us)" 49.562 && ok || bad "paired: exchange $(field "$tmp/p.csv" 1 exchange_us), expected alone 35.768 x 1.3856 = 49.562 us"
model/model predict --data "$pr" --backend cuda --scheme pull --precision fp32 --size 256 --weak --ranks 4 --exchange peer --overlap on >"$tmp/p.txt" 2>&1
grep -q "x 1.386, the paired ratio beside / alone of the peer ring fit of ranks 0-3 (all at once beside a copy)" "$tmp/p.txt" && ok || bad "paired: the route does not say the ratio: $(cat "$tmp/p.txt")"
model/model predict --data "$pr" --backend cuda --scheme pull --precision fp32 --size 256 --weak --ranks 4 --exchange peer --overlap off --format csv >"$tmp/p.csv" 2>/dev/null
near "$(field "$tmp/p.csv" 1 exchange_us)" 35.768 && ok || bad "paired, overlap off: exchange $(field "$tmp/p.csv" 1 exchange_us), expected alone 35.768 us"
# a beside the model does not know: exit 1 (predict) and 2 (validate), one line naming file, line and value
sed -i '2s/,none$/,sideways/' "$b/interconnect-fit.csv"
expect 2 "interconnect-fit.csv:2: expected beside none or copy, got 'sideways'" bpredict --ranks 2
expect 2 "interconnect-fit.csv:2: expected beside none or copy, got 'sideways'" model/model validate --data "$b" --force

echo "model_ranks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
