#!/bin/sh
# Render lbmprobe's figures from a result folder's CSVs (and nothing else).
#   sh plots/render.sh <slug | result folder> [output folder]
# Output: PNG and PDF per figure, report.md and report.pdf, in plots/<slug>/
# for a committed reference (data/<slug>), else in <result folder>/plots/
# (a user's run: results/<slug>/<run>/plots), unless an output folder is
# given.  A missing CSV skips its figures with a note.
set -u
here=$(dirname "$0")
arg=${1:-}
[ -n "$arg" ] || { echo "usage: make plots DEVICE=<slug> (a folder of data/), make plots RUN=<result folder> or sh plots/render.sh DIR [OUT]" >&2; exit 2; }
if [ -d "$arg" ]; then data=$arg; else data=data/$arg; fi
[ -d "$data" ] || { echo "plots: no result folder $data (make bench writes results/<device>/<run>/)" >&2; exit 2; }
name=$(basename "$data")
default_out=$data/plots
[ "$(cd "$(dirname "$data")" && pwd -P)" = "$(pwd -P)/data" ] && default_out=plots/$name
out=${2:-$default_out}
mkdir -p "$out" || exit 1
command -v gnuplot >/dev/null 2>&1 || { echo "plots: gnuplot is not installed (make deps)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$here/csv.sh"

meta() { metaval "$data/stream-meta.csv" "$1" 2>/dev/null || metaval "$data/lbm-meta.csv" "$1" 2>/dev/null || metaval "$data/membench-meta.csv" "$1"; }
device=$(meta device); date=$(meta date | cut -c1-10)
[ -n "$device" ] || device=$name
l2=$(meta l2_bytes); l2=${l2:-0}
title_suffix="$device, $date"
# a CPU's figures in its own words: OpenCL/OpenMP work-groups of work-items
# on cores, where a GPU has blocks of threads on SMs
if [ "$(meta kind)" = cpu ]; then
    w_block=work-group w_blocks=work-groups w_thread=work-item w_threads=work-items w_sm=core w_cache="last-level cache"
else
    w_block=block w_blocks=blocks w_thread=thread w_threads=threads w_sm=SM w_cache=L2
fi
made=""
note() { echo "plots: $*" >&2; }

# figure NAME GNUPLOT-BODY: render the body to NAME.png and NAME.pdf.
figure() {
    fig=$1; body=$2
    for t in png pdf; do
        if [ $t = png ]; then term="pngcairo noenhanced size 1000,640 font 'Sans,11'"; else term="pdfcairo noenhanced size 10in,6.4in font 'Sans,8.5'"; fi
        gnuplot -e "set terminal $term; set output '$out/$fig.$t'; set grid; set key outside right top box opaque; set datafile separator whitespace; $body" \
            2>"$tmp/gp.err" || { note "$fig: gnuplot failed: $(head -c 300 "$tmp/gp.err")"; return 1; }
    done
    # LBP_PLOTS_TABLES: each figure's script and the points gnuplot plots
    # for each curve (its table), for the render test to check the key
    if [ -n "${LBP_PLOTS_TABLES:-}" ]; then
        mkdir -p "$LBP_PLOTS_TABLES" &&
            printf 'set grid; set key outside right top box opaque; set datafile separator whitespace; %s\n' "$body" >"$LBP_PLOTS_TABLES/$fig.gp" &&
            gnuplot -e "set table '$LBP_PLOTS_TABLES/$fig.tab'; set grid; set key outside right top box opaque; set datafile separator whitespace; $body" 2>/dev/null
    fi
    made="$made $fig"
}

backends_of() { [ -f "$1" ] && csvcol "$1" backend | sort -u; }

# ---- stream: bandwidth vs working set, blocks, block size and word --------
if [ -f "$data/stream.csv" ]; then
    plot=""; bw=""
    for b in $(backends_of "$data/stream.csv"); do
        csvsel "$data/stream.csv" "backend=$b,sweep=size" array_bytes gbs_median | awk '{print 2*$1, $2}' | sort -g >"$tmp/size-$b.dat"
        [ -s "$tmp/size-$b.dat" ] && plot="$plot${plot:+, }'$tmp/size-$b.dat' using 1:2 with linespoints lw 2 title 'copy, $b'"
        csvsel "$data/stream.csv" "backend=$b,sweep=blocks" blocks gbs_median | sort -g >"$tmp/blocks-$b.dat"
        [ -s "$tmp/blocks-$b.dat" ] && bw="$bw${bw:+, }'$tmp/blocks-$b.dat' using 1:2 with linespoints lw 2 title '$b'"
    done
    ref=$(csvsel "$data/stream.csv" "sweep=reference" gbs_median | head -n 1)
    cache=L2; [ "$(meta kind)" = cpu ] && cache="last-level cache"
    l2line=""; [ "$l2" -gt 0 ] 2>/dev/null && l2line="set arrow from $l2, graph 0 to $l2, graph 1 nohead dt 2 lc rgb 'gray40'; set label '$cache $(awk -v b="$l2" 'BEGIN{printf "%.0f MB", b/1e6}') ' at $l2, graph 0.15 right offset -0.3,0;"
    # the driver's copy lies on or near the DRAM plateau: drawn thick and
    # labelled with its value at the left, below the plateau's label
    refline=""; [ -n "$ref" ] && refline=", $ref with lines dt 3 lw 3 lc rgb '#0060c0' title sprintf('driver copy (device to device) %.0f GB/s', $ref)"
    [ -n "$ref" ] && l2line="$l2line set label sprintf('driver copy %.0f GB/s', $ref) at graph 0.02, first $ref offset 0,-0.9 tc rgb '#0060c0';"
    # the plateaus of the first backend: the best rate of a working set that
    # fits in L2, and the median of the three largest (DRAM)
    b0=$(backends_of "$data/stream.csv" | head -n 1)
    plateaus=$(awk -v l2="$l2" '$1 <= l2 && $2 > l2max { l2max = $2 } { x[NR] = $2; ws = $1 }
        END { n = NR; if (n >= 3) { a = x[n-2]; b = x[n-1]; c = x[n]
                  d = (a > b) ? ((b > c) ? b : ((a > c) ? c : a)) : ((a > c) ? a : ((b > c) ? c : b)) }
              else d = x[n]
              printf "%s %s %d\n", (l2 > 0 ? l2max + 0 : 0), d + 0, (l2 > 0 && ws < 4 * l2) }' "$tmp/size-$b0.dat" 2>/dev/null)
    l2plat=${plateaus%% *}; dramplat=$(echo "$plateaus" | awk '{print $2}')
    # the largest sizes are DRAM's only where they pass 4 x the cache
    platname="DRAM plateau %.0f GB/s (largest sizes)"
    [ "$(echo "$plateaus" | awk '{print $3}')" = 1 ] && platname="largest sizes %.0f GB/s (within 4 x the $cache: not DRAM)"
    platline=""
    # the title names the plateaus the curve shows, no more
    plat_title="DRAM plateau; no faster $cache plateau"
    [ "$(echo "$plateaus" | awk '{print $3}')" = 1 ] && plat_title="largest sizes within 4 x the $cache: no DRAM plateau"
    [ -n "$dramplat" ] && awk -v v="$dramplat" 'BEGIN { exit !(v > 0) }' &&
        platline="$platline set arrow from graph 0, first $dramplat to graph 1, first $dramplat nohead lw 1 lc rgb 'gray30'; set label sprintf('$platname', $dramplat) at graph 0.02, first $dramplat offset 0,0.8 tc rgb 'gray20';"
    [ -n "$l2plat" ] && awk -v v="$l2plat" -v d="${dramplat:-0}" 'BEGIN { exit !(v > 1.05 * d) }' &&
        { platline="$platline set arrow from graph 0.2, first $l2plat to $l2, first $l2plat nohead lw 1 lc rgb 'gray30'; set label sprintf('$cache plateau %.0f GB/s', $l2plat) at graph 0.2, first $l2plat offset 0,0.7 tc rgb 'gray20';"
          plat_title="$cache and DRAM plateaus"
          [ "$(echo "$plateaus" | awk '{print $3}')" = 1 ] && plat_title="$cache plateau; largest sizes within 4 x the $cache: no DRAM plateau"; }
    th=$(meta theoretical_gbs)
    [ -n "$th" ] && awk -v v="$th" 'BEGIN { exit !(v > 0) }' &&
        refline="$refline, $th with lines dt 4 lw 1 lc rgb 'red' title 'theoretical (memory clock x bus width)'"
    [ -n "$plot" ] && figure stream-size "set logscale x 10; set format x '%.0s%cB'; set xlabel 'working set (bytes read + written per launch)'; set ylabel 'bandwidth [GB/s]'; set title 'Copy bandwidth vs working set ($plat_title)'.\"\\n\".'$title_suffix'; set key outside below center horizontal box; set bmargin 7; set offsets 0, 0, graph 0.08, 0; set yrange [0:*]; $l2line $platline plot $plot $refline"
    # likwid-bench over its pinned threads: where the cores saturate the memory
    lw=""
    for k in copy copy_mem update; do
        csvsel "$data/stream.csv" "sweep=likwid,kernel=$k" threads gbs_median 2>/dev/null | awk '$1 > 0' | sort -g >"$tmp/likwid-$k.dat"
        [ -s "$tmp/likwid-$k.dat" ] && lw="$lw${lw:+, }'$tmp/likwid-$k.dat' using 1:2 with linespoints lw 2 title 'likwid-bench $k'"
    done
    [ -n "$lw" ] && figure stream-likwid-threads "set xlabel 'pinned threads'; set ylabel 'bandwidth [GB/s] (likwid counts loads + stores)'; set title 'Saturation: likwid-bench on $(awk -v b="$(meta likwid_working_set_bytes)" 'BEGIN{printf "%.0f MB", b/1e6}') over threads'.\"\\n\".'$title_suffix'; set key inside bottom right box opaque; set yrange [0:*]; plot $lw"
    [ -n "$bw" ] && figure stream-blocks "set logscale x 2; set xlabel '$w_blocks in the grid (grid-stride copy, 16-byte words)'; set ylabel 'bandwidth [GB/s]'; set title 'Copy bandwidth vs $w_block count'.\"\\n\".'$title_suffix'; plot $bw"
    bsp=""
    for b in $(backends_of "$data/stream.csv"); do
        csvsel "$data/stream.csv" "backend=$b,sweep=block_size" block_size gbs_median | sort -g >"$tmp/bs-$b.dat"
        [ -s "$tmp/bs-$b.dat" ] && bsp="$bsp${bsp:+, }'$tmp/bs-$b.dat' using 1:2 with linespoints lw 2 title 'copy, 16-byte words, $b'"
    done
    # one row per word width and access, one column per backend
    wb=$(backends_of "$data/stream.csv" | tr '\n' ' ')
    csvsel "$data/stream.csv" "sweep=word" word_bytes access gbs_median backend |
        awk -v bl="$wb" 'BEGIN { nb = split(bl, B, " ") }
            { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }; v[k, $4] = $3 }
            END { for (i = 1; i <= n; i++) { split(order[i], p, " "); line = sprintf("\"%dB %s\"", p[1], p[2])
                  for (j = 1; j <= nb; j++) line = line " " ((order[i], B[j]) in v ? v[order[i], B[j]] : "NaN")
                  print line } }' >"$tmp/word.dat"
    wp=""; j=1; for b in $wb; do j=$((j + 1)); wp="$wp${wp:+, }'$tmp/word.dat' using $j:xtic(1) title '$b'"; done
    [ -n "$bsp" ] && figure stream-block-size "set logscale x 2; set xlabel '$w_threads per $w_block'; set ylabel 'bandwidth [GB/s]'; set yrange [0:*]; set key inside bottom right box opaque; set title 'Copy bandwidth vs $w_block size'.\"\\n\".'$title_suffix'; plot $bsp"
    [ -s "$tmp/word.dat" ] && figure stream-word "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.7; set yrange [0:*]; set xlabel 'word width and access (one element per $w_thread, or grid-stride)'; set ylabel 'bandwidth [GB/s]'; set key inside top left box opaque; set title 'Copy bandwidth by word width and access'.\"\\n\".'$title_suffix'; plot $wp"
else note "no stream.csv: copy figures skipped"; fi

if [ -f "$data/transfer.csv" ]; then
    # one figure per backend (transfer, transfer-<other backend>): the
    # measured points and the fitted T(s) = latency + s / bandwidth from the
    # backend's stream-meta file
    b0=$(backends_of "$data/transfer.csv" | head -n 1)
    for b in $(backends_of "$data/transfer.csv"); do
        mf=$data/stream-meta.csv; fig=transfer
        [ "$b" = "$b0" ] || { mf=$data/stream-meta-$b.csv; fig=transfer-$b; }
        tp=""; c=0
        for dir in h2d d2h; do for mem in pinned pageable; do
            c=$((c + 1))
            csvsel "$data/transfer.csv" "backend=$b,direction=$dir,host_memory=$mem" bytes gbs_median | sort -g >"$tmp/tr-$b-$dir-$mem.dat"
            [ -s "$tmp/tr-$b-$dir-$mem.dat" ] || continue
            tp="$tp${tp:+, }'$tmp/tr-$b-$dir-$mem.dat' using 1:2 with points pt 7 ps 0.8 lc $c title '$dir $mem'"
            lat=$(metaval "$mf" "transfer_${dir}_${mem}_latency_us" 2>/dev/null); gbs=$(metaval "$mf" "transfer_${dir}_${mem}_gbs" 2>/dev/null)
            [ -n "$lat" ] && [ -n "$gbs" ] && awk -v g="$gbs" -v l="$lat" 'BEGIN { exit !(g ~ /^[0-9.]+$/ && g > 0 && l ~ /^-?[0-9.]+$/) }' &&
                tp="$tp, x / ((($lat) > 0 ? ($lat) : 0) * 1e3 + x / ($gbs)) with lines lw 2 lc $c title sprintf('  fit: %.1f us + s / %.1f GB/s', $lat, $gbs)"
        done; done
        [ -n "$tp" ] && figure "$fig" "set logscale x 10; set format x '%.0s%cB'; set xrange [*:*]; set samples 400; set yrange [0:*]; set xlabel 'transfer size s'; set ylabel 'bandwidth [GB/s]'; set key inside top left box opaque; set title 'Host <-> device transfers ($b)'.\"\\n\".'$title_suffix'; plot $tp"
    done
else note "no transfer.csv: transfer figure skipped"; fi

# ---- membench: probe time vs N, misalignment, occupancy, threads ---------
if [ -f "$data/membench.csv" ]; then
    mb=$data/membench.csv
    b0=$(backends_of "$mb" | head -n 1)
    # rows without a payload (files older than the ops column have none)
    plain=""; head -n 1 "$mb" | tr ',' '\n' | grep -qx ops && plain=",ops=0"
    wp=""
    for w in 2 4 8; do
        csvsel "$mb" "backend=$b0,sweep=words,word_bytes=$w,misaligned_reads=0,misaligned_writes=0" words ns_per_thread | sort -g >"$tmp/words-$w.dat"
        [ -s "$tmp/words-$w.dat" ] || continue
        wp="$wp${wp:+, }'$tmp/words-$w.dat' using 1:2 with points pt 7 title '$w-byte words'"
        fit=$(csvsel "$data/membench-fit.csv" "backend=$b0,fit=time_vs_words,word_bytes=$w" slope_ns intercept_ns 2>/dev/null | head -n 1)
        [ -n "$fit" ] && wp="$wp, $(echo "$fit" | awk '{print $1}')*x+$(echo "$fit" | awk '{print $2}') with lines dt 2 title 'fit, $w B'"
    done
    [ -n "$wp" ] && figure probe-words "set xlabel 'N, words read and written per $w_thread (one array each)'; set ylabel 'time per $w_thread [ns]'; set yrange [0:*]; set title 'Probe time vs N (aligned, $b0)'.\"\\n\".'$title_suffix'; plot $wp"
    mp=""
    for n in 19 27; do
        for s in reads writes both; do
            case $s in reads) x=misaligned_reads ;; *) x=misaligned_writes ;; esac
            # each point with its repetitions' range (ms_min..ms_max scaled
            # to ns per thread), so that noise is not read as a trend
            csvsel "$mb" "backend=$b0,sweep=misaligned_$s,words=$n,word_bytes=4" $x ns_per_thread ms_min ms_median ms_max |
                awk '$4 > 0 { print $1, $2, $2 * $3 / $4, $2 * $5 / $4 }' | sort -g >"$tmp/mis-$n-$s.dat"
            dt=1; pt=7; [ $n = 27 ] && { dt=2; pt=6; }
            case $s in reads) lc=1 ;; writes) lc=2 ;; *) lc=4 ;; esac
            [ -s "$tmp/mis-$n-$s.dat" ] && mp="$mp${mp:+, }'$tmp/mis-$n-$s.dat' using 1:2:3:4 with yerrorlines dt $dt pt $pt lc $lc lw 2 title 'N=$n, misaligned $s'"
        done
    done
    [ -n "$mp" ] && figure probe-misaligned "set xlabel 'misaligned words (read and/or written at index+1)'; set ylabel 'time per $w_thread [ns] (bars: fastest to slowest repetition)'; set yrange [0:*]; set title 'Cost of misaligned reads and writes ($b0, 4-byte words)'.\"\\n\".'$title_suffix'; plot $mp"
    op=""
    any_word="misaligned_reads=0,misaligned_writes=0$plain" # aligned, any word size
    aligned="word_bytes=4,$any_word"
    for bs in $(csvsel "$mb" "backend=$b0,sweep=occupancy" block_size | sort -gu); do
        csvsel "$mb" "backend=$b0,sweep=occupancy,block_size=$bs,$aligned" blocks_per_cu gbs_median | awk '$1 > 0' | sort -g >"$tmp/occ-$bs.dat"
        [ -s "$tmp/occ-$bs.dat" ] && op="$op${op:+, }'$tmp/occ-$bs.dat' using 1:2 with linespoints lw 2 title '$w_block $bs'"
    done
    if [ -z "$op" ]; then # OpenCL cannot force blocks per SM: by block size
        csvsel "$mb" "backend=$b0,sweep=occupancy,$aligned" block_size gbs_median | sort -g >"$tmp/occ-bs.dat"
        [ -s "$tmp/occ-bs.dat" ] && figure probe-occupancy "unset key; set logscale x 2; set xlabel '$w_threads per $w_block (as many $w_blocks as fit)'; set ylabel 'bandwidth [GB/s]'; set yrange [0:*]; set title 'N=19 probe vs $w_block size ($b0, 4-byte words)'.\"\\n\".'$title_suffix'; plot '$tmp/occ-bs.dat' using 1:2 with linespoints lw 2 notitle"
    fi
    [ -n "$op" ] && figure probe-occupancy "set logscale x 2; set xlabel 'resident $w_blocks per $w_sm (forced)'; set ylabel 'bandwidth [GB/s]'; set title 'N=19 probe vs occupancy ($b0, 4-byte words)'.\"\\n\".'$title_suffix'; plot $op"
    # one curve per backend and word size at as many blocks as fit, and the
    # 4-byte curves at fewer blocks per SM (forced, where measured) thin
    tp=""
    for b in $(backends_of "$mb"); do for w in 2 4 8; do
        csvsel "$mb" "backend=$b,sweep=threads,word_bytes=$w,blocks_per_cu_requested=0,$any_word" threads ms_median | awk '{print $1, $2*1000}' | sort -g >"$tmp/thr-$b-$w.dat"
        [ -s "$tmp/thr-$b-$w.dat" ] && tp="$tp${tp:+, }'$tmp/thr-$b-$w.dat' using 1:2 with linespoints lw 2 title '$b, $w-byte words'"
    done
    for k in $(csvsel "$mb" "backend=$b,sweep=threads,word_bytes=4" blocks_per_cu_requested | sort -gu | awk '$1 > 0'); do
        csvsel "$mb" "backend=$b,sweep=threads,word_bytes=4,blocks_per_cu_requested=$k,$aligned" threads ms_median occupancy | awk '{print $1, $2*1000, $3}' | sort -g >"$tmp/thr-$b-k$k.dat"
        occ=$(awk 'NR == 1 {printf "%.0f", $3 * 100}' "$tmp/thr-$b-k$k.dat")
        [ -s "$tmp/thr-$b-k$k.dat" ] && tp="$tp, '$tmp/thr-$b-k$k.dat' using 1:2 with lines lw 1 dt 2 title '$b, 4-byte, $k $w_blocks/$w_sm ($occ % occupancy)'"
    done; done
    [ -n "$tp" ] && figure probe-threads "set logscale xy 2; set format x '%.0b%B'; set key inside top left box opaque; set xlabel '$w_threads per launch (cells)'; set ylabel 'time per launch [us]'; set title 'N=19 probe launched back to back vs $w_thread count'.\"\\n\".'$title_suffix'; plot $tp"
    # what misalignment and the collision payload cost per launch, over the
    # aligned probe, as the working set leaves the L2 (4-byte words, first backend)
    lp=""
    if [ -n "$plain" ]; then
        csvsel "$mb" "backend=$b0,sweep=threads,word_bytes=4,blocks_per_cu_requested=0,$aligned" threads ms_median | sort -g >"$tmp/l2-base.dat"
        for v in "misaligned_reads=0,misaligned_writes=0,ops=151:collision payload (151 operations)" \
                 "misaligned_reads=10,misaligned_writes=0,ops=0:10 misaligned reads" \
                 "misaligned_reads=0,misaligned_writes=10,ops=0:10 misaligned writes" \
                 "misaligned_reads=10,misaligned_writes=10,ops=0:10 misaligned reads and writes"; do
            sel=${v%%:*}; name=${v#*:}; f="$tmp/l2-$(echo "$sel" | tr -c 'a-z0-9' _).dat"
            csvsel "$mb" "backend=$b0,sweep=threads,word_bytes=4,blocks_per_cu_requested=0,$sel" threads ms_median | sort -g |
                awk 'NR == FNR { base[$1] = $2; next } ($1 in base) && base[$1] > 0 { print $1, $2 / base[$1] }' "$tmp/l2-base.dat" - >"$f"
            [ -s "$f" ] && lp="$lp${lp:+, }'$f' using 1:2 with linespoints lw 2 title '$name'"
        done
    fi
    [ -n "$lp" ] && figure probe-l2 "set logscale x 2; set format x '%.0b%B'; set key inside top left box opaque; set xlabel '$w_threads per launch (cells); 19 x 4 B each way per $w_thread'; set ylabel 'time per launch / aligned probe'; set title 'Misalignment and arithmetic in the $w_cache and in DRAM ($b0, launched back to back)'.\"\\n\".'$title_suffix'; plot $lp, 1 with lines lc 'black' dt 3 notitle"
    pp=""
    for w in 4 8; do
        [ -n "$plain" ] || break
        { csvsel "$mb" "backend=$b0,sweep=words,words=19,word_bytes=$w,$aligned" ops ns_per_thread | head -n 1
          csvsel "$mb" "backend=$b0,sweep=payload,word_bytes=$w" ops ns_per_thread; } | sort -g >"$tmp/pay-$w.dat"
        [ "$(wc -l <"$tmp/pay-$w.dat")" -ge 2 ] && pp="$pp${pp:+, }'$tmp/pay-$w.dat' using 1:2 with linespoints lw 2 title '$w-byte words ($([ $w = 4 ] && echo float || echo double))'"
    done
    [ -n "$pp" ] && figure probe-payload "set xlabel 'arithmetic operations per $w_thread (FMA counted once)'; set ylabel 'time per $w_thread [ns]'; set yrange [0:*]; set key inside top left box opaque; set title 'N=19 probe with a payload vs operations ($b0; the D3Q19 BGK collision: 150)'.\"\\n\".'$title_suffix'; plot $pp"
else note "no membench.csv: probe figures skipped"; fi

# ---- geometry sweep: a time loop's swapped lattices against the same ones --
geo=$data/membench-geometry.csv
if [ -f "$geo" ] && head -n 1 "$geo" | grep -q ',swapped'; then
    # per launch geometry (block, blocks per SM, access width) the aligned
    # payload-free probe swapped over the same arrays at each thread count,
    # against the working set (two arrays of 19 words per thread)
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) ix[$i] = i; next }
        $ix["sweep"] == "geometry" && $ix["misaligned_reads"] == 0 && $ix["misaligned_writes"] == 0 &&
        $ix["ops"] == 0 && $ix["in_place"] == 0 {
            g = "b" $ix["block_size"] "-k" $ix["blocks_per_cu_requested"] "-w" $ix["word_bytes"]
            key = g " " 2 * 19 * $ix["word_bytes"] * $ix["threads"]
            t[key, $ix["swapped"]] = $ix["ms_median"]; keys[key] = 1
        }
        END { for (k in keys) if ((k, 0) in t && (k, 1) in t) print k, t[k, 1] / t[k, 0] }' "$geo" |
        sort -k1,1 -k2,2g >"$tmp/swap.dat"
    sp=""; i=0
    for g in $(cut -d' ' -f1 "$tmp/swap.dat" | uniq); do
        i=$((i + 1)); [ $i -le 8 ] || break
        awk -v g="$g" '$1 == g { print $2, $3 }' "$tmp/swap.dat" >"$tmp/swap-$i.dat"
        [ "$(wc -l <"$tmp/swap-$i.dat")" -ge 2 ] && sp="$sp${sp:+, }'$tmp/swap-$i.dat' using 1:2 with linespoints lw 2 title '$g'"
    done
    l2line=""; [ "$l2" -gt 0 ] 2>/dev/null && l2line="set arrow from $l2, graph 0 to $l2, graph 1 nohead dt 2 lc rgb 'gray40'; set label 'L2 $(awk -v b="$l2" 'BEGIN{printf "%.0f MB", b/1e6}') ' at $l2, graph 0.1 right offset -0.3,0;"
    [ -n "$sp" ] && figure probe-swap "set logscale x 10; set format x '%.0s%cB'; set key outside right top box opaque; set xlabel 'working set (two arrays of 19 words per $w_thread)'; set ylabel 'swapped / same arrays (time per launch)'; set title 'Arrays swapped at every launch (as a time loop does) over the same arrays: N=19 probe, aligned'.\"\\n\".'$title_suffix'; $l2line plot $sp, 1 with lines lc 'black' dt 3 notitle"
