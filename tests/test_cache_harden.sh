#!/bin/sh
# The OpenMP backend's object cache is checked, not trusted (issue 55, item
# 2): each reproducer of the issue, on membench's smallest run through
# --backend openmp (its probe, fill and verify kernels all come from the
# cache).  A damaged object is removed with one warning line naming the
# cache and compiled again, the run measuring what it should; a bad
# LBP_OMP_CACHE stops the run with one line (exit 2).  After every run: no
# build folder left in TMPDIR, no temporary file in the cache.
# Last line: "cache-harden: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
# the backend's build folders go to TMPDIR only where its path is short
[ ${#tmp} -le 22 ] || { rm -rf "$tmp"; tmp=$(mktemp -d /tmp/XXXXXX); }
n=0

# fresh: a folder of its own for one test ($d), with a private cache ($c)
# holding the objects of the first run (copied: one compile for all tests)
fresh() {
    n=$((n + 1))
    d=$(mktemp -d "$tmp/XXXXXX")
    c="$d/cache"
    mkdir -m 700 "$c"
    [ -d "$tmp/golden" ] && cp -p "$tmp/golden"/* "$c"/
}
# mb [WRAPPER...]: membench's tiny run with the cache $c and TMPDIR $d
# (killed after 120 s, and its files limited to 200 MB: a damaged entry
# once hung the run or filled TMPDIR); exit status in $rc, stderr in $d/err
mb() {
    rm -rf "$d/out"
    (ulimit -f 400000; exec env LBP_OMP_CACHE="$c" TMPDIR="$d" timeout 120 "$@" membench/membench \
        --backend openmp --sweeps words --words 1 --word-bytes 4 --threads 4194304 --reps 3 --out "$d/out") \
        >"$d/log" 2>"$d/err"
    rc=$?
    leftovers=$(find "$d" -maxdepth 1 -name 'lbmprobe-omp-*'; find "$c" -maxdepth 1 -name '*.tmp' ! -type l 2>/dev/null)
    if [ -z "$leftovers" ]; then ok; else bad "$label: left behind: $leftovers"; fi
}
# objects: the cache's object files (not the parsed entries of a layout
# that keeps them apart, not temporary files)
objects() {
    for f in "$c"/*; do
        case $f in *.entry | *.tmp) ;; *) [ -e "$f" ] || [ -L "$f" ] && echo "$f" ;; esac
    done
}
# warned: lines of stderr about the object cache $c
warned() { grep -cF "object cache $c:" "$d/err"; }
# best: the best bandwidth of the last run (GB/s)
best() { awk -F, 'NR > 1 && $18 > m { m = $18 } END { print m + 0 }' "$d/out/membench.csv" 2>/dev/null; }
# expect_recompiled: the run ended 0, warned once per damaged object, and
# measured what the first run did, give or take noise (a kernel that does
# nothing "moves" 10^5 GB/s and more, 10^4 times what it should)
expect_recompiled() {
    if [ "$rc" = 0 ]; then ok; else bad "$label: exit $rc: $(tail -n 3 "$d/err")"; fi
    w=$(warned)
    if [ "$w" = "$1" ]; then ok; else bad "$label: $w lines about the cache $c (want $1): $(cat "$d/err")"; fi
    top=$(best)
    if awk -v t="${top:-0}" -v first="$first" 'BEGIN { exit !(t > 0 && t < 100 * first) }'; then ok
    else bad "$label: best bandwidth $top GB/s, the first run's $first GB/s"; fi
}
# expect_clean_again: the next run loads every object as it is, silently
expect_clean_again() {
    mb
    if [ "$rc" = 0 ] && [ "$(warned)" = 0 ]; then ok; else bad "$label, run again: exit $rc: $(cat "$d/err")"; fi
    for f in $(objects); do
        if [ -f "$f" ] && [ ! -L "$f" ]; then ok; else bad "$label: $f is not a regular file again"; fi
    done
}
# expect_refused PATTERN: exit 2, one line on stderr matching PATTERN
expect_refused() {
    if [ "$rc" = 2 ] && [ "$(wc -l <"$d/err")" -eq 1 ] && grep -q -e "$1" "$d/err"; then ok
    else bad "$label: exit $rc (want 2, one line matching '$1'): $(cat "$d/err")"; fi
}
# elf_at F: the offset of the ELF image in F (0 where F is one)
elf_at() { LC_ALL=C grep -obUaP '\x7fELF' "$1" | head -n 1 | cut -d: -f1; }
# return_at_once F: F's lbp_run made to return at once (x86-64 `ret`)
return_at_once() {
    at=$(elf_at "$1")
    tail -c +$((at + 1)) "$1" >"$d/image.so"
    addr=$(nm -D --defined-only "$d/image.so" | awk '$3 == "lbp_run" { print $1 }')
    text=$(readelf -SW "$d/image.so" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".text" { print $3, $4 }')
    [ -n "$addr" ] && [ -n "$text" ] || return 1
    set -- "$1" $text
    printf '\303' | dd of="$1" bs=1 seek=$((at + 0x$addr - 0x$2 + 0x$3)) conv=notrunc 2>/dev/null
}

# the objects every test starts from
label="first run"
fresh
mb
if [ "$rc" = 0 ] && [ "$(objects | wc -l)" -ge 3 ]; then ok; else bad "first run: exit $rc: $(cat "$d/err")"; fi
first=$(best)
mkdir "$tmp/golden"
cp -p "$c"/* "$tmp/golden"/
count=$(objects | wc -l)
case $(uname -m) in x86_64 | amd64) x86=1 ;; *) x86= ;; esac

# 1. each object's lbp_run patched to return at once: once measured at
# 942,561 GB/s, exit 0, its verify kernel patched too
label="lbp_run patched to return"
if [ -n "$x86" ]; then
    fresh
    for f in $(objects); do return_at_once "$f" || bad "$label: could not patch $f"; done
    mb
    expect_recompiled "$count"
    expect_clean_again
fi

# 2. a shared object holding only a constructor, copied over each object:
# once run when loaded
label="constructor copied over the objects"
fresh
printf '#include <stdio.h>\n__attribute__((constructor)) static void run(void) { fclose(fopen(MARK, "w")); }\n' \
    >"$d/evil.c"
cc -shared -fPIC -DMARK="\"$d/ran\"" -o "$d/evil.so" "$d/evil.c"
for f in $(objects); do cp "$d/evil.so" "$f"; done
mb
if [ ! -e "$d/ran" ]; then ok; else bad "$label: its constructor ran"; fi
expect_recompiled "$count"

# 3. a symbolic link planted at the name a store once wrote through
# ("<hash>.so.entry.<pid>.tmp"): once the victim was overwritten
label="links planted at the temporary names"
fresh
echo "victim" >"$d/victim"
hashes=$(for f in $(objects); do basename "$f" | cut -d. -f1; done)
rm -f "$c"/*
mb sh -c 'h=$0 v=$1 dir=$2; shift 2
    for x in $h; do for s in so so.entry lbpobj; do ln -s "$v" "$dir/$x.$s.$$.tmp"; done; done; exec "$@"' \
    "$hashes" "$d/victim" "$c"
if [ "$rc" = 0 ]; then ok; else bad "$label: exit $rc: $(cat "$d/err")"; fi
if [ "$(cat "$d/victim")" = victim ]; then ok; else bad "$label: the victim was overwritten"; fi
if [ "$(objects | wc -l)" = "$count" ]; then ok; else bad "$label: $(objects | wc -l) objects stored (want $count)"; fi

# 4. each object cut to 8,000 bytes: once SIGBUS on every run
label="objects cut to 8000 B"
fresh
for f in $(objects); do truncate -s 8000 "$f"; done
mb
expect_recompiled "$count"
expect_clean_again

# 5. each object a FIFO: once the run hung
label="objects replaced by FIFOs"
fresh
for f in $(objects); do rm -f "$f" && mkfifo "$f"; done
mb
expect_recompiled "$count"
expect_clean_again

# 6. each object a link to /dev/zero: once TMPDIR filled
label="objects linked to /dev/zero"
fresh
for f in $(objects); do ln -sf /dev/zero "$f"; done
mb
expect_recompiled "$count"
expect_clean_again

# 7. garbage where the parsed entry is (in a file of its own, or before the
# object in the same file): once "takes 1622273736 arguments" on every run
label="garbage parsed entries"
fresh
for f in "$c"/*; do
    case $f in
    *.entry) head -c "$(wc -c <"$f")" /dev/urandom >"$d/junk" && cat "$d/junk" >"$f" ;;
    *) at=$(elf_at "$f"); [ "${at:-0}" -gt 0 ] && head -c "$at" /dev/urandom | dd of="$f" conv=notrunc 2>/dev/null ;;
    esac
done
mb
expect_recompiled "$count"
expect_clean_again

# 8. a LBP_OMP_CACHE of 622 characters: once cut to 511, the objects kept
# elsewhere
label="LBP_OMP_CACHE of 622 characters"
fresh
# zeros N: N zeros
zeros() { head -c "$1" /dev/zero | tr '\0' 0; }
long="$d"
while [ ${#long} -lt 560 ]; do long="$long/$(zeros 60)"; done
long="$long/$(zeros $((621 - ${#long})))"
c="$long"
mb
if [ ${#long} = 622 ] && [ "$rc" = 0 ] && [ "$(objects | wc -l)" = "$count" ]; then ok
else bad "$label: exit $rc, $(objects | wc -l) objects in the folder named: $(cat "$d/err")"; fi

# 9. a LBP_OMP_CACHE too long for any path: refused, not cut
label="LBP_OMP_CACHE of 5000 characters"
fresh
c="$d/$(zeros 4999)"
mb
expect_refused "LBP_OMP_CACHE: a folder of [0-9]* characters is too long"
if [ -z "$(ls "$d" | grep -v -x -e cache -e err -e log)" ]; then ok; else bad "$label: made $(ls "$d")"; fi

# 10. a file, or /dev/null: once the cache silently off
label="LBP_OMP_CACHE a file"
fresh
c="$d/file"
echo text >"$c"
mb
expect_refused "LBP_OMP_CACHE: '$c' is not a folder"
label="LBP_OMP_CACHE=/dev/null"
c=/dev/null
mb
expect_refused "LBP_OMP_CACHE: '/dev/null' is not a folder"

# 11. a folder others may write to, or another user's
label="LBP_OMP_CACHE writable by others"
fresh
chmod 777 "$c"
mb
expect_refused "LBP_OMP_CACHE: the folder '$c' is writable by its group and others"
label="LBP_OMP_CACHE writable by its group"
chmod 770 "$c"
mb
expect_refused "LBP_OMP_CACHE: the folder '$c' is writable by its group"
if [ "$(id -u)" = 0 ]; then
    label="LBP_OMP_CACHE of another user"
    chmod 700 "$c"
    chown 65534 "$c"
    mb
    expect_refused "LBP_OMP_CACHE: the folder '$c' belongs to uid 65534"
fi

# 12. the default folder not private: one warning line, the run goes on
# without a cache
label="default folder writable by others"
fresh
mkdir -p "$d/xdg/lbmprobe/openmp"
chmod 777 "$d/xdg/lbmprobe/openmp"
(unset LBP_OMP_CACHE; c=; export XDG_CACHE_HOME="$d/xdg"
    TMPDIR="$d" timeout 120 membench/membench --backend openmp --sweeps words --words 1 --word-bytes 4 \
        --threads 4194304 --reps 3 --out "$d/out" >"$d/log" 2>"$d/err"; echo $? >"$d/rc")
if [ "$(cat "$d/rc")" = 0 ] && [ "$(grep -c "object cache" "$d/err")" = 1 ] &&
    grep -q "the folder '$d/xdg/lbmprobe/openmp' is writable by its group and others.*without a cache" "$d/err" &&
    [ -z "$(ls "$d/xdg/lbmprobe/openmp")" ]; then ok
else bad "$label: exit $(cat "$d/rc"): $(cat "$d/err")"; fi

echo "cache-harden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
