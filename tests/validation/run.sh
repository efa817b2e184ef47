#!/bin/sh
# The model against kernels the suite did not write (issue 56): every
# corpus kernel of tests/validation/ (a source NAME.cl in the kernel
# dialect beside its description NAME.kernel) is compiled, verified
# against a double-precision BGK reference and timed by membench --kernel
# NAME.kernel --source NAME.cl on the lattices of its "# validate:" line
# ("# validate-quick:" with --quick); then, per point, the measured MLUPS
# beside model predict --kernel NAME.kernel's (and its --before-kernel
# prediction where the model has that option) with the error.
# Results: OUT/membench-kernel.csv (every row membench wrote) and
# OUT/validation.csv (kernel, lattice, measured, predicted, error), never
# over an earlier run's without --force.
# Exit 0: every kernel verified and timed; 1: one did not verify or was not
# timed (no number of it is written); 2: bad usage or input.
# Run from the repository root after make.
set -u
usage() {
    cat <<'EOS'
usage: sh tests/validation/run.sh [--backend B] [--device N] [--data DIR] [--quick] [--out DIR] [--force]
                                  [--measured CSV] [--without NAME[,NAME]] [KERNEL...]
  --backend B   cuda, opencl or openmp (default: the best device's)
  --device N    device index of that backend
  --data DIR    the device's results, to predict from (default: data/<its slug>, else
                results/<its slug>/latest; none: measured MLUPS only)
  --quick       the small lattices of each file's "# validate-quick:" line
  --out DIR     where the CSV files go (default: results/<slug>/validation; never data/)
  --force       overwrite the CSV files of an earlier run there
  --without LIST  predict without those named corrections (model corrections --list)
  --measured CSV  predict the rows of an earlier run's membench-kernel.csv (its
                meta file beside it) instead of measuring: the same corpus judged
                again by a changed model or from another data folder; needs --data
  KERNEL...     kernel files (default: tests/validation/*.kernel), each with its .cl beside it
EOS
}
say() { printf 'run.sh: %s\n' "$*" >&2; }
backend="" device="" data="" quick="" out="" force="" measured="" without=""
need_value() { [ $# -ge 2 ] || { say "$1 needs a value"; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --backend) need_value "$@"; backend=$2; shift 2 ;;
    --device) need_value "$@"; device=$2; shift 2 ;;
    --data) need_value "$@"; data=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --measured) need_value "$@"; measured=$2; shift 2 ;;
    --without) need_value "$@"; without=$2; shift 2 ;;
    --force) force=--force; shift ;;
    --help | -h) usage; exit 0 ;;
    --*) say "unknown option '$1' (--help lists them)"; exit 2 ;;
    *) break ;;
    esac
done
[ -x membench/membench ] && [ -x model/model ] && [ -x stream/stream ] ||
    { say "run from the repository root after make (membench/membench, model/model, stream/stream)"; exit 2; }
files="$*"
[ -n "$files" ] || files=$(ls tests/validation/*.kernel)
for c in $(echo "$without" | tr ',' ' '); do
    model/model corrections --list | awk '{ print $1 }' | grep -qx -- "$c" ||
        { say "--without: no correction '$c' (model/model corrections --list names them)"; exit 2; }
done
devopts="${backend:+--backend $backend} ${device:+--device $device}"
if [ -n "$measured" ]; then
    # an earlier run predicted again: its device is the one its meta file names
    [ -f "$measured" ] || { say "--measured: no file '$measured'"; exit 2; }
    mmeta=${measured%.csv}-meta.csv
    [ -f "$mmeta" ] || { say "--measured: no $mmeta beside $measured"; exit 2; }
    head -n 1 "$measured" | grep -q '^device,backend,kernel_file,' ||
        { say "--measured: '$measured' is not a membench-kernel.csv"; exit 2; }
    [ -n "$data" ] || { say "--measured needs --data DIR (the folder to predict from)"; exit 2; }
    slug=$(awk -F, '$1 == "slug" { print $2 }' "$mmeta")
    [ -n "$slug" ] || { say "--measured: $mmeta names no slug"; exit 2; }
else
    # shellcheck disable=SC2086
    slug=$(stream/stream $devopts --describe 2>/dev/null | awk -F, '$1 == "slug" { print $2 }')
    [ -n "$slug" ] || { say "no device${backend:+ for --backend $backend} (stream/stream --list shows what was found)"; exit 2; }
fi
if [ -z "$data" ]; then
    data=data/$slug
    [ -d "$data" ] || data=results/$slug/latest
    [ -d "$data" ] || data=""
fi
[ -z "$data" ] || [ -d "$data" ] || { say "--data: '$data' is not a folder of the device's results"; exit 2; }
[ -n "$out" ] || out=results/$slug/validation
case "$(cd "$(dirname "$out")" 2>/dev/null && pwd -P)/$(basename "$out")/" in
"$(pwd -P)"/data/*) say "--out $out: results never go to data/ (the committed reference runs)"; exit 2 ;;
esac
if [ -z "$force" ]; then
    for f in membench-kernel.csv validation.csv; do
        [ -e "$out/$f" ] && { say "$out/$f exists: give --force to overwrite it, or another --out"; exit 2; }
    done
fi
mkdir -p "$out" || { say "cannot make $out"; exit 2; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
line=validate; [ -n "$quick" ] && line=validate-quick
merged=$work/membench-kernel.csv
n=0 failed=""
if [ -n "$measured" ]; then
    cp "$measured" "$merged" && cp "$mmeta" "$work/meta.csv" || exit 1
    files=""
fi
for f in $files; do
    [ -f "$f" ] || { say "'$f' is not a file"; exit 2; }
    src=${f%.kernel}.cl
    [ -f "$src" ] || { say "$f: no source $src beside it"; exit 2; }
    sizes=$(sed -n "s/^# $line: *//p" "$f" | head -n 1)
    [ -n "$sizes" ] || { say "$f: no '# $line: NXxNYxNZ,...' line"; exit 2; }
    n=$((n + 1))
    # shellcheck disable=SC2086
    membench/membench $devopts $quick --kernel "$f" --source "$src" --size "$sizes" --out "$work/k$n" >"$work/log" 2>&1
    rc=$?
    grep '^  verified' "$work/log"
    if [ "$rc" -ne 0 ]; then
        cat "$work/log" >&2
        [ "$rc" -eq 2 ] && { say "$f: membench refused it (exit 2)"; exit 2; }
        failed="$failed $f"
        continue
    fi
    if [ -f "$merged" ]; then tail -n +2 "$work/k$n/membench-kernel.csv" >>"$merged"
    else cp "$work/k$n/membench-kernel.csv" "$merged" && cp "$work/k$n/membench-kernel-meta.csv" "$work/meta.csv"; fi
done
[ -f "$merged" ] || { say "no kernel was measured:$failed"; exit 1; }
measured_on=$(awk -F, 'NR == 2 { print $2 }' "$merged")
before=""
model/model predict --help 2>&1 | grep -q -- '--before-kernel' && before=1
# predict FILE NX NY NZ [FLAG]: the model's full-level MLUPS, or n/a
predict() {
    p=$(model/model predict --data "$data" --backend "$measured_on" --kernel "$1" --size "$2x$3x$4" ${5:+$5} \
        ${without:+--without "$without"} --json \
        2>"$work/perr" | sed -n 's/.*"full":{"mlups":\([0-9.eE+-]*\).*/\1/p')
    [ -n "$p" ] && echo "$p" || echo n/a
}
error() { [ "$1" = n/a ] && echo n/a || awk -v p="$1" -v m="$2" 'BEGIN { printf "%+.1f", 100 * (p - m) / m }'; }
table=$work/validation.csv
header="kernel,kernel_file,launch,nx,ny,nz,word_bytes,launched_threads,registers,mlups_measured,mlups_predicted,error_pct"
[ -n "$before" ] && header="$header,mlups_predicted_before_kernel,error_before_kernel_pct"
echo "device,backend,$header" >"$table"
if [ -n "$before" ]; then
    printf '%-24s %-6s %16s %10s %10s %8s %10s %8s\n' kernel launch lattice measured predicted error% before error%
else
    printf '%-24s %-6s %16s %10s %10s %8s\n' kernel launch lattice measured predicted error%
fi
[ -n "$data" ] || say "no results of $slug in data/ or results/: measured MLUPS only (give --data DIR to predict)"
# the rows: columns by name, as model check-kernels reads them
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["device"], $c["kernel_file"], $c["name"], $c["launch"], $c["nx"], $c["ny"], $c["nz"], $c["word_bytes"],
            $c["launched_threads"], $c["registers"], $c["mlups_median"] }' "$merged" >"$work/rows"
