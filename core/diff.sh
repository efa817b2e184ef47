#!/bin/sh
# make diff: measured MLUPS of two runs side by side, kernel by kernel and
# lattice by lattice, with B/A, whether each ratio is within the two runs'
# own uncertainty, and one verdict.
#   make diff                      the last two runs of this machine's best
#                                  device (results/<slug>/ or, where the
#                                  newest run was QUICK, results/<slug>-quick/)
#   make diff A=<slug>             the last two runs of that device
#   make diff A=<run> B=<run>      two runs: a result folder (data/<slug>,
#                                  results/<slug>/<run>), a runs folder
#                                  (results/<slug>: its latest) or a slug (its
#                                  latest run)
# A row is one kernel at one lattice: rows are keyed by every column of
# lbm.csv that names a kernel (backend, scheme, precision, stores, cells per
# thread, launch, ranks, exchange, overlap, scaling; a column an older file
# lacks reads as its default: normal, 1, linear, 1, none, 0, none), each at
# its best block size, so a pull is never set against a pull with
# non-temporal stores, nor one cell per thread against four.
# B/A agrees when |B/A - 1| is no larger than the sum of both rows' spread
# (the repetitions' range, (ms_max - ms_min) / ms_median, plus the passes'
# pass_spread_pct) and both runs' drift (median |change| of drift.csv, 0
# where not measured), capped at MAX_BOUND %.  Then per kernel (backend,
# scheme, precision and the rest of the key) the median B/A and how many
# lattices agree, and a last line with the verdict.
# Two runs compare only on one device of one kind: the device (lbm.csv's
# device column; lbm-meta.csv's slug and kind) and, where lbm-meta.csv
# records them, its compute units (a CPU's cores, a GPU's SMs) and the
# OpenMP threads it ran; --allow-other-device (make diff ALLOW_OTHER_DEVICE=1)
# compares runs of different ones, saying so.  An lbm.csv without
# lbm.csv's columns, or with a value that is not a finite number, is
# refused.  Exit 0 every kernel agrees at every shared lattice, 1 the runs
# differ (make diff needs no STRICT: a difference is already an exit 1), 2
# bad usage or input, or nothing to compare (no two runs; no kernel and
# lattice in both).
#   sh core/diff.sh [--allow-other-device] [A B | DEVICE]
set -u
usage() { echo "diff: $*; usage: make diff [A=<result folder or slug> B=<result folder or slug>] [ALLOW_OTHER_DEVICE=1]" >&2; exit 2; }
refuse() { echo "diff: $*" >&2; exit 2; }
other=0
[ "${1:-}" = --allow-other-device ] && { other=1; shift; }
[ $# -le 2 ] || usage "at most two runs, got $#"
root=$(dirname "$0")/..

# runs_in FOLDER: its complete runs (folders with lbm.csv; not latest, a
# .partial a bench still works in, or a hidden one), newest first
runs_in() {
    for r in $(ls -td "$1"/*/ 2>/dev/null); do
        r=${r%/}
        case "$(basename "$r")" in latest | *.partial | .*) continue ;; esac
        [ -f "$r/lbm.csv" ] && echo "$r"
    done
}
# newest_runs SLUG|FOLDER: the runs folder to take the last two runs from:
# FOLDER itself, or of results/SLUG and results/SLUG-quick the one whose
# newest run is newer
newest_runs() {
    if [ -d "$1" ]; then echo "${1%/}"; return; fi
    best="" t=""
    for f in "results/$1" "results/$1-quick"; do
        n=$(runs_in "$f" | head -n 1)
        [ -n "$n" ] || continue
        if [ -z "$best" ] || [ "$n" -nt "$t" ]; then best=$f t=$n; fi
    done
    echo "$best"
}
# last_two SLUG|FOLDER: "A B", the run before the newest and the newest
last_two() {
    f=$(newest_runs "$1")
    [ -n "$f" ] || refuse "no runs of $1 in results/$1/ or results/$1-quick/ (make bench writes them): nothing to compare"
    n=$(runs_in "$f" | wc -l)
    [ "$n" -ge 2 ] || refuse "$f holds $n complete run$( [ "$n" = 1 ] || echo s): nothing to compare it with (run make bench$(case $f in *-quick) echo ' QUICK=1' ;; esac) again, or name two: make diff A=<folder> B=<folder>)"
    set -- $(runs_in "$f" | head -n 2)
    echo "$2 $1"
}
# resolve ARG: the result folder ARG names (see the head of this file)
resolve() {
    if [ -d "$1" ]; then
        [ -f "$1/lbm.csv" ] && { echo "$1"; return; }
        [ -f "$1/latest/lbm.csv" ] && { echo "${1%/}/latest"; return; }
        usage "'$1' has no lbm.csv (not a result folder of make bench)"
    fi
    case "$1" in
    */latest)
        # results/<slug>/latest after a QUICK run: its runs went to
        # results/<slug>-quick/
        q=${1%/latest}-quick/latest
        [ -f "$q/lbm.csv" ] && { echo "note: no $1; comparing the QUICK run $q" >&2; echo "$q"; return; } ;;
    data/*)
        usage "no folder '$1' (no committed reference of this device; make diff alone compares its last two runs)" ;;
    */*) ;;
    *)
        for f in "results/$1/latest" "results/$1-quick/latest"; do
            [ -f "$f/lbm.csv" ] && { echo "$f"; return; }
        done
        usage "no folder '$1', nor runs of a device of that name in results/$1/ or results/$1-quick/" ;;
    esac
    usage "no folder '$1'"
}
case $# in
0)
    [ -x "$root/stream/stream" ] || refuse "no stream/stream to name this machine's best device (run make); or name two runs: make diff A=<folder> B=<folder>"
    slug=$("$root/stream/stream" --describe 2>/dev/null | awk -F, '$1 == "slug" { print $2; exit }')
    [ -n "$slug" ] || refuse "no device found (stream/stream --list shows what was found); name two runs: make diff A=<folder> B=<folder>"
    two=$(last_two "$slug") || exit 2
    set -- $two ;;
