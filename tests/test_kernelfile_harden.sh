#!/bin/sh
# A kernel file cannot run code, nor parse into a value it does not say
# (issue 55, items 1 and 4).  Every reader of kernel files (model predict
# --kernel, model check-kernels, membench --kernel, --tile-from and
# --geometry-from) refuses a bad file with exit 2 and one line naming the
# file, the line and the key, echoes no line that is not a kernel-file
# line, writes nothing, and never blocks on a FIFO (each run under timeout
# 10).  A name with a constructor payload is refused before anything is
# compiled: the payload's marker file never appears.
# Last line: "kernelfile-harden: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
root=$PWD
predict="$root/model/model predict --data $root/tests/model-data/launch --backend cuda --size 100x20x20"
openmp=0
membench/membench --backend openmp --describe >/dev/null 2>&1 && openmp=1
# the openmp backend's compile cache: this test's own
export LBP_OMP_CACHE="$tmp/omp-cache"

# refused WHAT CMD...: exit 2 within 10 s, exactly one stderr line that
# contains WHAT (fixed text), no escape byte, no byte above 0x7e
refused() {
    what=$1; shift
    timeout 10 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc = 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$what" "$tmp/err" &&
        ! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177-\377]')" "$tmp/err"; then ok
    else bad "$(echo "$*" | cut -c1-160): exit $rc (want 2; 124 is a hang), $lines line(s), want '$what': $(head -c 300 "$tmp/err" | od -c | head -5)"; fi
}

# kfile NAME TEXT: $tmp/NAME holding TEXT (printf's escapes)
kfile() { printf "$2" >"$tmp/$1"; }
ok_line='words_read = 19\n'

# ---- item 1: the name runs no code, breaks no CSV, reaches no console ----
# the payloads: a constructor that would create the marker $tmp/run/M
mkdir -p "$tmp/run"
i=0
for name in '*/[[gnu::constructor]]f(){system("touch M");}/*' \
    '*/__attribute__((constructor))g(){creat("M",0);}/*' \
    'a,b"c' 'q"uote' 'back\\\\slash' 'star*/slash' 'sp ace' 'tab\tin' 'ctl\001x' 'del\177x' \
    'esc\033[31mred\033[0m' 'bell\007' 'cr\rx' 'non-ascii-\303\251' 'high\377' 'utf8-\342\204\223' \
    'semi;colon' 'dollar$x' 'paren(x)' 'slash/x' 'tick`id`' "apos'x" 'brace{x}' 'hash-in-name\\#x' \
    '012345678901234567890123456789012345678901234567'; do
    i=$((i + 1))
    kfile "n$i.kernel" "name = $name\n$ok_line"
    refused "n$i.kernel:1: name:" $predict --kernel "$tmp/n$i.kernel"
    if [ $openmp = 1 ]; then
        cd "$tmp/run" || exit 1
        refused "n$i.kernel:1: name:" "$root/membench/membench" --backend openmp --kernel "$tmp/n$i.kernel" \
            --size 16x4x4 --reps 2 --out "$tmp/run/o$i"
        cd "$root" || exit 1
        [ ! -e "$tmp/run/o$i" ] && ok || bad "membench --kernel n$i.kernel wrote $tmp/run/o$i"
    fi
    refused "n$i.kernel:1: name:" membench/membench --tile-from "$tmp/n$i.kernel"
done
# a newline ends the name: what follows is a line of its own, never echoed
kfile nl.kernel 'name = a\n*/[[gnu::constructor]]f(){system("touch M");}/*\nwords_read = 19\n'
refused "nl.kernel:2: not a 'key = value' line" $predict --kernel "$tmp/nl.kernel"
! grep -q constructor "$tmp/err" && ok || bad "the line after a name's newline was echoed: $(cat "$tmp/err")"
[ ! -e "$tmp/run/M" ] && [ ! -e M ] && ok || bad "a payload in a kernel name ran: the marker exists"
# the names the project uses still pass
kfile good.kernel 'name = d3q19-push_grid.v2\nwords_read = 19\n'
timeout 10 $predict --kernel "$tmp/good.kernel" >"$tmp/out" 2>&1 && ok || bad "a plain name refused: $(cat "$tmp/out")"
# membench's CSV paths: a comma, a quote, a newline or a control byte in
# the path of --kernel is refused before anything runs
if [ $openmp = 1 ]; then
    for p in 'a,b.kernel' 'q"p.kernel' 'nl
