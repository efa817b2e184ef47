#!/bin/sh
# make diff A=<result folder> B=<result folder>: measured MLUPS of two runs
# side by side, per backend, scheme, precision and lattice (each at its
# best block size and cells per thread, one device), with B/A, and whether
# the two agree: B/A is within their stated uncertainty when |B/A - 1| is no
# larger than the sum of both rows' spread (the repetitions' range,
# (ms_max - ms_min) / ms_median, plus the passes' pass_spread_pct) and both
# runs' drift (median |change| of drift.csv, 0 where not measured), capped
# at MAX_BOUND %.  Then per backend, scheme and precision the median B/A
# and how many lattices agree, and one line of agreement over them all: the
# check of a second QUICK run against the first.
# Two runs compare only on one device of one kind: the device (lbm.csv's
# device column; lbm-meta.csv's slug and kind) and, where lbm-meta.csv
# records them, its compute units (a CPU's cores, a GPU's SMs) and the
# OpenMP threads it ran; --allow-other-device (make diff ALLOW_OTHER_DEVICE=1)
# compares runs of different ones, saying so.  An lbm.csv without
# lbm.csv's columns, or with a value that is not a finite number, is
# refused.  Exit 0 (the table is the answer), 1 when the runs share no
# lattice, 2 bad usage or input.
#   sh core/diff.sh [--allow-other-device] A B
set -u
usage() { echo "diff: $*; usage: make diff A=<result folder> B=<result folder> [ALLOW_OTHER_DEVICE=1]" >&2; exit 2; }
refuse() { echo "diff: $*" >&2; exit 2; }
other=0
[ "${1:-}" = --allow-other-device ] && { other=1; shift; }
[ $# -eq 2 ] || usage "two result folders needed, got $#"
for d in "$1" "$2"; do
    [ -d "$d" ] || usage "no folder '$d'"
    [ -f "$d/lbm.csv" ] || usage "'$d' has no lbm.csv (not a result folder of make bench)"
done
# A bound is a sum of spreads; past 50 % it would call a run at half (or
# 1.5 x) the other's speed the same, which no check of a second run should:
# a lattice whose rows scatter that much is said to be capped, not agreed
# with on faith.
MAX_BOUND=50

# the columns best_rows reads: a file without them is not lbm.csv (a
# stream.csv renamed, say)
LBM_COLUMNS="device backend scheme precision nx ny nz cells ms_min ms_median ms_max mlups_median"
check_header() { # DIR
    missing=$(head -n 1 "$1/lbm.csv" | tr -d '\r' | awk -F, -v want="$LBM_COLUMNS" '
        { for (i = 1; i <= NF; i++) h[$i] = 1; n = split(want, w, " ")
          for (i = 1; i <= n; i++) if (!(w[i] in h)) printf "%s ", w[i] }')
    [ -z "$missing" ] || refuse "'$1/lbm.csv': its header is not lbm.csv's (no column ${missing% })"
}
# meta DIR KEY: lbm-meta.csv's value, "" where not recorded
meta() { [ -f "$1/lbm-meta.csv" ] && awk -F, -v k="$2" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$1/lbm-meta.csv"; }
# device_of DIR: "slug|kind|compute units|threads", each "" where not recorded
device_of() {
    slug=$(meta "$1" slug)
    [ -n "$slug" ] || slug=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "device") c = i; next }
        c { print $c; exit }' "$1/lbm.csv")
    threads=$(meta "$1" platform | sed -n 's/.*OpenMP: \([0-9]*\) thread.*/\1/p')
    echo "$slug|$(meta "$1" kind)|$(meta "$1" compute_units)|$threads"
}
# same_device A B: refuse two devices, or one device of two sizes, naming
# what differs
same_device() {
    da=$(device_of "$1") db=$(device_of "$2")
    said=$(echo "$da|$db" | awk -F'|' '{ n = split("device kind compute_units threads", f, " ")
        for (i = 1; i <= n; i++) if ($i != "" && $(i + 4) != "" && $i != $(i + 4)) printf "%s%s %s vs %s", s++ ? ", " : "", f[i], $i, $(i + 4) }')
    [ -z "$said" ] && return 0
    if [ "$other" = 1 ]; then
        echo "note: A and B differ ($said): compared as asked (ALLOW_OTHER_DEVICE=1)"
        return 0
    fi
    refuse "'$1' and '$2' are runs of different devices or sizes ($said); ALLOW_OTHER_DEVICE=1 compares them anyway"
}
check_header "$1"; check_header "$2"

# best_rows DIR OUT: "backend scheme precision NXxNYxNZ mlups cells spread_pct",
# the best of each (one device: rows of several ranks left out), in order
# of backend, scheme, precision and size
best_rows() {
    awk -F, -v f="$1/lbm.csv" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
            nw = split("nx ny nz cells ms_min ms_median ms_max mlups_median pass_spread_pct ranks", want, " ")
            for (i = 1; i <= nw; i++) if (want[i] in c) num[want[i]] = 1
            next }
        # a value that is not a finite number (nan, inf, text: awk reads
        # the first two as numbers), or MLUPS not above 0, is no measurement
        { for (k in num) if ($c[k] !~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/) {
              printf "diff: %s:%d: %s \047%s\047 is not a finite number\n", f, NR, k, $c[k] > "/dev/stderr"; bad = 1; exit 2 }
          if ($c["mlups_median"] + 0 <= 0) {
              printf "diff: %s:%d: mlups_median %s is not above 0\n", f, NR, $c["mlups_median"] > "/dev/stderr"; bad = 1; exit 2 } }
        ("ranks" in c) && $c["ranks"] + 0 > 1 { next }
        { k = $c["backend"] " " $c["scheme"] " " $c["precision"] " " $c["nx"] "x" $c["ny"] "x" $c["nz"]
          v = $c["mlups_median"] + 0
          if (!(k in b) || v > b[k]) {
              b[k] = v; n[k] = $c["cells"]; med = $c["ms_median"] + 0
              sp[k] = (med > 0 ? 100 * ($c["ms_max"] - $c["ms_min"]) / med : 0) + (("pass_spread_pct" in c) ? $c["pass_spread_pct"] + 0 : 0)
          } }
        END { if (bad) exit 2; for (k in b) printf "%s %s %s %.3f\n", k, b[k], n[k], sp[k] }' "$1/lbm.csv" >"$2" || exit 2
    sort -k1,1 -k2,2 -k3,3 -k6,6n "$2" -o "$2"
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
# check_drift DIR: drift.csv's change_pct finite numbers, where it is
check_drift() {
    [ -f "$1/drift.csv" ] || return 0
    awk -F, -v f="$1/drift.csv" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
            if (!("change_pct" in c) || !("backend" in c)) { printf "diff: %s: no backend and change_pct columns\n", f > "/dev/stderr"; exit 2 }
            next }
        $c["change_pct"] !~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ {
            printf "diff: %s:%d: change_pct \047%s\047 is not a finite number\n", f, NR, $c["change_pct"] > "/dev/stderr"; exit 2 }' "$1/drift.csv" || exit 2
}
# drift_pct DIR: "backend pct" lines, the median |change| of drift.csv
drift_pct() { drift_of "$1" | tr ',' '\n' | awk '$3 == "%" { print $1, $2 }'; }
t=${TMPDIR:-/tmp}/lbp-diff.$$
trap 'rm -f "$t".*' EXIT
best_rows "$1" "$t.a"
best_rows "$2" "$t.b"
check_drift "$1"; check_drift "$2"
drift_pct "$1" >"$t.da"
drift_pct "$2" >"$t.db"
same_device "$1" "$2"
echo "lbmprobe diff: measured MLUPS (best block size and cells per thread at each lattice, one device)"
echo "A: $1 (drift, median |change| of the recheck probes: $(drift_of "$1"))"
echo "B: $2 (drift, median |change| of the recheck probes: $(drift_of "$2"))"
echo "bound: both rows' spread (repetitions' range + passes') + both runs' drift, in %, at most $MAX_BOUND; B/A agrees when |B/A - 1| is within it"
printf '%-7s %-6s %-5s %-15s %10s %10s %7s %7s %s\n' backend scheme prec lattice "A MLUPS" "B MLUPS" "B/A" "bound%" "agree"
awk -v cap="$MAX_BOUND" 'FILENAME ~ /\.da$/ { da[$1] = $2; next }
     FILENAME ~ /\.db$/ { db[$1] = $2; next }
     FILENAME ~ /\.a$/ { k = $1 " " $2 " " $3 " " $4; a[k] = $5; sa[k] = $7; next }
     { k = $1 " " $2 " " $3 " " $4
       if (!(k in a)) { onlyb++; next }
       r = a[k] > 0 ? $5 / a[k] : 0
       bound = sa[k] + $7 + da[$1] + db[$1]
       if (bound > cap) { bound = cap; capped++ }
       d = 100 * (r - 1); if (d < 0) d = -d
       ok = d <= bound
       printf "%-7s %-6s %-5s %-15s %10.1f %10.1f %7.3f %7.2f %s\n", $1, $2, $3, $4, a[k], $5, r, bound, ok ? "yes" : "NO"
       g = $1 " " $2 " " $3; if (!(g in n)) order[++m] = g
       n[g]++; ratio[g, n[g]] = r; agree[g] += ok
       both++; seen[k] = 1 }
     END { for (k in a) if (!(k in seen)) onlya++
           printf "%d lattices in both; %d only in A, %d only in B\n", both, onlya, onlyb
           if (capped) printf "%d lattices with bounds capped at %d %% (their rows scatter more: a ratio there says little)\n", capped, cap
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
