#!/bin/sh
# make bench's multi-device stage (core/bench.sh calls it before the model):
# the interconnect probe between every pair of ranks (and its rings again
# beside a copy kernel on every device, --beside none,copy, which the
# model prices the exchange of overlap rows by), then lbmkernels on 1,
# 2, 4, ... ranks through MPI, one rank per device, weak scaling (a fixed
# lattice per rank) and strong scaling (one lattice), each exchange path
# the probe found, overlap on and off, in FP32 and (a GPU) FP16S, each
# scheme at its own best one-device launch in that precision
# (WORK/lbm.csv's one-rank rows; schemes that share a launch in one
# lbmkernels call).  Its rows go into the result folder: lbm.csv gains
# the rows of every run (ranks, exchange, overlap, scaling),
# interconnect.csv and interconnect-fit.csv are the probe's, ranks-meta.csv
# says what ran (launch, launch_<precision>: scheme:flags;... each
# scheme's), topology.txt what links the devices.
#   sh core/bench-ranks.sh WORK BACKEND SLUG KIND [--quick]
#   RANKS=N          ranks (default: the devices named SLUG that BACKEND sees;
#                    the stage runs from 2).  More ranks than devices
#                    (RANKS=2 on one GPU) runs them oversubscribed, to check
#                    the paths, and says so in ranks-meta.csv.
#   RANKS_PATHS      exchange paths to try (default: host peer mpi)
#   RANKS_SCHEMES    (default push,pull,split,aa; --quick: pull)
#   RANKS_PRECISIONS (default: a GPU's "fp32 fp16s", a CPU's fp32; --quick
#                    fp32), each at its own best one-device launches
#   RANKS_WEAK_SIZE  lattice per rank, a cube (GPU 256, CPU 64; --quick half)
#   RANKS_STRONG_SIZE  the strong-scaling cube (GPU: 512, or the largest
#                    multiple of 64 that fits one device; CPU 128; --quick half)
# Exit 0: ran, or nothing to run here (one device, no MPI, lbmkernels
# without MPI: a note); 1: RANKS asked for what cannot run, or a run failed
# (the other runs' rows are kept).
set -u
work=$1 backend=$2 slug=$3 kind=$4 quick=${5:-}
say() { printf 'bench: ranks: %s\n' "$*" >&2; }
skip() { # MESSAGE: nothing to run; an error only where RANKS asked for it
    if [ -n "${RANKS:-}" ]; then say "RANKS=$RANKS: $*"; exit 1; fi
    say "$*: multi-device stage skipped"; exit 0
}

# ---- what this machine can run ---------------------------------------------
command -v mpirun >/dev/null 2>&1 || skip "no mpirun (make deps installs openmpi-bin)"
lbmkernels/lbmkernels --help 2>&1 | grep -q -- '--ranks-scaling' || skip "lbmkernels was built without MPI"
devices=$(stream/stream --list 2>/dev/null | grep -c "^$backend device [0-9]*: .*slug=$slug,")
[ "$devices" -ge 1 ] || devices=1
ranks=${RANKS:-$devices}
case "$ranks" in '' | *[!0-9]*) say "RANKS=$ranks is not a whole number"; exit 1 ;; esac
[ "$ranks" -ge 2 ] || skip "$devices device(s) named $slug on $backend (RANKS=2 runs two ranks on one)"
oversubscribed=no; [ "$ranks" -gt "$devices" ] && oversubscribed=yes

# mpirun: as root only with --allow-run-as-root; more ranks than cores
# only with --oversubscribe; no binding (a rank's backend places its own
# threads: PoCL's, the CUDA driver's)
mpi="mpirun --bind-to none"
[ "$(id -u)" = 0 ] && mpi="$mpi --allow-run-as-root"
[ "$ranks" -gt "$(nproc 2>/dev/null || echo 1)" ] && mpi="$mpi --oversubscribe"
export NCCL_NVLS_ENABLE=0 # NVLink multicast stays off (no tool here uses it)