fi

if [ -f "$data/warps.csv" ]; then
    cfg=$(csvsel "$data/warps.csv" "phase=launch" config | head -n 1)
    csvsel "$data/warps.csv" "config=$cfg,phase=launch" rank q1_ns median_ns q3_ns | sort -g >"$tmp/warps.dat"
    ph=$(for p in read write; do csvsel "$data/warps.csv" "config=$cfg,phase=$p" median_ns | head -n 1 | awk -v p=$p '{printf "%s %.0f ns  ", p, $1}'; done)
    [ -s "$tmp/warps.dat" ] && figure warp-launch "set xlabel 'warp rank on its SM (order of start)'; set ylabel 'start after the SM''s first warp [ns]'; set title 'Launch delay by warp rank ($cfg)'.\"\\n\".'$title_suffix'; set label 'median phase: $ph' at graph 0.02, graph 0.95; plot '$tmp/warps.dat' using 1:2:4 with filledcurves fs transparent solid 0.3 title 'quartiles', '' using 1:3 with lines lw 2 title 'median'"
else note "no warps.csv (OpenCL has no per-warp clock): warp figure skipped"; fi

if [ -f "$data/launch.csv" ]; then
    csvsel "$data/launch.csv" "" backend mode us_median us_min us_max | awk '{gsub(/_/, " ", $2); printf "\"%s\\n%s\" %s %s %s\n", $1, $2, $3, $4, $5}' >"$tmp/launch.dat"
    [ -s "$tmp/launch.dat" ] && figure launch "unset key; set style fill solid 0.6; set boxwidth 0.6; set yrange [0:*]; set offsets 0.5, 0.5, graph 0.1, 0; set bmargin 4; set xtics scale 0; set ylabel 'time per launch [us]'; set title 'Empty-kernel launch latency (median, bars min to max)'.\"\\n\".'$title_suffix'; plot '$tmp/launch.dat' using 0:2:xtic(1) with boxes lc 1, '' using 0:2:3:4 with yerrorbars lc rgb 'black' ps 0, '' using 0:4:(sprintf('%.2f us',\$2)) with labels offset 0,0.8"
