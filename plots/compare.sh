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
for s in "$a" "$b"; do
    d=$da; [ "$s" = "$a" ] || d=$db
    bk=$(csvcol "$d/stream.csv" backend | head -n 1)
    csvsel "$d/stream.csv" "backend=$bk,sweep=size" array_bytes gbs_median | awk '{print 2*$1, $2}' | sort -g >"$tmp/size-$s.dat"
    bk=$(csvcol "$d/lbm.csv" backend | head -n 1)
    # each scheme and precision at the largest lattice this device measured
    # (DRAM-bound; small lattices live in L2), best block size
    csvsel "$d/lbm.csv" "backend=$bk" scheme precision cells mlups_median |
        awk '{k=$1" "$2; if (!(k in c) || $3 > c[k] || ($3 == c[k] && $4 > m[k])) {c[k]=$3; m[k]=$4}} END {for (k in m) print k, m[k]}' | sort >"$tmp/best-$s.dat"
done
awk 'NR==FNR {a[$1" "$2]=$3; next} ($1" "$2) in a {printf "\"%s %s\" %s %s\n", $1, $2, a[$1" "$2], $3}' \
    "$tmp/best-$a.dat" "$tmp/best-$b.dat" >"$tmp/best.dat"
for t in png pdf; do
    if [ $t = png ]; then term="pngcairo noenhanced size 1000,640 font 'Sans,11'"; else term="pdfcairo noenhanced size 7in,4.5in font 'Sans,9'"; fi
    gnuplot -e "set terminal $term; set output '$out/stream-size.$t'; set grid; set logscale x 10; set format x '%.0s%cB'; set key top left box opaque;
        set xlabel 'working set (bytes read + written per launch)'; set ylabel 'bandwidth [GB/s]';
        set title 'Copy bandwidth vs working set: $label_a vs $label_b';
        plot '$tmp/size-$a.dat' using 1:2 with linespoints lw 2 title '$label_a', '$tmp/size-$b.dat' using 1:2 with linespoints lw 2 title '$label_b'" || exit 1
    gnuplot -e "set terminal $term; set output '$out/lbm-best.$t'; set grid; set key above horizontal box;
        set style data histograms; set style histogram clustered gap 1; set style fill solid 0.7; set yrange [0:*]; set xtics rotate by -30;
        set ylabel 'MLUPS at the largest lattice measured'; set title 'D3Q19 BGK, sustained (largest lattice, best block size): $label_a vs $label_b';
        plot '$tmp/best.dat' using 2:xtic(1) title '$label_a', '' using 3 title '$label_b'" || exit 1
done
echo "compare: figures in $out"