# ---- facts of the run -------------------------------------------------------
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi topo -m >"$work/topology.txt" 2>&1
cuda_aware=$(ompi_info --parsable --all 2>/dev/null | awk -F: '/mpi_built_with_cuda_support:value/ { print $NF; exit }')
mpi_version=$(mpirun --version 2>/dev/null | head -n 1)
say "$ranks ranks on $devices device(s) named $slug ($backend)$([ $oversubscribed = yes ] && echo ', oversubscribed: a check of the paths, not a scaling figure')"

# Ranks counts: 1, 2, 4, ... up to RANKS, and RANKS; --quick: 1 and RANKS
counts=1; n=2
while [ "$n" -lt "$ranks" ]; do [ -z "$quick" ] && counts="$counts $n"; n=$((n * 2)); done
counts="$counts $ranks"

# Lattices: a GPU's 256^3 a rank, and 512^3 or the largest multiple of 64
# whose two fp32 lattices (2 x 19 x 4 B a cell, a quarter spare) fit it
weak=${RANKS_WEAK_SIZE:-} strong=${RANKS_STRONG_SIZE:-}
if [ "$kind" = gpu ]; then
    mem=$(stream/stream --backend "$backend" --describe 2>/dev/null | awk -F, '$1 == "global_mem_bytes" { print $2 }')
    fit=$(awk -v m="${mem:-0}" 'BEGIN { n = 512; while (n > 64 && n ^ 3 * 152 * 1.25 > m) n -= 64; print n }')
    [ -n "$weak" ] || weak=256
    [ -n "$strong" ] || strong=$fit
else
    [ -n "$weak" ] || weak=64
    [ -n "$strong" ] || strong=128
fi
[ -n "$quick" ] && [ -z "${RANKS_WEAK_SIZE:-}" ] && weak=$((weak / 2))
[ -n "$quick" ] && [ -z "${RANKS_STRONG_SIZE:-}" ] && strong=$((strong / 2))
schemes=${RANKS_SCHEMES:-push,pull,split,aa}
[ -n "$quick" ] && [ -z "${RANKS_SCHEMES:-}" ] && schemes=pull
# FP16S halves the bytes a step and an exchange moves, which is what GPU
# codes spread over several GPUs for: a GPU runs it beside FP32; a CPU,
# whose FP16S kernels are far from its bandwidth, FP32 alone
precisions=${RANKS_PRECISIONS:-fp32}
[ -z "${RANKS_PRECISIONS:-}" ] && [ "$kind" = gpu ] && [ -z "$quick" ] && precisions="fp32 fp16s"
for p in $precisions; do
    case $p in fp32 | fp64 | fp16s) ;; *) say "RANKS_PRECISIONS: '$p' is not fp32, fp64 or fp16s"; exit 1 ;; esac
done