x.kernel' "$(printf 'esc\033[1m.kernel')"; do
        cp "$tmp/good.kernel" "$tmp/$p"
        refused "--kernel" membench/membench --backend openmp --kernel "$tmp/$p" --size 16x4x4 --out "$tmp/p"
    done
    [ ! -e "$tmp/p" ] && ok || bad "a refused --kernel path left $tmp/p"
fi

# ---- item 4: values are what the file says, or refused ------------------
kfile b1.kernel "name = b\n${ok_line}launch = grid\nblock = 4294967297x1x1\n"
refused "b1.kernel:4: block: '4294967297x1x1' is out of range" $predict --kernel "$tmp/b1.kernel"
kfile b2.kernel "name = b\n${ok_line}launch = grid\nblock = 4294967328x1x1\n"
refused "b2.kernel:4: block:" $predict --kernel "$tmp/b2.kernel"
refused "b2.kernel:4: block:" membench/membench --tile-from "$tmp/b2.kernel"
if [ $openmp = 1 ]; then
    refused "b2.kernel:4: block:" membench/membench --backend openmp --kernel "$tmp/b2.kernel" --size 16x4x4 \
        --out "$tmp/b2"
    [ ! -e "$tmp/b2" ] && ok || bad "a refused block left $tmp/b2"
fi
kfile b3.kernel "name = b\n${ok_line}launch = grid\nblock = 32x-1x1\n"
refused "b3.kernel:4: block:" $predict --kernel "$tmp/b3.kernel"
kfile m1.kernel "name = m\n${ok_line}misaligned_reads = 1 0\n"
refused "m1.kernel:3: misaligned_reads: a space inside the value" $predict --kernel "$tmp/m1.kernel"
kfile m2.kernel "name = m\nwords_read = 1 9\n"
refused "m2.kernel:2: words_read: a space inside the value" $predict --kernel "$tmp/m2.kernel"
kfile m3.kernel "name = m\n${ok_line}misaligned_reads = 0 , 10\n" # spaces around a list's comma are fine
timeout 10 $predict --kernel "$tmp/m3.kernel" >"$tmp/out" 2>&1 && ok || bad "'0 , 10' refused: $(cat "$tmp/out")"
zeros=$(printf '0%.0s' $(seq 254))
kfile long.kernel "name = l\n${ok_line}misaligned_reads = ${zeros}10\n"
refused "long.kernel:3: misaligned_reads: a value of 256 characters" $predict --kernel "$tmp/long.kernel"
kfile big.kernel "name = b\nwords_read = 18446744073709551635\n"
refused "big.kernel:2: words_read: '18446744073709551635' is out of range" $predict --kernel "$tmp/big.kernel"
kfile lps.kernel "name = b\n${ok_line}launches_per_step = 4294967297\n"
refused "lps.kernel:3: launches_per_step:" $predict --kernel "$tmp/lps.kernel"

# a FIFO, a folder, a device, a file too large: one line, never a hang
mkfifo "$tmp/fifo.kernel"
mkdir "$tmp/dir.kernel"
head -c 20000 /dev/zero | tr '\0' '#' >"$tmp/huge.kernel"
data=tests/model-data/gpu
dev=$(awk -F, 'NR == 2 { print $1 }' $data/stream.csv)
be=$(awk -F, 'NR == 2 { print $2 }' $data/stream.csv)
header="device,backend,kernel_file,name,launch,nx,ny,nz,launched_threads,word_bytes,mlups_median"
for f in fifo dir huge dev; do
    if [ $f = dev ]; then p=/dev/zero what="/dev/zero: a character device"; else p=$tmp/$f.kernel; fi
    case $f in fifo) what="$p: a FIFO" ;; dir) what="$p: a directory" ;; huge) what="$p: 20000 bytes" ;; esac
    refused "$what" $predict --kernel "$p"
    refused "$what" membench/membench --tile-from "$p"
    refused "$what" membench/membench --backend openmp --geometry-from "$p" --size 16x16x16
    [ $openmp = 1 ] && refused "$what" membench/membench --backend openmp --kernel "$p" --size 16x4x4 --out "$tmp/f"
    { echo "$header"; echo "$dev,$be,$p,x,linear,16,16,16,4096,4,100"; } >"$tmp/check.csv"
    refused "$what" model/model check-kernels --data $data --backend "$be" --measured "$tmp/check.csv"
done
[ ! -e "$tmp/f" ] && ok || bad "a refused kernel file left $tmp/f"
# check-kernels prints each row's name: one that is no kernel name (an
# escape sequence, a comma's quoted field) is refused before it is printed
for name in "$(printf 'x\033[2Jy')" '"a,b"' 'sp ace'; do
    { echo "$header"; echo "$dev,$be,tests/kernels/d3q27-grid.kernel,$name,grid,4096,64,64,16777216,4,100"; } \
        >"$tmp/check.csv"
    refused "check.csv:2: column 'name': not a kernel name" \
        model/model check-kernels --data $data --backend "$be" --measured "$tmp/check.csv"
done

# a file that is no kernel file: its lines are never echoed
printf 'root:$6$S3cr3tSalt$S3cr3tHash:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n' >"$tmp/shadow"
refused "shadow:1: not a 'key = value' line" $predict --kernel "$tmp/shadow"
! grep -q S3cr3t "$tmp/err" && ok || bad "a line of a file that is no kernel file was echoed: $(cat "$tmp/err")"
printf 'PASS$WORD=S3cr3t\n' >"$tmp/keyish"
refused "keyish:1: not a 'key = value' line" $predict --kernel "$tmp/keyish"
! grep -q S3cr3t "$tmp/err" && ok || bad "a line of a file that is no kernel file was echoed: $(cat "$tmp/err")"
if [ -r /etc/shadow ]; then
    timeout 10 $predict --kernel /etc/shadow >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && grep -qx "model: /etc/shadow:1: not a 'key = value' line.*" "$tmp/err" &&
        [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(wc -c <"$tmp/err")" -lt 200 ] && ok ||
        bad "/etc/shadow as a kernel file: exit $rc, $(wc -l <"$tmp/err") line(s)"
fi

echo "kernelfile-harden: $passed passed, $failed failed"
[ $failed -eq 0 ]