while read -r dev kf name launch nx ny nz wb threads regs measured; do
    pred=n/a; [ -n "$data" ] && pred=$(predict "$kf" "$nx" "$ny" "$nz")
    err=$(error "$pred" "$measured")
    row="$dev,$measured_on,$name,$kf,$launch,$nx,$ny,$nz,$wb,$threads,$regs,$measured,$pred,$err"
    if [ -n "$before" ]; then
        pb=n/a; [ -n "$data" ] && pb=$(predict "$kf" "$nx" "$ny" "$nz" --before-kernel)
        eb=$(error "$pb" "$measured")
        row="$row,$pb,$eb"
        printf '%-24s %-6s %16s %10s %10s %8s %10s %8s\n' "$name" "$launch" "${nx}x${ny}x${nz}" "$measured" "$pred" "$err" "$pb" "$eb"
    else
        printf '%-24s %-6s %16s %10s %10s %8s\n' "$name" "$launch" "${nx}x${ny}x${nz}" "$measured" "$pred" "$err"
    fi
    echo "$row" >>"$table"
done <"$work/rows"
cp "$merged" "$out/membench-kernel.csv.tmp" && mv "$out/membench-kernel.csv.tmp" "$out/membench-kernel.csv" &&
    cp "$work/meta.csv" "$out/membench-kernel-meta.csv" &&
    cp "$table" "$out/validation.csv.tmp" && mv "$out/validation.csv.tmp" "$out/validation.csv" ||
    { say "could not write $out"; exit 1; }
echo "results in $out (membench-kernel.csv, validation.csv${data:+; predicted from $data})"
[ -n "$failed" ] && { say "did not verify or was not timed:$failed"; exit 1; }
exit 0