# Each scheme runs at its own best one-device launch in the precision
# (block size and cells per thread of its best MLUPS at its largest
# lattice), so that its multi-rank rows differ from its one-device ones by
# the decomposition alone, and the one-device model's miss at a launch the
# scheme never runs best at does not enter them.  Schemes that share a
# launch share an lbmkernels call; a scheme without one-device rows joins
# the first group (its launch is free, a call is not).  One line a group:
# SCHEMES|FLAGS.
groups_of() { # PRECISION
    cat "$work/lbm.csv" 2>/dev/null | awk -F, -v b="$backend" -v list="$schemes" -v prec="$1" '
    NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    $h["backend"] == b && $h["precision"] == prec && (!("ranks" in h) || $h["ranks"] == 1) &&
        (!("scaling" in h) || $h["scaling"] == "none" || $h["scaling"] == "") {
        s = $h["scheme"]; c = $h["cells"] + 0; m = $h["mlups_median"] + 0
        if (!(s in bc) || c > bc[s] || (c == bc[s] && m > bm[s])) {
            bc[s] = c; bm[s] = m; cpt = ("cells_per_thread" in h) ? $h["cells_per_thread"] : ""
            flags[s] = sprintf("--block-size %s%s", $h["block_size"], (cpt == "" ? "" : cpt == 0 ? " --cells-per-thread row" : " --cells-per-thread " cpt))
        } }
    END {
        n = split(list, want, ",")
        for (i = 1; i <= n; i++) { s = want[i]; if (!(s in flags)) continue
            if (!(flags[s] in g)) { g[flags[s]] = ++ng; key[ng] = flags[s]; members[ng] = s } else members[g[flags[s]]] = members[g[flags[s]]] "," s }
        for (i = 1; i <= n; i++) { s = want[i]; if (s in flags) continue
            if (ng == 0) { ng = 1; key[1] = ""; members[1] = s } else members[1] = members[1] "," s }
        for (i = 1; i <= ng; i++) print members[i] "|" key[i] }'
}
# what ranks-meta.csv records of a precision's groups: scheme:FLAGS;scheme:FLAGS...
launch_of() { # GROUPS
    echo "$1" | awk -F'|' '{ n = split($1, s, ","); for (i = 1; i <= n; i++) printf "%s%s:%s", (o++ ? ";" : ""), s[i], $2 }'
}

# append_rows SRC DST: SRC's rows after DST's; the headers must agree
append_rows() {
    [ -f "$2" ] || { cp "$1" "$2"; return; }
    if [ "$(head -n 1 "$1")" != "$(head -n 1 "$2")" ]; then
        say "$1 and $2 have different columns: rows not merged"
        return 1
    fi
    tail -n +2 "$1" >>"$2"
}

