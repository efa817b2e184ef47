#!/bin/sh
# make diff A=<result folder> B=<result folder>: measured MLUPS of two runs
# side by side, per backend, scheme, precision and lattice (each at its
# best block size and cells per thread), with B/A, and each run's drift
# beside them: a ratio closer to 1 than the drift is no change.
#   sh core/diff.sh A B
set -u
usage() { echo "diff: $*; usage: make diff A=<result folder> B=<result folder>" >&2; exit 2; }
[ $# -eq 2 ] || usage "two result folders needed, got $#"
for d in "$1" "$2"; do
    [ -d "$d" ] || usage "no folder '$d'"
    [ -f "$d/lbm.csv" ] || usage "'$d' has no lbm.csv (not a result folder of make bench)"
done

# best_rows DIR: "backend scheme precision NXxNYxNZ mlups cells", the best
# of each, in order of backend, scheme, precision and size
best_rows() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { k = $c["backend"] " " $c["scheme"] " " $c["precision"] " " $c["nx"] "x" $c["ny"] "x" $c["nz"]
          v = $c["mlups_median"] + 0; if (!(k in b) || v > b[k]) b[k] = v; n[k] = $c["cells"] }
        END { for (k in b) print k, b[k], n[k] }' "$1/lbm.csv" | sort -k1,1 -k2,2 -k3,3 -k6,6n
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
best_rows "$1" >"${TMPDIR:-/tmp}/lbp-diff-a.$$"
best_rows "$2" >"${TMPDIR:-/tmp}/lbp-diff-b.$$"
trap 'rm -f "${TMPDIR:-/tmp}/lbp-diff-a.$$" "${TMPDIR:-/tmp}/lbp-diff-b.$$"' EXIT
echo "lbmprobe diff: measured MLUPS (best block size and cells per thread at each lattice)"
echo "A: $1 (drift, median |change| of the recheck probes: $(drift_of "$1"))"
echo "B: $2 (drift, median |change| of the recheck probes: $(drift_of "$2"))"
printf '%-7s %-6s %-5s %-15s %10s %10s %7s\n' backend scheme prec lattice "A MLUPS" "B MLUPS" "B/A"
awk 'FNR == NR { a[$1 " " $2 " " $3 " " $4] = $5; next }
     { k = $1 " " $2 " " $3 " " $4; if (k in a) { printf "%-7s %-6s %-5s %-15s %10.1f %10.1f %7.3f\n", $1, $2, $3, $4, a[k], $5, (a[k] > 0 ? $5 / a[k] : 0); both++; seen[k] = 1 } else onlyb++ }
     END { for (k in a) if (!(k in seen)) onlya++
           printf "%d lattices in both; %d only in A, %d only in B\n", both, onlya, onlyb
           if (!both) exit 1 }' "${TMPDIR:-/tmp}/lbp-diff-a.$$" "${TMPDIR:-/tmp}/lbp-diff-b.$$"
