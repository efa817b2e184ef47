#!/bin/sh
# The model against kernels it was not built from: every kernel description
# file given (default: tests/kernels/*.kernel) is timed by membench --kernel
# at the lattices of its "# check:" line ("# check-quick:" with --quick),
# then model check-kernels prints, per kernel and lattice, the launch, the
# threads launched and idle, predicted and measured MLUPS and the error.
# With --launch-probe LIST each file's launch is measured too at those N
# aligned words (membench --launch-probe), and the model predicts from a
# copy of DIR with them (membench-launch.csv, doc/kernels.md).
# Exit 0: every point within its bar (5 % at 128^3 cells and more, 10 %
# below); 1: a point over it or a failed measurement; 2: bad usage or input.
# Run from the repository root after make.
set -u
usage() {
    cat <<'EOF'
usage: sh tests/kernels/check.sh [--backend B] [--device N] [--data DIR] [--quick] [--keep FILE]
                                 [--launch-probe LIST [--keep-probes FILE]] [KERNEL...]
  --backend B   cuda or opencl (default: the best device's)
  --device N    device index of that backend
  --data DIR    the device's results, to predict from (default: data/<its slug>, else results/<its slug>/latest)
  --quick       the small lattices of each file's "# check-quick:" line
  --keep FILE   copy the merged membench-kernel.csv there
  --launch-probe LIST  measure each file's launch at these N (e.g. 19,27) and
                predict from a copy of DIR with those probes
  --keep-probes FILE   copy the merged membench-launch.csv there (and the first
                probe run's meta file beside it, FILE less .csv, -meta.csv)
  KERNEL...     kernel description files (default: tests/kernels/*.kernel)
EOF
}
say() { printf 'check.sh: %s\n' "$*" >&2; }
backend="" device="" data="" quick="" keep="" probe_words="" keep_probes=""
need_value() { [ $# -ge 2 ] || { say "$1 needs a value"; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --backend) need_value "$@"; backend=$2; shift 2 ;;
    --device) need_value "$@"; device=$2; shift 2 ;;
    --data) need_value "$@"; data=$2; shift 2 ;;
    --keep) need_value "$@"; keep=$2; shift 2 ;;
    --launch-probe) need_value "$@"; probe_words=$2; shift 2 ;;
    --keep-probes) need_value "$@"; keep_probes=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --help | -h) usage; exit 0 ;;
    --*) say "unknown option '$1' (--help lists them)"; exit 2 ;;
    *) break ;;
    esac
done
[ -x membench/membench ] && [ -x model/model ] && [ -x stream/stream ] ||
    { say "run from the repository root after make (membench/membench, model/model)"; exit 2; }
files="$*"
[ -n "$files" ] || files=$(ls tests/kernels/*.kernel)
devopts="${backend:+--backend $backend} ${device:+--device $device}"
if [ -z "$data" ]; then
    # shellcheck disable=SC2086
    slug=$(stream/stream $devopts --describe | awk -F, '$1 == "slug" { print $2 }')
    [ -n "$slug" ] || { say "no device (stream/stream --list shows what was found)"; exit 2; }
    # the committed reference, else this machine's own newest bench run
    data=data/$slug
    [ -d "$data" ] || data=results/$slug/latest
    [ -d "$data" ] || { say "no results for $slug in data/$slug or results/$slug/latest: run make bench, or give --data DIR"; exit 2; }
fi
[ -d "$data" ] || { say "--data: '$data' is not a folder of the device's results (make bench writes one)"; exit 2; }
# the model reads the device's probes only once the kernels are timed: a
# folder without them is refused now, not after minutes of measurement
for need in stream.csv stream-meta.csv membench.csv; do
    [ -f "$data/$need" ] || { say "--data: '$data' has no $need (not a folder of make bench's results)"; exit 2; }
done
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
line=check; [ -n "$quick" ] && line=check-quick
merged=$work/membench-kernel.csv probes=$work/membench-launch.csv
n=0 failed=""
# measure TAG CSV DEST ARGS...: membench --kernel on $f's lattices with ARGS
# into $work/TAG$n, CSV's rows appended to DEST (the first run's meta file
# kept as DEST.meta); 1 after a failed measurement, exit 2 on a refusal
measure() {
    tag=$1 csv=$2 dest=$3; shift 3
    # shellcheck disable=SC2086
    membench/membench $devopts $quick --kernel "$f" --size "$sizes" "$@" --out "$work/$tag$n" >"$work/log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$work/log" >&2
        [ "$rc" -eq 2 ] && { say "$f: membench --kernel${*:+ $*} refused it (exit 2)"; exit 2; }
        failed="$failed $f${tag:+($tag)}"
        return 1
    fi
    if [ -f "$dest" ]; then tail -n +2 "$work/$tag$n/$csv" >>"$dest"
    else cp "$work/$tag$n/$csv" "$dest" && cp "$work/$tag$n/${csv%.csv}-meta.csv" "$dest.meta"; fi
}
for f in $files; do
    [ -f "$f" ] || { say "'$f' is not a file"; exit 2; }
    sizes=$(sed -n "s/^# $line: *//p" "$f" | head -n 1)
    [ -n "$sizes" ] || { say "$f: no '# $line: NXxNYxNZ,...' line"; exit 2; }
    n=$((n + 1))
    measure "" membench-kernel.csv "$merged" || continue
    [ -z "$probe_words" ] || measure probes membench-launch.csv "$probes" --launch-probe "$probe_words"
done
[ -f "$merged" ] || { say "no kernel was measured:$failed"; exit 1; }
[ -n "$keep" ] && cp "$merged" "$keep"
if [ -f "$probes" ]; then
    [ -n "$keep_probes" ] && cp "$probes" "$keep_probes" && cp "$probes.meta" "${keep_probes%.csv}-meta.csv"
    cp -r "$data" "$work/data" && cp "$probes" "$work/data/" && cp "$probes.meta" "$work/data/membench-launch-meta.csv" ||
        { say "could not copy $data with the probes"; exit 1; }
    data=$work/data
fi
measured_on=$(awk -F, 'NR == 2 { print $2 }' "$merged")
model/model check-kernels --data "$data" --backend "$measured_on" --measured "$merged"
rc=$?
[ -n "$failed" ] && { say "measurement failed:$failed"; [ "$rc" -eq 0 ] && rc=1; }
exit "$rc"
