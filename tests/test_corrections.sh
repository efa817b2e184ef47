#!/bin/sh
# The catalog of named corrections (model/corrections/corrections.h): every name
# listed once; --without and --corrections switch them (an unknown name:
# one line, exit 2); --corrections all is the default and --corrections
# none the equations alone, which no correction then changes; validate's
# corr_* column of a correction is the before-the-kernel MLUPS with it over
# without it, as model predict --before-kernel --without NAME gives it;
# model corrections tables a row per correction from model.csv and refuses
# a model.csv without the columns; tile and narrow read rows by their bytes.
# On the frozen H100 fixture.
# Last line: "corrections: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
fx=tests/fixtures/nvidia-h100-80gb-hbm3
m=model/model

names=$($m corrections --list | awk '{ print $1 }')
nn=$(echo "$names" | grep -c .)
[ "$nn" -ge 5 ] && [ "$(echo "$names" | sort -u | grep -c .)" = "$nn" ] && ok || bad "corrections --list: $names"

# full MLUPS of model predict ARGS
full() { $m predict --data $fx "$@" --json | sed -n 's/.*"full":{"mlups":\([0-9.eE+-]*\).*/\1/p'; }
k="--scheme pull --precision fp16s --size 256"
# shellcheck disable=SC2086
d=$(full $k) a=$(full $k --corrections all) none=$(full $k --corrections none) wc=$(full $k --without compute)
[ -n "$d" ] && [ "$d" = "$a" ] && ok || bad "--corrections all ($a) is not the default ($d)"
[ -n "$none" ] && [ -n "$wc" ] && [ "$wc" != "$d" ] && ok || bad "--without compute ($wc) changes nothing ($d)"
# shellcheck disable=SC2086
$m predict --data $fx $k --corrections none >"$tmp/none" 2>&1
grep -q "none changes it; off: " "$tmp/none" && ok || bad "--corrections none: $(tail -2 "$tmp/none")"
for opt in "--without bogus" "--corrections vector,bogus"; do
    # shellcheck disable=SC2086
    $m predict --data $fx $k $opt >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && [ "$(grep -c . "$tmp/err")" = 1 ] && grep -q "no correction 'bogus'" "$tmp/err" && ok ||
        bad "$opt: exit $rc: $(cat "$tmp/err")"
done

# validate's corr_compute: before-kernel MLUPS with over without, as
# validate --without compute predicts the same row
cp -r $fx "$tmp/v" && rm -f "$tmp/v"/model*.csv && cp -r "$tmp/v" "$tmp/w"
$m validate --data "$tmp/v" >/dev/null 2>&1
$m validate --data "$tmp/w" --without compute >/dev/null 2>&1
paste -d, "$tmp/v/model.csv" "$tmp/w/model.csv" | awk -F, '
    NR == 1 { for (i = 1; i <= NF / 2; i++) c[$i] = i; h = NF / 2; next }
    $c["ranks"] == 1 && $c["corr_compute"] > 0 && $c["corr_compute"] != 1 {
        n++; w = $c["before_kernel_mlups"] / $c["corr_compute"]; o = $(h + c["before_kernel_mlups"])
        if (!(o > 0) || (w - o) / o > 1e-3 || (o - w) / o > 1e-3) { bad++; print "row " NR ": " w " vs " o } }
    END { print n + 0, bad + 0 }' >"$tmp/cmp"
read -r n_eff n_bad <<EOS
$(tail -1 "$tmp/cmp")
EOS
[ "$n_eff" -gt 0 ] && [ "$n_bad" = 0 ] && ok || bad "corr_compute over $n_eff points, $n_bad not validate --without compute's: $(head -3 "$tmp/cmp")"
$m corrections "$tmp/v" >"$tmp/table" 2>&1; rc=$?
rows=$(awk 'NR > 2' "$tmp/table" | grep -c .)
[ $rc = 0 ] && [ "$rows" = "$(echo "$names" | grep -c .)" ] && ok || bad "corrections DIR: exit $rc, $rows rows for $nn corrections: $(cat "$tmp/table")"
cut -d, -f1-40 "$tmp/v/model.csv" >"$tmp/old.csv" && mkdir "$tmp/old" && mv "$tmp/old.csv" "$tmp/old/model.csv"
$m corrections "$tmp/old" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "no column corr_" "$tmp/err" && ok || bad "model.csv without corr_*: exit $rc: $(cat "$tmp/err")"
$m corrections >/dev/null 2>&1; [ $? = 2 ] && ok || bad "corrections without a folder did not exit 2"

# tile and narrow read a warp's rows by their bytes: blocks 8 wide of
# 2-byte words move 16 bytes a row, which the 4-byte sweeps move at BX = 4
# (the 4-byte tile at 8x8x4 moves 32: not read); 4-byte words at 8x8x4 read
# the tile sweep there
$m predict --data $fx --kernel tests/validation/d3q19-pull-grid-fp16s.kernel --size 256 >"$tmp/p16" 2>&1
grep -q "tile sweep at 8x8x4 measured at 4-byte words only: rows of 32 bytes there, the kernel's 16" "$tmp/p16" &&
    grep -q "read on the narrow sweep at BX=4" "$tmp/p16" && ok || bad "8x8x4 of 2-byte words: $(grep notes "$tmp/p16")"
$m predict --data $fx --kernel tests/validation/d3q19-pull-grid-fp16s.kernel --precision fp32 --size 256 >"$tmp/p32" 2>&1
grep -q "grid of 8x8x4 blocks: level 3 x" "$tmp/p32" && ! grep -q "narrow sweep" "$tmp/p32" && ok ||
    bad "8x8x4 of 4-byte words: $(grep notes "$tmp/p32")"
echo "corrections: $passed passed, $failed failed"
[ "$failed" = 0 ]
