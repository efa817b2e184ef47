#!/bin/sh
# make diff A=<result folder> B=<result folder>: measured MLUPS of two runs
# side by side, per backend, scheme, precision and lattice (each at its
# best block size and cells per thread, one device), with B/A, and whether
# the two agree: B/A is within their stated uncertainty when |B/A - 1| is no
# larger than the sum of both rows' spread (the repetitions' range,
# (ms_max - ms_min) / ms_median, plus the passes' pass_spread_pct) and both
# runs' drift (median |change| of drift.csv, 0 where not measured).  Then
# per backend, scheme and precision the median B/A and how many lattices
# agree, and one line of agreement over them all: the check of a second
# QUICK run against the first.  Exit 0 (the table is the answer), 1 when the
# runs share no lattice, 2 bad usage.
#   sh core/diff.sh A B
set -u
usage() { echo "diff: $*; usage: make diff A=<result folder> B=<result folder>" >&2; exit 2; }
[ $# -eq 2 ] || usage "two result folders needed, got $#"
for d in "$1" "$2"; do
    [ -d "$d" ] || usage "no folder '$d'"
    [ -f "$d/lbm.csv" ] || usage "'$d' has no lbm.csv (not a result folder of make bench)"
done

# best_rows DIR: "backend scheme precision NXxNYxNZ mlups cells spread_pct",
# the best of each (one device: rows of several ranks left out), in order
# of backend, scheme, precision and size
best_rows() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        ("ranks" in c) && $c["ranks"] + 0 > 1 { next }
        { k = $c["backend"] " " $c["scheme"] " " $c["precision"] " " $c["nx"] "x" $c["ny"] "x" $c["nz"]
          v = $c["mlups_median"] + 0
          if (!(k in b) || v > b[k]) {
              b[k] = v; n[k] = $c["cells"]; med = $c["ms_median"] + 0
              sp[k] = (med > 0 ? 100 * ($c["ms_max"] - $c["ms_min"]) / med : 0) + (("pass_spread_pct" in c) ? $c["pass_spread_pct"] + 0 : 0)
          } }
        END { for (k in b) printf "%s %s %s %.3f\n", k, b[k], n[k], sp[k] }' "$1/lbm.csv" | sort -k1,1 -k2,2 -k3,3 -k6,6n
}
# drift_of DIR: "cuda 0.6 %, opencl 0.9 %" (median |change| of drift.csv)
drift_of() {
    [ -f "$1/drift.csv" ] || { echo "not measured"; return; }
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { b = $c["backend"]; v = $c["change_pct"]; if (v < 0) v = -v; n[b]++; x[b, n[b]] = v; if (n[b] == 1) o[++m] = b }
        END { for (j = 1; j <= m; j++) { b = o[j]; k = n[b]
                  for (p = 1; p <= k; p++) for (q = p + 1; q <= k; q++) if (x[b, q] < x[b, p]) { t = x[b, p]; x[b, p] = x[b, q]; x[b, q] = t }
                  med = k % 2 ? x[b, (k + 1) / 2] : (x[b, k / 2] + x[b, k / 2 + 1]) / 2
                  printf "%s%s %.1f %%", (j > 1 ? ", " : ""), b, med }
              print "" }' "$1/drift.csv"
}
# drift_pct DIR: "backend pct" lines, the median |change| of drift.csv
drift_pct() { drift_of "$1" | tr ',' '\n' | awk '$3 == "%" { print $1, $2 }'; }
t=${TMPDIR:-/tmp}/lbp-diff.$$
trap 'rm -f "$t".*' EXIT
best_rows "$1" >"$t.a"
best_rows "$2" >"$t.b"
drift_pct "$1" >"$t.da"
drift_pct "$2" >"$t.db"
echo "lbmprobe diff: measured MLUPS (best block size and cells per thread at each lattice, one device)"
echo "A: $1 (drift, median |change| of the recheck probes: $(drift_of "$1"))"
echo "B: $2 (drift, median |change| of the recheck probes: $(drift_of "$2"))"
echo "bound: both rows' spread (repetitions' range + passes') + both runs' drift, in %; B/A agrees when |B/A - 1| is within it"
printf '%-7s %-6s %-5s %-15s %10s %10s %7s %7s %s\n' backend scheme prec lattice "A MLUPS" "B MLUPS" "B/A" "bound%" "agree"
awk 'FILENAME ~ /\.da$/ { da[$1] = $2; next }
     FILENAME ~ /\.db$/ { db[$1] = $2; next }
     FILENAME ~ /\.a$/ { k = $1 " " $2 " " $3 " " $4; a[k] = $5; sa[k] = $7; next }
     { k = $1 " " $2 " " $3 " " $4
       if (!(k in a)) { onlyb++; next }
       r = a[k] > 0 ? $5 / a[k] : 0
       bound = sa[k] + $7 + da[$1] + db[$1]
       d = 100 * (r - 1); if (d < 0) d = -d
       ok = d <= bound
       printf "%-7s %-6s %-5s %-15s %10.1f %10.1f %7.3f %7.2f %s\n", $1, $2, $3, $4, a[k], $5, r, bound, ok ? "yes" : "NO"
       g = $1 " " $2 " " $3; if (!(g in n)) order[++m] = g
       n[g]++; ratio[g, n[g]] = r; agree[g] += ok
       both++; seen[k] = 1 }
     END { for (k in a) if (!(k in seen)) onlya++
           printf "%d lattices in both; %d only in A, %d only in B\n", both, onlya, onlyb
           if (!both) exit 1
           print "per backend, scheme and precision (median B/A over the shared lattices):"
           for (j = 1; j <= m; j++) {
               g = order[j]; k = n[g]
               for (p = 1; p <= k; p++) for (q = p + 1; q <= k; q++) if (ratio[g, q] < ratio[g, p]) { x = ratio[g, p]; ratio[g, p] = ratio[g, q]; ratio[g, q] = x }
               med = k % 2 ? ratio[g, (k + 1) / 2] : (ratio[g, k / 2] + ratio[g, k / 2 + 1]) / 2
               split(g, f, " ")
               printf "  %-7s %-6s %-5s median B/A %.3f, %d of %d lattices within the bound%s\n", f[1], f[2], f[3], med, agree[g], k, agree[g] == k ? "" : ": DIFFERS"
               groups_ok += agree[g] == k; lat_ok += agree[g]
           }
           printf "agreement: %d of %d backend/scheme/precision groups agree at every lattice (%d of %d lattices within the bound)\n", groups_ok, m, lat_ok, both }' \
    "$t.da" "$t.db" "$t.a" "$t.b"