1)
    [ -f "$1/lbm.csv" ] && usage "one run given ('$1'): name A and B, or a device (its slug) for its last two runs"
    two=$(last_two "$1") || exit 2
    set -- $two ;;
2)
    a=$(resolve "$1") || exit 2
    b=$(resolve "$2") || exit 2
    set -- "$a" "$b" ;;
esac
[ $# -eq 2 ] || exit 2
for d in "$1" "$2"; do
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

# best_rows DIR OUT: "backend scheme precision kernel NXxNYxNZ mlups cells
# spread_pct", the best block size of each kernel and lattice, in order of
# backend, scheme, precision, kernel and size.  kernel is the rest of the
# key in one word: cpt=<cells per thread, row for a whole row>, then each
# of stores (nt: non-temporal), launch (launch=rows), ranks (r4), exchange
# (host, peer, mpi), overlap and scaling (weak, strong) where it is not its
# default
best_rows() {
    awk -F, -v f="$1/lbm.csv" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
            nw = split("nx ny nz cells ms_min ms_median ms_max mlups_median pass_spread_pct ranks overlap cells_per_thread", want, " ")
            for (i = 1; i <= nw; i++) if (want[i] in c) num[want[i]] = 1
            nd = split("stores=normal cells_per_thread=1 launch=linear ranks=1 exchange=none overlap=0 scaling=none", d, " ")
            for (i = 1; i <= nd; i++) { split(d[i], kv, "="); key[i] = kv[1]; dflt[kv[1]] = kv[2] }
            next }
        function val(k) { return (k in c) && $c[k] != "" ? $c[k] : dflt[k] }
        # a value that is not a finite number (nan, inf, text: awk reads
        # the first two as numbers), or MLUPS not above 0, is no measurement
        { for (k in num) if ($c[k] !~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/) {
              printf "diff: %s:%d: %s \047%s\047 is not a finite number\n", f, NR, k, $c[k] > "/dev/stderr"; bad = 1; exit 2 }
          if ($c["mlups_median"] + 0 <= 0) {
              printf "diff: %s:%d: mlups_median %s is not above 0\n", f, NR, $c["mlups_median"] > "/dev/stderr"; bad = 1; exit 2 } }
        { cpt = val("cells_per_thread") + 0
          kern = "cpt=" (cpt == 0 ? "row" : cpt)
          for (i = 1; i <= nd; i++) {
              k = key[i]; v = val(k)
              if (k == "cells_per_thread" || v == dflt[k]) continue
              if (k == "ranks" || k == "overlap") { if (v + 0 == dflt[k] + 0) continue; v = v + 0 }
              if (k == "stores" && v == "nontemporal") v = "nt"
              else if (k == "ranks") v = "r" v
              else if (k == "overlap") v = "overlap"
              else if (k != "exchange" && k != "scaling") v = k "=" v
              kern = kern "," v
          }
          k = $c["backend"] " " $c["scheme"] " " $c["precision"] " " kern " " $c["nx"] "x" $c["ny"] "x" $c["nz"]
          v = $c["mlups_median"] + 0
          if (!(k in b) || v > b[k]) {
              b[k] = v; n[k] = $c["cells"]; med = $c["ms_median"] + 0
              sp[k] = (med > 0 ? 100 * ($c["ms_max"] - $c["ms_min"]) / med : 0) + (("pass_spread_pct" in c) ? $c["pass_spread_pct"] + 0 : 0)
          } }
        END { if (bad) exit 2; for (k in b) printf "%s %s %s %.3f\n", k, b[k], n[k], sp[k] }' "$1/lbm.csv" >"$2" || exit 2
    sort -k1,1 -k2,2 -k3,3 -k4,4 -k7,7n "$2" -o "$2"
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
# the runs' names: a link (latest) with the run it points at
named() { if [ -L "$1" ]; then echo "$1 = $(readlink "$1")"; else echo "$1"; fi; }
echo "lbmprobe diff: measured MLUPS, kernel by kernel (every column of lbm.csv that names one; best block size at each lattice)"
echo "A: $(named "$1") (drift, median |change| of the recheck probes: $(drift_of "$1"))"
echo "B: $(named "$2") (drift, median |change| of the recheck probes: $(drift_of "$2"))"
echo "kernel: cells per thread (cpt=, row: a whole row), nt non-temporal stores, rN on N ranks with their exchange, overlap and scaling"
echo "bound: both rows' spread (repetitions' range + passes') + both runs' drift, in %, at most $MAX_BOUND; B/A agrees when |B/A - 1| is within it"
printf '%-7s %-6s %-5s %-14s %-15s %10s %10s %7s %7s %s\n' backend scheme prec kernel lattice "A MLUPS" "B MLUPS" "B/A" "bound%" "agree"
awk -v cap="$MAX_BOUND" 'FILENAME ~ /\.da$/ { da[$1] = $2; next }
     FILENAME ~ /\.db$/ { db[$1] = $2; next }
     FILENAME ~ /\.a$/ { k = $1 " " $2 " " $3 " " $4 " " $5; a[k] = $6; sa[k] = $8; next }
     { k = $1 " " $2 " " $3 " " $4 " " $5
       if (!(k in a)) { onlyb++; next }
       r = a[k] > 0 ? $6 / a[k] : 0
       bound = sa[k] + $8 + da[$1] + db[$1]
       if (bound > cap) { bound = cap; capped++ }
       d = 100 * (r - 1); if (d < 0) d = -d
       ok = d <= bound
       printf "%-7s %-6s %-5s %-14s %-15s %10.1f %10.1f %7.3f %7.2f %s\n", $1, $2, $3, $4, $5, a[k], $6, r, bound, ok ? "yes" : "NO"
       g = $1 " " $2 " " $3 " " $4; if (!(g in n)) order[++m] = g
       n[g]++; ratio[g, n[g]] = r; agree[g] += ok
       both++; seen[k] = 1 }
     END { for (k in a) if (!(k in seen)) onlya++
           printf "%d kernel lattices in both; %d only in A, %d only in B\n", both, onlya, onlyb
           if (capped) printf "%d lattices with bounds capped at %d %% (their rows scatter more: a ratio there says little)\n", capped, cap
           if (!both) {
               print "diff: the runs share no kernel at any lattice: nothing to compare" > "/dev/stderr"
               exit 2 }
           print "per kernel (median B/A over the shared lattices):"
           for (j = 1; j <= m; j++) {
               g = order[j]; k = n[g]
               for (p = 1; p <= k; p++) for (q = p + 1; q <= k; q++) if (ratio[g, q] < ratio[g, p]) { x = ratio[g, p]; ratio[g, p] = ratio[g, q]; ratio[g, q] = x }
               med = k % 2 ? ratio[g, (k + 1) / 2] : (ratio[g, k / 2] + ratio[g, k / 2 + 1]) / 2
               split(g, f, " ")
               printf "  %-7s %-6s %-5s %-14s median B/A %.3f, %d of %d lattices within the bound%s\n", f[1], f[2], f[3], f[4], med, agree[g], k, agree[g] == k ? "" : ": DIFFERS"
               if (agree[g] == k) groups_ok++
               else { differ = differ (nd++ < 4 ? (nd > 1 ? ", " : "") f[1] " " f[2] " " f[3] " " f[4] : "") }
               lat_ok += agree[g]
           }
           if (nd > 4) differ = differ ", ..."
           if (!nd) printf "diff: runs agree: %d of %d kernels within bounds at every shared lattice (%d of %d lattices)\n", groups_ok, m, lat_ok, both
           else printf "diff: runs DIFFER: %d of %d kernels outside bounds (%s); %d of %d lattices within\n", nd, m, differ, lat_ok, both
           exit nd ? 1 : 0 }' \
    "$t.da" "$t.db" "$t.a" "$t.b"