else note "no launch.csv: launch figure skipped"; fi

# ---- drift: the threads sweep's probes again after the kernels -------------
if [ -f "$data/drift.csv" ]; then
    dp=""; i=0
    for b in $(backends_of "$data/drift.csv"); do
        i=$((i + 1))
        # each probe a point, shifted a little per backend so both show
        csvsel "$data/drift.csv" "backend=$b" threads change_pct | awk -v i=$i '{ print $1 * (1 + 0.06 * (i - 1)), $2 }' >"$tmp/drift-$b.dat"
        [ -s "$tmp/drift-$b.dat" ] && dp="$dp${dp:+, }'$tmp/drift-$b.dat' using 1:2 with points pt $((5 + 2 * i)) ps 1.2 title '$b'"
    done
    [ -n "$dp" ] && figure drift "set logscale x 2; set format x '%.0b%B'; set xlabel '$w_threads per launch (cells)'; set ylabel 'recheck / first run - 1 [%]'; set title 'Probes measured again after the kernels: change from the first run (every variant)'.\"\\n\".'$title_suffix'; plot $dp, 0 with lines lc 'black' dt 3 notitle"
else note "no drift.csv (make bench measures the probes again at its end): drift figure skipped"; fi

# ---- lbmkernels + model: MLUPS vs size, prediction, roofline --------------
# the one-device rows of a file that also holds multi-rank ones (ranks.sh)
one_device() { head -n 1 "$1" | tr ',' '\n' | grep -qx scaling && echo ",scaling=none"; }
# A curve is one launch shape: the most common cells per thread of its rows
# (none where the file has no such column), and one row per lattice (the
# best measured) where a file has several, so that no curve zig-zags
# between two shapes.
most_common_cpt() { # FILE CONDITION
    head -n 1 "$1" | grep -q '\(^\|,\)cells_per_thread\(,\|$\)' || return 0
    csvsel "$1" "$2" cells_per_thread | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'
}
one_per_lattice() { sort -k1,1g -k2,2gr | awk '!seen[$1]++'; }
cpt_short() { # CPT: ", 2 cells each" (per thread or work-item), ", a row each", or nothing (no such column)
    case "$1" in "") ;; 0) echo ", a row each" ;; 1) echo ", 1 cell each" ;; *) echo ", $1 cells each" ;; esac
}
if [ -f "$data/lbm.csv" ]; then
    src=$data/lbm.csv; y=mlups_median
    [ -f "$data/model.csv" ] && { src=$data/model.csv; y=measured_mlups; }
    one=$(one_device "$src")
    ws=""; [ "$src" = "$data/model.csv" ] && head -n 1 "$src" | tr ',' '\n' | grep -qx roofline_ws_mlups && ws=1
    # a scheme is a kernel: with non-temporal stores (column stores, where
    # the backend has them) it is another curve, "<scheme>-nt"
    has_stores=""; head -n 1 "$src" | tr ',' '\n' | grep -qx stores && has_stores=1
    kernels_of() { # BACKEND PRECISION: "scheme:stores" in the order drawn
        for s in push pull split aa; do
            if [ -n "$has_stores" ]; then
                for st in normal nontemporal; do
                    [ -n "$(csvsel "$src" "backend=$1,scheme=$s,precision=$2,stores=$st$one" cells | head -n 1)" ] && echo "$s:$st"
                done
            else
                [ -n "$(csvsel "$src" "backend=$1,scheme=$s,precision=$2$one" cells | head -n 1)" ] && echo "$s:"
            fi
        done | awk -F: '{ print ($2 == "normal" || $2 == "") ? 0 : 1, NR, $0 }' | sort -k1,1n -k2,2n | cut -d' ' -f3
    }
    # one colour and mark per kernel: measured solid with its marks,
    # predicted dashed in the same colour (Okabe-Ito, told apart in grey too)
    style_of() { # KERNEL NAME
        case $1 in
        push) echo "lc rgb '#0072B2' pt 7" ;; pull) echo "lc rgb '#D55E00' pt 5" ;;
        split) echo "lc rgb '#009E73' pt 9" ;; aa) echo "lc rgb '#E69F00' pt 13" ;;
        pull-nt) echo "lc rgb '#CC79A7' pt 4" ;; split-nt) echo "lc rgb '#56B4E9' pt 8" ;;
        *) echo "lc rgb '#555555' pt 6" ;;
        esac
    }
    for b in $(backends_of "$data/lbm.csv"); do for p in fp32 fp64 fp16s; do
        lp=""; roof=""; marks=""; flagged=""; spilled=""; dats=""
        for k in $(kernels_of "$b" "$p"); do
            s=${k%%:*}; st=${k#*:}
            kn=$s; [ "$st" = nontemporal ] && kn=$s-nt
            stc=""; [ -n "$st" ] && stc=",stores=$st"
            # the size sweep: each kernel's most common block size
            bs=$(csvsel "$src" "backend=$b,scheme=$s,precision=$p$stc$one" block_size | sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
            [ -n "$bs" ] || continue
            cond="backend=$b,scheme=$s,precision=$p$stc,block_size=$bs$one"
            cpt=$(most_common_cpt "$src" "$cond")
            cond="$cond${cpt:+,cells_per_thread=$cpt}"
            d=$tmp/lbm-$b-$p-$kn.dat
            # the x axis is the lattice's edge, N of N^3 (the cube root of
            # its cells where it is not a cube)
            if [ "$src" = "$data/model.csv" ] && [ -n "$ws" ]; then
                # a flagged point: 1 where measured or predicted lies above the
                # roofline of its working set, or the kernel spills (model
                # validate's flags column)
                csvsel "$src" "$cond" cells measured_mlups full_mlups roofline_mlups roofline_ws_mlups flags |
                    awk '{ print $1, $2, $3, $4, $5, ($6 ~ /measured>/), ($6 ~ /predicted>/), ($6 ~ /spills/) }' | one_per_lattice
            elif [ "$src" = "$data/model.csv" ]; then
                csvsel "$src" "$cond" cells measured_mlups full_mlups roofline_mlups | one_per_lattice
            else
                csvsel "$src" "$cond" cells mlups_median | one_per_lattice
            fi | awk '{ $1 = sprintf("%.6g", $1 ^ (1 / 3)); print }' >"$d"
            [ -s "$d" ] || continue
            dats="$dats $d"
            sty=$(style_of "$kn")
            lp="$lp${lp:+, }'$d' using 1:2 with linespoints lw 2 dt 1 $sty title '$kn: $w_block $bs$(cpt_short "$cpt")'"
            [ "$src" = "$data/model.csv" ] && lp="$lp, '' using 1:3 with lines dt 2 lw 2 $sty notitle"
            # the roofline: A-A's where drawn (on a CPU that writes-allocates
            # the others' lies at two thirds of it), else the first kernel's
            if [ "$src" = "$data/model.csv" ] && { [ -z "$roof" ] || [ "$kn" = aa ]; }; then
                roof="'$d' using 1:4 with lines lw 3 lc rgb 'black' title 'roofline, copy bandwidth ($kn)'"
                # the roofline of each lattice's working set (a cache's plateau
                # where the lattices fit, the memory's beyond)
                [ -n "$ws" ] && roof="$roof, '' using 1:5 with lines lw 2 dt 3 lc rgb 'black' title 'roofline of the working set ($kn)'"
            fi
            # the points above their working set's roofline, and spills: a key
            # entry only where there is such a point
            if [ -n "$ws" ]; then
                awk '$6 > 0 { f = 1 } END { exit !f }' "$d" && {
                    marks="$marks, '$d' using 1:(\$6 > 0 ? \$2 : 1/0) with points pt 6 ps 2.2 lw 2 lc rgb 'red' $([ -z "$flagged" ] && echo "title 'measured above working-set roofline'" || echo notitle)"; flagged="${flagged}m"; }
                awk '$7 > 0 { f = 1 } END { exit !f }' "$d" && {
                    marks="$marks, '$d' using 1:(\$7 > 0 ? \$3 : 1/0) with points pt 4 ps 2.2 lw 2 lc rgb 'red' $(case $flagged in *p*) echo notitle ;; *) echo "title 'predicted above working-set roofline'" ;; esac)"; flagged="${flagged}p"; }
                awk '$8 > 0 { f = 1 } END { exit !f }' "$d" && {
                    marks="$marks, '$d' using 1:(\$8 > 0 ? \$3 : 1/0) with points pt 8 ps 2.2 lw 2 lc rgb 'orange' $([ -z "$spilled" ] && echo "title 'spills (local memory left out)'" || echo notitle)"; spilled=1; }
            fi
        done
        [ -n "$lp" ] || continue
        # the kernels, the rooflines, then the flagged points on top
        [ -n "$roof" ] && lp="$lp, $roof"
        lp="$lp$marks"
        # the lattices on the axis: N^3 at the powers of two between the
        # smallest and the largest measured
        xt=$(cat $dats | awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $1 > hi { hi = $1 }
            END { t = ""; for (e = 1; e <= hi * 1.01; e *= 2) if (e >= lo * 0.99) t = t (t == "" ? "" : ", ") sprintf("\"%d³\" %d", e, e)
                  printf "set xrange [%g:%g]; %s\n", lo / 1.08, hi * 1.08, (t == "" ? "" : "set xtics (" t ");") }')
        what="measured (solid), predicted (dashed)"; [ "$src" = "$data/model.csv" ] || what="measured"
        # the key under the plot in two columns, its rows' height added to
        # the bottom margin
        nk=$(printf '%s\n' "$lp" | grep -o " title '" | wc -l)
        rows=$(( (nk + 1) / 2 ))
        figure "lbm-$b-$p" "set logscale x 2; $xt set xlabel 'lattice (N³ cells, log scale)'; set ylabel 'MLUPS (million lattice updates / s)'; set yrange [0:*]; set key outside below center horizontal Left reverse box opaque maxrows $rows maxcols 2 width 1; set bmargin $(awk -v r=$rows 'BEGIN { print 4 + 1.3 * r }'); set title 'D3Q19 BGK $p ($b): $what'.\"\\n\".'$title_suffix'; plot $lp"
    done; done
    nb=$(backends_of "$data/lbm.csv" | wc -l)
    if [ "$nb" -gt 1 ]; then
        # two backends: the best MLUPS of each kernel (scheme, with -nt for
        # non-temporal stores) and precision at the largest lattice both measured
        if [ -n "$has_stores" ]; then
            csvsel "$data/lbm.csv" "$(one_device "$data/lbm.csv" | cut -c2-)" backend scheme precision cells mlups_median stores
        else
            csvsel "$data/lbm.csv" "$(one_device "$data/lbm.csv" | cut -c2-)" backend scheme precision cells mlups_median
        fi | awk '{ if ($6 == "nontemporal") $2 = $2 "-nt"; print $1, $2, $3, $4, $5 }' >"$tmp/all.dat"
        # per scheme and precision: the smallest of the backends' largest lattices
        awk '{k=$2" "$3; b=$1" "k; if ($4 > mx[b]) mx[b] = $4; key[b] = k}
             END {for (b in mx) {k = key[b]; if (!(k in big) || mx[b] < big[k]) big[k] = mx[b]}; for (k in big) print k, big[k]}' \
            "$tmp/all.dat" >"$tmp/big.dat"
        cols=$(backends_of "$data/lbm.csv" | sort | tr '\n' ' ')
        c1=$(echo $cols | awk '{print $1}'); c2=$(echo $cols | awk '{print $2}')
        # their ratio, in percent off 1: the backends differ by a few percent,
        # which bars of MLUPS on a 0..30,000 axis do not show. One row per
        # kernel and precision, grouped by precision: its name and lattice
        # (N^3 where cubic) on the left, the two MLUPS on the right, the
        # percentage at the bar's end, so that no two labels share a place
        awk -v c1="$c1" -v c2="$c2" 'NR == FNR { big[$1 " " $2] = $3; next }
            $4 == big[$2 " " $3] { k = $2 " " $3; if ($1 == c1 && $5 > a[k]) a[k] = $5; if ($1 == c2 && $5 > b[k]) b[k] = $5 }
            END { split("fp32 fp64 fp16s", P, " "); for (i = 1; i <= 3; i++) rank[P[i]] = i
                  split("push pull split aa pull-nt split-nt", S, " "); for (i = 1; i <= 6; i++) srank[S[i]] = i
                  for (k in a) if ((k in b) && a[k] > 0) { split(k, s, " "); n = big[k]; e = int(n ^ (1 / 3) + 0.5)
                      lat = (e * e * e == n) ? e "³" : n " cells"
                      printf "%d %d \"%s %s, %s\" %.3f \"%s %.0f, %s %.0f\"\n", (s[2] in rank ? rank[s[2]] : 9), (s[1] in srank ? srank[s[1]] : 9),
                          s[1], s[2], lat, 100 * (b[k] / a[k] - 1), c1, a[k], c2, b[k] } }' \
            "$tmp/big.dat" "$tmp/all.dat" | sort -k1,1n -k2,2n | cut -d' ' -f3- >"$tmp/vs.dat"
        nvs=$(wc -l <"$tmp/vs.dat")
        [ "$nvs" -gt 0 ] && figure lbm-backends "set key off; set style fill solid 0.7; set xlabel '$c2 / $c1 - 1 [%] (best MLUPS, same lattice)'; set yrange [$nvs - 0.5:-0.5]; set ytics scale 0 font ',10'; set y2range [$nvs - 0.5:-0.5]; set y2tics scale 0 font ',10'; set lmargin 20; set rmargin 32; set grid xtics noytics; set offsets graph 0.12, graph 0.12, 0, 0; set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb 'black'; set title 'The same kernel text on $c1 and $c2 (largest lattice both measured; right: both MLUPS)'.\"\\n\".'$title_suffix'; plot '$tmp/vs.dat' using (\$2 / 2):0:(abs(\$2) / 2):(0.35):ytic(1) with boxxyerror lc rgb '#4070b0', '' using 2:0:y2tic(3) axes x1y2 with points ps 0 notitle, '' using 2:0:(\$2 >= 0 ? sprintf('%+.2f %%', \$2) : '') with labels left offset char 0.6,0 font ',9', '' using 2:0:(\$2 < 0 ? sprintf('%+.2f %%', \$2) : '') with labels right offset char -0.6,0 font ',9'"
    fi
else note "no lbm.csv: LBM figures skipped"; fi

# ---- several devices: scaling against ranks, the interconnect -------------
. "$here/ranks.sh"

# ---- report ----------------------------------------------------------------
# The model's two errors (model summary prints the same from model.csv):
# per backend and precision, from 128^3 and below, points, mean and worst
# |error| at the kernel's launch (error_pct) and before the kernel
# (before_kernel_error_pct, "-" in a model.csv written before it).
two_errors() { # MODEL_CSV
    sel="$(head -n 1 "$1" | tr ',' '\n' | grep -qx ranks && echo ranks=1)"
    bk=error_pct; head -n 1 "$1" | tr ',' '\n' | grep -qx before_kernel_error_pct && bk=before_kernel_error_pct
    csvsel "$1" "$sel" backend precision cells error_pct $bk | awk -v has="$bk" '
        function a(x) { return x < 0 ? -x : x }
        { k = $1 " " $2 " " ($3 >= 2097152 ? ">=128^3" : "<128^3"); if (!(k in n)) ord[++m] = k; n[k]++
          s[k] += a($4); if (a($4) > w[k]) w[k] = a($4); t[k] += a($5); if (a($5) > v[k]) v[k] = a($5) }
        END { printf "\nmodel error, |error| %% mean / worst: at the kernel'"'"'s launch (probes measured there read), before the kernel (none measured at its own launch and lattice)\n"
              printf "%-7s %-5s %-8s %6s %17s %17s\n", "backend", "prec", "lattices", "points", "at launch", "before kernel"
              for (i = 1; i <= m; i++) { k = ord[i]; split(k, f, " ")
                  printf "%-7s %-5s %-8s %6d %7.2f / %7.2f", f[1], f[2], f[3], n[k], s[k] / n[k], w[k]
                  if (has == "error_pct") printf " %17s\n", "-"; else printf " %7.2f / %7.2f\n", t[k] / n[k], v[k] } }'
}
summary=""
[ -x model/model ] && [ -f "$data/model.csv" ] && summary=$(model/model summary --data "$data" 2>/dev/null)
if [ -z "$summary" ] && [ -f "$data/model.csv" ]; then
    # no model binary: the same table from model.csv, the largest lattice of
    # each backend, scheme and precision
    summary=$(csvsel "$data/model.csv" "$(one_device "$data/model.csv" | cut -c2-)" backend scheme precision cells measured_mlups full_mlups roofline_mlups error_pct |
        awk '{ k = $1 " " $2 " " $3; if (!(k in c) || $4 > c[k] || ($4 == c[k] && $5 > m[k])) { c[k] = $4; m[k] = $5; r[k] = $0 }; if (!(k in o)) o[k] = ++n; ord[n] = k }
             END { printf "%-7s %-6s %-5s %12s %10s %10s %10s %11s %8s\n", "backend", "scheme", "prec", "cells", "measured", "predicted", "roofline", "% roofline", "error%"
                   for (i = 1; i <= n; i++) { split(r[ord[i]], f, " ")
                       printf "%-7s %-6s %-5s %12s %10.1f %10.1f %10.1f %10.1f%% %+8.2f\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7], (f[7] > 0 ? 100 * f[5] / f[7] : 0), f[8] } }')
    summary="$summary
$(two_errors "$data/model.csv")"
fi

# The N = 19 aligned probe's measured time per thread (membench.csv's words
# sweep), not the line fitted through all N: that line's intercept can be
# negative, so its value at 19 is not what was measured.
n19_measured_ns() { # BACKEND
    c="backend=$1,sweep=words,words=19,word_bytes=4,misaligned_reads=0,misaligned_writes=0"
    # older folders have no ops column (no payload probes)
    { csvsel "$data/membench.csv" "$c,ops=0" ns_per_thread 2>/dev/null || csvsel "$data/membench.csv" "$c" ns_per_thread 2>/dev/null; } |
        head -n 1
}
# KIND SLOPE ALIGNED_NS: one more misaligned word's cost, signed once; a
# slope at or below zero is no measured cost, said as such.
misaligned_line() {
    awk -v k="$1" -v s="$2" -v t="$3" 'BEGIN {
        if (s <= 0) { printf "- one more misaligned word (%s, N = 19): no cost measured (fitted slope %.3g ns per thread)\n", k, s; exit }
        printf "- one more misaligned word (%s, N = 19): %.6g ns more per thread", k, s
        if (t > 0) printf " (%.2g %% of the aligned time)", 100 * s / t
        printf "\n" }'
}
# A write's cost over a read's, only where both were measured to cost
# something: a slope above zero whose t statistic, from r^2 over its points,
# is at least 2 (core/stats.h, lbp_fit_slope_clear); a ratio of a
# noise-level or negative slope means nothing, and is said to be n/a.
write_read_ratio_line() { # BACKEND
    rd=$(csvsel "$mf" "backend=$1,fit=misaligned_reads,word_bytes=4,words=19" slope_ns r2 points 2>/dev/null | head -n 1)
    wr=$(csvsel "$mf" "backend=$1,fit=misaligned_writes,word_bytes=4,words=19" slope_ns r2 points 2>/dev/null | head -n 1)
    [ -n "$rd" ] && [ -n "$wr" ] && awk -v r="$rd" -v w="$wr" '
    function clear(s, r2, n) { return s > 0 && (n < 3 || r2 >= 1 || (r2 > 0 && r2 * (n - 2) / (1 - r2) >= 4)) }
    BEGIN { split(r, a, " "); split(w, b, " ")
        if (!clear(a[1], a[2], a[3])) { print "- misaligned write / misaligned read cost ratio: n/a (the misaligned read extra is within noise)"; exit }
        if (!clear(b[1], b[2], b[3])) { print "- misaligned write / misaligned read cost ratio: n/a (the misaligned write extra is within noise)"; exit }
        printf "- a misaligned write costs %.3g times a misaligned read (%.3g against %.3g ns per thread)\n", b[1] / a[1], b[1], a[1] }'
}

# The numbers a report quotes, one line each (markdown bullets).
key_figures() {
    bc=$(meta best_copy_gbs); dd=$(meta dtod_gbs); th=$(meta theoretical_gbs)
    if [ -n "$bc" ]; then
        pct=$(awk -v b="$bc" -v t="${th:-0}" 'BEGIN { if (t > 0) printf ", %.0f %% of the theoretical %.0f GB/s", 100 * b / t, t }')
        echo "- best copy bandwidth: **$bc GB/s**$pct ($(meta best_copy_config))"
    fi
    [ -n "$dd" ] && echo "- driver device-to-device copy: $dd GB/s"
    lc=$(meta likwid_copy_gbs 2>/dev/null) && [ -n "$lc" ] &&
        echo "- likwid-bench copy $lc GB/s, copy_mem $(meta likwid_copy_mem_gbs) GB/s (stores pay a write-allocate: $(meta write_allocate)$(r=$(meta write_allocate_ratio 2>/dev/null) && [ -n "$r" ] && echo ", copy_mem / copy $r over $(meta write_allocate_samples) samples$( [ "$(meta write_allocate_close)" = 1 ] && echo ', close')"))"
    mf=$data/membench-fit.csv
    if [ -f "$mf" ]; then
        b0=$(backends_of "$mf" | head -n 1)
        t19=$(n19_measured_ns "$b0")
        [ -n "$t19" ] && echo "- N = 19 probe, aligned, 4-byte words ($b0), measured: $t19 ns per thread$(v=$(metaval "$data/membench-meta.csv" aligned_n19_gbs 2>/dev/null) && echo " ($v GB/s)")"
        for k in reads writes both; do
            sl=$(csvsel "$mf" "backend=$b0,fit=misaligned_$k,word_bytes=4,words=19" slope_ns 2>/dev/null | head -n 1)
            [ -n "$sl" ] && misaligned_line "$k" "$sl" "${t19:-0}"
        done
        write_read_ratio_line "$b0"
    fi
    [ -f "$data/launch.csv" ] && csvsel "$data/launch.csv" "" backend mode us_median |
        awk '{ gsub(/_/, " ", $2); l[$1] = l[$1] (l[$1] == "" ? "" : ", ") $2 " " $3 " us"; if (!($1 in o)) ord[++n] = $1; o[$1] = 1 }
             END { for (i = 1; i <= n; i++) printf "- empty-kernel launch (%s): %s\n", ord[i], l[ord[i]] }'
    # a CPU device's memory is the host's: no transfer to quote (older
    # folders hold a fit of a copy within one memory); a fitted latency
    # below zero is no time
    if [ "$(meta kind)" = cpu ]; then
        echo "- host<->device transfers: not measured on this backend (a cpu device's memory is the host's)"
    else for d in h2d d2h; do
        lat=$(meta "transfer_${d}_pinned_latency_us" 2>/dev/null); g=$(meta "transfer_${d}_pinned_gbs" 2>/dev/null)
        [ -n "$lat" ] && [ -n "$g" ] && awk -v d="$d" -v l="$lat" -v g="$g" 'BEGIN {
            if (l + 0 < 0) printf "- %s pinned transfer: latency n/a (fitted %s us: within noise of 0), s / %s GB/s\n", d, l, g
            else printf "- %s pinned transfer: %s us + s / %s GB/s\n", d, l, g }'
    done; fi
    ranks_key_figures
}
keys=$(key_figures)
# A QUICK run says so at the top of the report (the meta files keep each
# tool's command line).
quick=""
grep -qs '^command,.* --quick' "$data"/*-meta*.csv &&
    quick="QUICK run: fewer sizes, block sizes and repetitions, smaller arrays (a CPU's may stay in its last-level cache); its figures do not compare with a full run's."
{
    echo "# lbmprobe report: $device"
    echo
    echo "Measured $date. Data: \`$data/\` (CSV, format in \`data/FORMAT.md\`); how to read each figure: \`plots/README.md\`."
    [ -n "$quick" ] && { echo; echo "**$quick**"; }
    echo
    echo "$keys"
    if [ -n "$summary" ]; then
        echo; echo "## Measured vs predicted (each scheme at the lattice every backend measured, and any larger one)"; echo; echo '```'; echo "$summary"; echo '```'
        echo; echo "The model error table gives two errors for every point: *at the kernel's launch* (the full prediction, which may read probes measured at the kernel's own launch and lattice: a diagnosis of a kernel that exists) and *before the kernel* (none of them: the prediction for a kernel not yet written). See \`doc/model.md\`, \"Validation: two errors\"."
    fi
    echo
    echo "## Figures"
    echo
    for f in $made; do echo "![$f]($f.png)"; echo; done
} >"$out/report.md"

# One page: the four figures a report needs, and the summary table.
# The LBM figures of whatever backends the data hold (the first's first),
# by precision, FP32 first.
lbm_backends=$(backends_of "$data/lbm.csv" 2>/dev/null)
b1=$(echo "$lbm_backends" | head -n 1)
candidates="stream-size probe-misaligned lbm-$b1-fp32"
for b in $lbm_backends; do candidates="$candidates ranks-weak-$b-fp32"; done
for p in fp32 fp64 fp16s; do for b in $lbm_backends; do candidates="$candidates lbm-$b-$p"; done; done
pick=""; for f in $candidates launch probe-threads; do
    case " $pick " in *" $f "*) continue ;; esac
    case " $made " in *" $f "*) [ -f "$out/$f.png" ] && pick="$pick $f" ;; esac
done
set -- $pick
if [ $# -gt 0 ]; then
    {
        echo "set terminal pdfcairo noenhanced size 11in,8.5in font 'Sans,9'"
        echo "set output '$out/report.pdf'"
        echo "set multiplot title 'lbmprobe: $device ($date)${quick:+ - QUICK run, not comparable with a full run}' font ',14'"
        echo "unset key; unset tics; unset border; set lmargin 0; set rmargin 0; set tmargin 0; set bmargin 0"
        i=0
        for f in "$@"; do
            [ $i -ge 4 ] && break
            x=$(awk -v i=$i 'BEGIN{print (i % 2) * 0.5}'); y=$(awk -v i=$i 'BEGIN{print 0.62 - int(i / 2) * 0.31}')
            echo "set origin $x,$y; set size 0.5,0.31; plot '$out/$f.png' binary filetype=png with rgbimage notitle"
            i=$((i + 1))
        done
        if [ -n "$summary$keys" ]; then
            # the summary table on the left, the key figures on the right
            echo "set origin 0,0; set size 1,0.3; set xrange [0:1]; set yrange [0:1]"
            # every line of the summary fits: the step and font shrink with
            # its length (the area is 0.3 of 8.5 in high)
            n=0; lines=$(echo "$summary" | wc -l)
            step=$(awk -v l="$lines" 'BEGIN { s = 0.92 / (l + 1); print (s < 0.045 ? s : 0.045) }')
            pt=$(awk -v s="$step" 'BEGIN { p = s * 0.3 * 8.5 * 72 * 0.85; printf "%.1f", (p < 8 ? p : 8) }')
            echo "$summary" | while IFS= read -r line; do
                n=$((n + 1))
                printf "set label %d \"%s\" at 0.03,%s font 'Monospace,%s'\n" "$n" "$(echo "$line" | sed 's/"/\\"/g')" \
                    "$(awk -v n=$n -v s="$step" 'BEGIN{print 0.95 - n * s}')" "$pt"
            done
            n=0
            echo "$keys" | sed 's/^- //; s/\*\*//g' | while IFS= read -r line; do
                n=$((n + 1))
                printf "set label %d \"%s\" at 0.52,%s font 'Sans,8'\n" "$((n + 100))" "$(echo "$line" | sed 's/"/\\"/g')" \
                    "$(awk -v n=$n 'BEGIN{print 0.95 - n * 0.06}')"
            done
            echo "plot NaN notitle"
        fi
        echo "unset multiplot"
    } >"$tmp/report.gp"
    gnuplot "$tmp/report.gp" 2>"$tmp/gp.err" || note "report.pdf: gnuplot failed: $(head -c 300 "$tmp/gp.err")"
fi
# the last line names the figures report.pdf holds (the first four picked)
on_page=$(echo $pick | cut -d' ' -f1-4)
echo "plots: $(echo $made | wc -w) figures, report.md, report.pdf${on_page:+ (of $on_page)} in $out"

# A reference's comparisons with other references are drawn again with it,
# so that none names a date or commit its folders no longer hold.
slug=$(basename "$data")
if [ "$out" = "plots/$slug" ]; then
    for c in plots/compare-*-vs-*; do
        [ -d "$c" ] || continue
        pair=${c#plots/compare-}; ca=${pair%%-vs-*}; cb=${pair#*-vs-}
        { [ "$ca" = "$slug" ] || [ "$cb" = "$slug" ]; } && [ -d "data/$ca" ] && [ -d "data/$cb" ] || continue
        sh "$here/compare.sh" "$ca" "$cb" >&2 || note "$c: compare.sh failed"
    done
fi
