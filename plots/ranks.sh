# The multi-device figures, sourced by render.sh (figure, csvsel, metaval,
# note, $data, $tmp, $title_suffix):
#   ranks-<scaling>-<backend>-<precision>  MLUPS and efficiency against
#       ranks, measured (points) beside predicted (dashed), one colour per
#       exchange path and overlap; pull, else the first scheme measured
#   interconnect  time per message against its size, per path and
#       direction, every pair's points and the fit of the median pair (its
#       s the bytes moved: both messages both ways, as stream writes it)

# ranks_rows FILE: the multi-rank rows' columns, named the same whatever
# the file: backend scaling scheme precision exchange overlap ranks
# measured predicted measured_eff_pct predicted_eff_pct nx ny nz nz_local
# (predicted and efficiencies NaN where the file has none: lbm.csv)
ranks_rows() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; model = ("full_mlups" in h); next }
        function v(c, d) { return (c in h) && $h[c] != "" && $h[c] != -1 ? $h[c] : d }
        !("ranks" in h) || ("scaling" in h && $h["scaling"] == "none") { next }
        { m = model ? $h["measured_mlups"] : $h["mlups_median"]
          print $h["backend"], $h["scaling"], $h["scheme"], $h["precision"], $h["exchange"], $h["overlap"], $h["ranks"],
                m, v("full_mlups", "NaN"), v("measured_efficiency_pct", "NaN"), v("predicted_efficiency_pct", "NaN"),
                $h["nx"], $h["ny"], $h["nz"], v("nz_local", $h["nz"]) }' "$1"
}

ranks_figures() {
    src=$data/model.csv
    head -n 1 "$src" 2>/dev/null | tr ',' '\n' | grep -qx ranks || src=$data/lbm.csv
    [ -f "$src" ] && head -n 1 "$src" | tr ',' '\n' | grep -qx ranks || return 0
    ranks_rows "$src" >"$tmp/ranks.dat"
    [ -s "$tmp/ranks.dat" ] || return 0
    [ "$src" = "$data/lbm.csv" ] && note "model.csv has no multi-rank rows: scaling figures without the prediction"
    over="" devices=1000000 xlabel="ranks (one a device)"
    if [ "$(metaval "$data/ranks-meta.csv" oversubscribed 2>/dev/null)" = yes ]; then
        devices=$(metaval "$data/ranks-meta.csv" devices)
        over=" ($(metaval "$data/ranks-meta.csv" ranks) ranks on $devices device(s): oversubscribed, a check of the paths)"
        xlabel="ranks ($devices device(s))"
    fi
    for key in $(awk '$2 != "none" { print $1 "/" $2 "/" $4 }' "$tmp/ranks.dat" | sort -u); do
        b=${key%%/*}; rest=${key#*/}; sc=${rest%%/*}; p=${rest#*/}
        s=$(awk -v b=$b -v sc=$sc -v p=$p '$1 == b && $2 == sc && $4 == p && $3 == "pull" { print "pull"; exit }' "$tmp/ranks.dat")
        [ -n "$s" ] || s=$(awk -v b=$b -v sc=$sc -v p=$p '$1 == b && $2 == sc && $4 == p { print $3; exit }' "$tmp/ranks.dat")
        f=$tmp/r-$b-$sc-$p.dat
        awk -v b=$b -v sc=$sc -v p=$p -v s=$s '$1 == b && $2 == sc && $4 == p && $3 == s' "$tmp/ranks.dat" >"$f"
        # the one-rank row: every curve's first point and the ideal's slope
        one=$(awk '$7 == 1 { print $8; exit }' "$f")
        lattice=$(awk -v sc=$sc '$7 > 1 { if (sc == "weak") printf "%sx%sx%s a rank", $12, $13, $15; else printf "%sx%sx%s", $12, $13, $14; exit }' "$f")
        mp="" ep="" i=0
        for x in host peer mpi; do for o in 1 0; do
            d=$tmp/r-$b-$sc-$p-$x-$o.dat
            # ranks, measured MLUPS, predicted, measured and predicted efficiency
            awk -v x=$x -v o=$o -v one="$one" '$7 == 1 && !done { done = 1; print 1, $8, $9, 100, 100 }
                $7 > 1 && $5 == x && $6 == o {
                    me = $10 != "NaN" ? $10 : (one > 0 ? 100 * $8 / ($7 * one) : "NaN")
                    print $7, $8, $9, me, $11 }' "$f" | sort -g >"$d"
            [ "$(awk '$1 > 1' "$d" | wc -l)" -ge 1 ] || continue
            i=$((i + 1)); t="$x, overlap $([ $o = 1 ] && echo on || echo off)"
            mp="$mp${mp:+, }'$d' using 1:2 with linespoints pt 7 lw 2 lc $i title '$t', '' using 1:3 with lines dt 2 lw 2 lc $i title '  predicted'"
            ep="$ep${ep:+, }'$d' using 1:4 with linespoints pt 7 lw 2 lc $i notitle, '' using 1:5 with lines dt 2 lw 2 lc $i notitle"
        done; done
        [ -n "$mp" ] || continue
        # the ideal: one rank's rate on every device (ranks beyond the devices add none)
        ideal=""; [ -n "$one" ] && ideal=", (x < $devices ? x : $devices) * $one with lines dt 3 lc rgb 'black' title 'ideal (devices x one rank)'"
        target="unset key;"; [ "$sc" = weak ] && target="set key inside bottom left box opaque font ',8'; plot 95 with lines dt 4 lc rgb 'red' title 'target 95 %', "
        [ "$sc" = weak ] || target="$target plot "
        figure "ranks-$sc-$b-$p" "set multiplot layout 1,2 title '$(echo $sc | awk '{ print toupper(substr($0, 1, 1)) substr($0, 2) }') scaling, $s $p ($b), $lattice$over'.\"\\n\".'$title_suffix'; set xtics 1; set xrange [1:*]; set xlabel '$xlabel'; set key inside top left box opaque font ',8'; set ylabel 'MLUPS (whole lattice)'; set yrange [0:*]; plot $mp$ideal; set ylabel 'efficiency [%] (vs one device)'; set yrange [0:110]; $target 100 with lines dt 3 lc rgb 'black' notitle, $ep; unset multiplot"
    done
}

