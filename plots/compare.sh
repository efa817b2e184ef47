#!/bin/sh
# make compare A=<slug | folder> B=<slug | folder>: two devices or runs side
# by side (copy bandwidth vs working set; best MLUPS per scheme and
# precision) from their CSVs.  A slug is the committed reference data/<slug>;
# a folder is any result folder (a run of make bench: results/<slug>/latest).
# Figures: plots/compare-A-vs-B/ for two references, else
# results/compare-A-vs-B/ (a user's, beside the runs, never in the repository).
set -u
here=$(dirname "$0")
a=${1:-}; b=${2:-}
[ -n "$a" ] && [ -n "$b" ] || { echo "usage: make compare A=<slug | folder> B=<slug | folder> (slugs: folders of data/)" >&2; exit 2; }
folder_of() { if [ -d "data/$1" ] && [ "${1#*/}" = "$1" ]; then echo "data/$1"; else echo "$1"; fi; }
for s in "$a" "$b"; do
    [ -d "$(folder_of "$s")" ] || { echo "compare: no result folder $s (nor data/$s)" >&2; exit 2; }
    [ -f "$(folder_of "$s")/lbm.csv" ] || { echo "compare: $(folder_of "$s") has no lbm.csv (not a result folder)" >&2; exit 2; }
done
da=$(folder_of "$a"); db=$(folder_of "$b")
# the names in titles and keys: a reference's slug, a run's path
label_a=${da#data/}; label_b=${db#data/}
a=$(echo "$label_a" | tr '/' '_'); b=$(echo "$label_b" | tr '/' '_')
command -v gnuplot >/dev/null 2>&1 || { echo "compare: gnuplot is not installed (make deps)" >&2; exit 1; }
. "$here/csv.sh"
out=plots/compare-$a-vs-$b
[ "$da" = "data/$label_a" ] && [ "$db" = "data/$label_b" ] || out=results/compare-$a-vs-$b
mkdir -p "$out" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# "label (date, commit)" of a side, from its lbm meta file
stamp_of() { # DIR LABEL
    dt=$(metaval "$1/lbm-meta.csv" date 2>/dev/null | cut -c1-10); cm=$(metaval "$1/lbm-meta.csv" git_commit 2>/dev/null)
    echo "$2${dt:+ ($dt${cm:+, commit $cm})}"
}
stamp_a=$(stamp_of "$da" "$label_a"); stamp_b=$(stamp_of "$db" "$label_b")
for s in "$a" "$b"; do
    d=$da; [ "$s" = "$a" ] || d=$db
    bk=$(csvcol "$d/stream.csv" backend | head -n 1)
    csvsel "$d/stream.csv" "backend=$bk,sweep=size" array_bytes gbs_median | awk '{print 2*$1, $2}' | sort -g >"$tmp/size-$s.dat"
    bk=$(csvcol "$d/lbm.csv" backend | head -n 1)
    # each scheme and precision's best, as model summary and lbm-meta.csv
    # define it: the fastest verified row (lbm.csv holds no other) at a
    # lattice larger than the last-level cache (cells x lattices x 19
    # words; stream-meta.csv l2_bytes), one device (a run's rows of several
    # ranks left out): "scheme precision lattice mlups"
    llc=$(metaval "$d/stream-meta.csv" l2_bytes 2>/dev/null)
    awk -F, -v bk="$bk" -v llc="${llc:-0}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["backend"] != bk || (("ranks" in c) && $c["ranks"] + 0 > 1) { next }
        { p = $c["precision"]; w = p == "fp64" ? 8 : p == "fp16s" ? 2 : 4; l = $c["scheme"] == "aa" ? 1 : 2
          if ($c["cells"] * l * 19 * w <= llc + 0) next
          k = $c["scheme"] " " p; v = $c["mlups_median"] + 0
          if (!(k in m) || v > m[k]) { m[k] = v
              lat[k] = ($c["nx"] == $c["ny"] && $c["ny"] == $c["nz"]) ? $c["nx"] "³" : $c["nx"] "x" $c["ny"] "x" $c["nz"] } }
        END { for (k in m) print k, lat[k], m[k] }' "$d/lbm.csv" | sort >"$tmp/best-$s.dat"
done
# per precision: "scheme\nA lattice / B lattice" A B B/A, one figure each on
# its own linear axis (fp64 runs at half fp32's rate: one axis hides it)
precisions=$(awk '{print $2}' "$tmp/best-$a.dat" "$tmp/best-$b.dat" | sort -u)
made=""
for p in $precisions; do
    awk -v p="$p" 'NR == FNR { if ($2 == p) { la[$1] = $3; a[$1] = $4 }; next }
        $2 == p && ($1 in a) && a[$1] > 0 { printf "\"%s\\n%s / %s\" %s %s %.3f\n", $1, la[$1], $3, a[$1], $4, $4 / a[$1] }' \
        "$tmp/best-$a.dat" "$tmp/best-$b.dat" >"$tmp/best-$p.dat"
    [ -s "$tmp/best-$p.dat" ] && made="$made $p"
done
[ -n "$made" ] || { echo "compare: $label_a and $label_b share no scheme and precision in lbm.csv" >&2; exit 1; }
# LBP_PLOTS_TABLES: the points each best figure plots, kept (as render.sh keeps its own)
[ -n "${LBP_PLOTS_TABLES:-}" ] && mkdir -p "$LBP_PLOTS_TABLES" && for p in $made; do cp "$tmp/best-$p.dat" "$LBP_PLOTS_TABLES/lbm-best-$p.dat"; done
for t in png pdf; do
    if [ $t = png ]; then term="pngcairo noenhanced size 1000,640 font 'Sans,11'"; else term="pdfcairo noenhanced size 7in,4.5in font 'Sans,9'"; fi
    gnuplot -e "set terminal $term; set output '$out/stream-size.$t'; set grid; set logscale x 10; set format x '%.0s%cB'; set key top left box opaque;
        set xlabel 'working set (bytes read + written per launch)'; set ylabel 'bandwidth [GB/s]';
        set title 'Copy bandwidth vs working set';
        plot '$tmp/size-$a.dat' using 1:2 with linespoints lw 2 title '$stamp_a', '$tmp/size-$b.dat' using 1:2 with linespoints lw 2 title '$stamp_b'" || exit 1
    for p in $made; do
        gnuplot -e "set terminal $term; set output '$out/lbm-best-$p.$t'; set grid; set key above vertical box;
            set style data histograms; set style histogram clustered gap 1; set style fill solid 0.7; set yrange [0:*]; set offsets 0, 0, graph 0.12, 0; set bmargin 6;
            set xlabel 'scheme, lattice of A / of B' offset 0,-1; set ylabel 'MLUPS ($p)';
            set title 'D3Q19 BGK $p, best: the fastest point at a lattice larger than the last-level cache; labels: B/A';
            plot '$tmp/best-$p.dat' using 2:xtic(1) title 'A: $stamp_a', '' using 3 title 'B: $stamp_b',
                 '' using 0:(\$2 > \$3 ? \$2 : \$3):(sprintf('%.2fx', \$4)) with labels offset 0,char 1 notitle" || exit 1
    done
done
echo "compare: figures in $out"
