#!/bin/sh
# make compare A=<slug> B=<slug>: two devices side by side (copy bandwidth
# vs working set; best MLUPS per scheme and precision) from their CSVs.
set -u
here=$(dirname "$0")
a=${1:-}; b=${2:-}
[ -n "$a" ] && [ -n "$b" ] || { echo "usage: make compare A=<slug> B=<slug> (folders of data/)" >&2; exit 2; }
for s in "$a" "$b"; do [ -d "data/$s" ] || { echo "compare: no result folder data/$s" >&2; exit 2; }; done
command -v gnuplot >/dev/null 2>&1 || { echo "compare: gnuplot is not installed (make deps)" >&2; exit 1; }
. "$here/csv.sh"
out=plots/compare-$a-vs-$b
mkdir -p "$out" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for s in "$a" "$b"; do
    bk=$(csvcol "data/$s/stream.csv" backend | head -n 1)
    csvsel "data/$s/stream.csv" "backend=$bk,sweep=size" array_bytes gbs_median | awk '{print 2*$1, $2}' | sort -g >"$tmp/size-$s.dat"
    bk=$(csvcol "data/$s/lbm.csv" backend | head -n 1)
    # each scheme and precision at the largest lattice this device measured
    # (DRAM-bound; small lattices live in L2), best block size
    csvsel "data/$s/lbm.csv" "backend=$bk" scheme precision cells mlups_median |
        awk '{k=$1" "$2; if (!(k in c) || $3 > c[k] || ($3 == c[k] && $4 > m[k])) {c[k]=$3; m[k]=$4}} END {for (k in m) print k, m[k]}' | sort >"$tmp/best-$s.dat"
done
awk 'NR==FNR {a[$1" "$2]=$3; next} ($1" "$2) in a {printf "\"%s %s\" %s %s\n", $1, $2, a[$1" "$2], $3}' \
    "$tmp/best-$a.dat" "$tmp/best-$b.dat" >"$tmp/best.dat"
for t in png pdf; do
    if [ $t = png ]; then term="pngcairo noenhanced size 1000,640 font 'Sans,11'"; else term="pdfcairo noenhanced size 7in,4.5in font 'Sans,9'"; fi
    gnuplot -e "set terminal $term; set output '$out/stream-size.$t'; set grid; set logscale x 10; set format x '%.0s%cB'; set key top left box opaque;
        set xlabel 'working set (bytes read + written per launch)'; set ylabel 'bandwidth [GB/s]';
        set title 'Copy bandwidth vs working set: $a vs $b';
        plot '$tmp/size-$a.dat' using 1:2 with linespoints lw 2 title '$a', '$tmp/size-$b.dat' using 1:2 with linespoints lw 2 title '$b'" || exit 1
    gnuplot -e "set terminal $term; set output '$out/lbm-best.$t'; set grid; set key above horizontal box;
        set style data histograms; set style histogram clustered gap 1; set style fill solid 0.7; set yrange [0:*]; set xtics rotate by -30;
        set ylabel 'MLUPS at the largest lattice measured'; set title 'D3Q19 BGK, sustained (largest lattice, best block size): $a vs $b';
        plot '$tmp/best.dat' using 2:xtic(1) title '$a', '' using 3 title '$b'" || exit 1
done
echo "compare: figures in $out"