interconnect_figure() {
    ic=$data/interconnect.csv fit=$data/interconnect-fit.csv
    [ -f "$ic" ] || return 0
    ip="" i=0
    for x in $(csvcol "$ic" path | sort -u); do for dir in both-ways one-way; do
        d=$tmp/ic-$x-$dir.dat
        csvsel "$ic" "path=$x,direction=$dir" bytes us_median | sort -g >"$d"
        [ -s "$d" ] || continue
        i=$((i + 1)); pt=7; [ $dir = one-way ] && pt=6
        ip="$ip${ip:+, }'$d' using 1:2 with points pt $pt ps 0.8 lc $i title '$x $dir (every pair)'"
        # the median pair's fit: latency and bandwidth medians over the pairs
        lat=$(csvsel "$fit" "path=$x,direction=$dir" latency_us 2>/dev/null | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
        gbs=$(csvsel "$fit" "path=$x,direction=$dir" bandwidth_gbs 2>/dev/null | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
        lf=""; [ -n "$lat" ] && [ -n "$gbs" ] && lf="$lat $gbs"
        # the fit's s counts the bytes moved: both messages both ways
        k=1; [ $dir = both-ways ] && k=2
        [ -n "$lf" ] && ip="$ip, ${lf%% *} + $k * x / (${lf##* } * 1e3) with lines lw 2 lc $i title sprintf('  fit %.3g us + $([ $k = 2 ] && echo '2 ')s / %.4g GB/s', ${lf%% *}, ${lf##* })"
    done; done
    [ -n "$ip" ] || return 0
    halo=""
    w=$(metaval "$data/ranks-meta.csv" weak_size 2>/dev/null) && [ -n "$w" ] &&
        halo="set arrow from $((5 * w * w * 4)), graph 0 to $((5 * w * w * 4)), graph 1 nohead dt 2 lc rgb 'gray40'; set label 'halo of ${w}^2 fp32 ' at $((5 * w * w * 4)), graph 0.9 right;"
    figure interconnect "set logscale xy 10; set format x '%.0s%cB'; set xlabel 'message size s (one face, one direction)'; set ylabel 'time [us]'; set key inside top left box opaque; set samples 400; set title 'Interconnect between ranks: time per message and T(s) = latency + s / bandwidth'.\"\\n\".'$title_suffix'; $halo plot $ip"
}

# The lines report.md quotes: what the stage ran on, each path's fit over
# its pairs (both ways, the exchange's)
ranks_key_figures() {
    rm=$data/ranks-meta.csv fit=$data/interconnect-fit.csv
    [ -f "$rm" ] && echo "- multi-device stage: $(metaval "$rm" ranks) ranks on $(metaval "$rm" devices) device(s)$([ "$(metaval "$rm" oversubscribed)" = yes ] && echo ' (oversubscribed: a check of the paths, not a scaling figure)'), paths $(metaval "$rm" paths_run | tr ';' ' ')$(u=$(metaval "$rm" paths_unavailable) && [ -n "$u" ] && echo " (not available: $(echo "$u" | tr ';' ' '))"), MPI: $(metaval "$rm" mpi_version), CUDA-aware: $(metaval "$rm" mpi_cuda_support)"
    [ -f "$fit" ] || return 0
    for x in $(csvcol "$fit" path | sort -u); do
        csvsel "$fit" "path=$x,direction=both-ways" latency_us bandwidth_gbs 2>/dev/null |
            awk -v x=$x 'NR == 1 { l0 = l1 = $1; g0 = g1 = $2 }
                { if ($1 < l0) l0 = $1; if ($1 > l1) l1 = $1; if ($2 < g0) g0 = $2; if ($2 > g1) g1 = $2 }
                function span(a, b) { return a == b ? sprintf("%.3g", a) : sprintf("%.3g-%.3g", a, b) }
                END { if (NR) printf "- interconnect %s, a message each way at once (%d pair%s): %s us + 2 s / %s GB/s (s the message)\n", x, NR, (NR > 1 ? "s" : ""), span(l0, l1), span(g0, g1) }'
        # a ring alone, and again beside a copy on every device (column
        # beside; files without it are all alone)
        { csvsel "$fit" "path=$x,direction=ring" rank_b latency_us bandwidth_gbs beside 2>/dev/null ||
            csvsel "$fit" "path=$x,direction=ring" rank_b latency_us bandwidth_gbs 2>/dev/null; } |
            awk -v x=$x '{ printf "- interconnect %s, ranks 0-%d at once, each with both ring neighbours%s: %.3g us + 4 s / %.4g GB/s\n", x, $1, ($4 == "copy" ? ", beside a copy on every device" : ""), $2, $3 }'
    done
}

ranks_figures
interconnect_figure