failed="" unavailable="" commit="" run=$work/.ranks-run
# RUN NAME NP TOOL ARGS...: one mpirun into $run; 0 ran, 1 failed,
# 2 the tool said a path is not available here
mpi_run() {
    name=$1 np=$2
    shift 2
    rm -rf "$run"
    t0=$(date +%s)
    say "$name on $np rank(s)"
    $mpi -np "$np" "$@" --out "$run" --force $quick >"$run.log" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        # the commit the tools were built at: a folder whose one-device rows
        # came from another run says which commit measured these
        [ -n "$commit" ] || commit=$(awk -F, '$1 == "git_commit" { print $2; exit }' "$run"/*-meta.csv 2>/dev/null)
        say "$name took $(( $(date +%s) - t0 )) s"
        return 0
    fi
    if grep -qi "not available" "$run.log"; then
        say "$name: $(grep -i -m 1 "not available" "$run.log")"
        return 2
    fi
    say "$name failed (exit $rc): $(tail -n 3 "$run.log" | tr '\n' ' ')"
    return 1
}

# ---- the interconnect probe ---------------------------------------------------
# Whichever tool offers it (--interconnect); its fits say which paths
# work here, so lbmkernels tries those (and host, which always does)
paths=${RANKS_PATHS:-host peer mpi}
probe="" beside=""
for t in stream membench; do
    "$t/$t" --help 2>&1 | grep -q -- '--interconnect' && { probe=$t/$t; break; }
done
# the exchange alone and beside a copy (with overlap the exchange runs
# beside the interior kernel): where the probe offers it
[ -n "$probe" ] && "$probe" --help 2>&1 | grep -q -- '--beside' && beside="--beside none,copy"
if [ -z "$probe" ]; then
    say "no tool offers --interconnect: no interconnect fit, so the model cannot predict the multi-rank rows"
    failed="$failed interconnect"
elif mpi_run interconnect "$ranks" $probe --backend "$backend" --interconnect $beside; then
    for f in "$run"/interconnect*.csv; do [ -f "$f" ] && cp "$f" "$work/"; done
    found=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h["path"] }' \
        "$work/interconnect-fit.csv" 2>/dev/null | sort -u | tr '\n' ' ')
    keep=""
    for p in $paths; do
        case " $found host " in *" $p "*) keep="$keep $p" ;; *) unavailable="$unavailable $p" ;; esac
    done
    paths=$keep
    say "interconnect probe measured: $found; lbmkernels runs:$paths"
else
    failed="$failed interconnect"
fi

# ---- lbmkernels on 1, 2, 4, ... ranks -----------------------------------------
launches=""
for prec in $precisions; do
    # the one-device rows only: those appended below are not launches
    groups=$(groups_of "$prec")
    ngroups=$(echo "$groups" | grep -c .)
    launches="$launches$prec=$(launch_of "$groups")
"
    for scaling in weak strong; do
        size=$weak; [ $scaling = strong ] && size=$strong
        for np in $counts; do
            if [ $scaling = strong ] && [ $((size % np)) != 0 ]; then
                say "strong scaling: $np ranks do not divide $size planes: skipped"
                continue
            fi
            # one rank exchanges nothing: its row is the baseline of the others
            try=$paths; [ "$np" = 1 ] && try=host
            for p in $try; do
                overlap=both; [ "$np" = 1 ] && overlap=off
                for g in $(echo "$groups" | tr ' ' '+'); do
                    case " $unavailable " in *" $p "*) continue ;; esac
                    members=${g%%|*} flags=$(echo "${g#*|}" | tr '+' ' ')
                    tag=$scaling-$np-$p; [ "$ngroups" = 1 ] || tag=$tag-$(echo "$members" | tr ',' '+')
                    [ "$prec" = fp32 ] || tag=$tag-$prec
                    mpi_run "$scaling $size^3 $p $members $prec" "$np" lbmkernels/lbmkernels --backend "$backend" --schemes "$members" \
                        --precisions $prec --sizes "$size" $flags --ranks-scaling $scaling --exchange "$p" --overlap $overlap
                    case $? in
                    0) append_rows "$run/lbm.csv" "$work/lbm.csv" || failed="$failed $tag" ;;
                    2) unavailable="$unavailable $p" ;;
                    *) failed="$failed $tag" ;;
                    esac
                done
            done
        done
    done
done
rm -rf "$run" "$run.log"
# launch: FP32's (the first precision's where FP32 is not run); launch_P: each other's
launch_key() { echo "$launches" | awk -F= -v p="$1" '$1 == p { sub(/^[^=]*=/, ""); print; exit }'; }
first_prec=fp32; case " $precisions " in *" fp32 "*) ;; *) first_prec=$(echo $precisions | awk '{ print $1 }') ;; esac

{
    echo "key,value"
    echo "ranks,$ranks"
    echo "devices,$devices"
    echo "oversubscribed,$oversubscribed"
    echo "counts,$(echo $counts | tr ' ' ';')"
    echo "weak_size,$weak"
    echo "strong_size,$strong"
    echo "schemes,$(echo "$schemes" | tr ',' ';')"
    echo "precisions,$(echo $precisions | tr ' ' ';')"
    echo "launch,$(launch_key $first_prec)"
    for prec in $precisions; do [ "$prec" = "$first_prec" ] || echo "launch_$prec,$(launch_key "$prec")"; done
    echo "paths_run,$(echo $paths | tr ' ' ';')"
    echo "paths_unavailable,$(echo $unavailable | tr ' ' ';')"
    echo "interconnect_beside,$([ -n "$beside" ] && echo 'none;copy' || echo none)"
    echo "failed,$(echo $failed | tr ' ' ';')"
    echo "mpirun,\"$mpi\""
    echo "mpi_version,\"$mpi_version\""
    echo "mpi_cuda_support,${cuda_aware:-unknown}"
    echo "git_commit,${commit:-unknown}"
} >"$work/ranks-meta.csv"
[ -z "$failed" ] || { say "failed:$failed"; exit 1; }
exit 0
