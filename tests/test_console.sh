#!/bin/sh
# The console a person follows (issue 54, item 7), with stub tools (no
# device, seconds): make bench in a log or a pipe prints a few lines per
# stage, never the tools' hundreds; no line cut by another (a tool that
# writes a line in pieces with stdout between them); the paths it names
# are the final folders, not the .partial ones; the warnings are counted at
# the end, their text in bench.log, which keeps every line; on a terminal
# the progress line is rewritten in place.  model summary's columns stay
# aligned where a scheme's name is longer than its header (pull-nt,
# split-nt).  tests/run.sh prints each program's line as it ends, into a
# pipe too.  Last line: "console: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
. tests/bench_stub.sh
repo=$(pwd)

# ---- make bench in a log: few lines, whole, with the final paths ----------
bench_stub_tree "$tmp/t"
(cd "$tmp/t" && STUB_NOISY=20 STUB_RECHECK=1 RUN=r sh core/bench.sh) >"$tmp/console" 2>&1
rc=$?
[ $rc = 0 ] && ok || bad "the noisy stub bench exited $rc: $(tail -n 5 "$tmp/console")"
log=$tmp/t/results/stub-dev/r/bench.log
[ -f "$log" ] && ok || bad "no bench.log in results/stub-dev/r"
# 4 stages of 20 progress lines, 4 warnings and 21 lines of stdout each:
# the console shows the stages, the model, the summary and the tally
n=$(wc -l <"$tmp/console")
[ "$n" -le 25 ] && ok || bad "the console of a stub bench has $n lines (at most 25 expected): $(head -n 40 "$tmp/console")"
grep -q '\.partial' "$tmp/console" && bad "the console names a .partial folder: $(grep '\.partial' "$tmp/console")" || ok
grep -q 'results in results/stub-dev/r ' "$tmp/console" && ok || bad "the console does not name results/stub-dev/r: $(tail -n 5 "$tmp/console")"
# a progress line whole in the log, never cut by a line of stdout; no line
# holding a second tool's prefix after its start
for f in "$tmp/console" "$log"; do
    cut=$(grep -E '^(stream|membench|lbmkernels): \[' "$f" | grep -vE '^[a-z]+: \[[0-9]+/[0-9]+\] item [0-9]+ \([0-9]+ s, about [0-9]+ s left\)$')
    [ -z "$cut" ] && ok || bad "$(basename "$f"): progress lines cut: $(echo "$cut" | head -n 3)"
    two=$(grep -E '(^|[^a-z/])(stream|membench|lbmkernels|bench): .*[^a-z/](stream|membench|lbmkernels|bench): ' "$f")
    [ -z "$two" ] && ok || bad "$(basename "$f"): a line holds two prefixes: $(echo "$two" | head -n 3)"
done
grep -q '\.partial' "$log" && bad "bench.log of a complete run names its .partial folder: $(grep '\.partial' "$log" | head -n 2)" || ok
grep -q '^results in results/stub-dev/r$' "$log" && ok || bad "bench.log lacks the tools' 'results in' lines"
# in the order the run wrote them: stdout's lines as they came, not held
# back to the end by a reader that waits for a full block
a=$(grep -n "^row 20 of stream's table" "$log" | cut -d: -f1); b=$(grep -n '^membench: \[1/20\]' "$log" | head -n 1 | cut -d: -f1)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] && ok || bad "bench.log: stream's table (line $a) after membench's progress (line $b)"
a=$(grep -n '^lbmprobe on ' "$tmp/console" | cut -d: -f1); b=$(grep -n '^bench: plots took' "$tmp/console" | cut -d: -f1)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt "$b" ] && ok || bad "the console: the summary (line $a) before the plots' line (line $b)"
# the log keeps every line: the tools' progress, tables and warnings
p=$(grep -cE '^[a-z]+: \[[0-9]+/20\] item ' "$log")
[ "$p" = 80 ] && ok || bad "bench.log holds $p progress lines of 80"
w=$(grep -c ': warning: item' "$log")
[ "$w" = 16 ] && ok || bad "bench.log holds $w warnings of 16"
[ "$(grep -c "^row [0-9]* of stream's table" "$log")" = 20 ] && ok || bad "bench.log lacks stream's table"
grep -q 'summary of results/stub-dev/r$' "$log" && ok || bad "bench.log lacks the summary"
# warnings: none on the console, their count at its end with the log's path
grep -q ': warning: ' "$tmp/console" && bad "a warning on the console: $(grep ': warning: ' "$tmp/console" | head -n 2)" || ok
[ "$(tail -n 1 "$tmp/console")" = "bench: 16 warnings: see results/stub-dev/r/bench.log" ] && ok ||
    bad "the console's last line: '$(tail -n 1 "$tmp/console")'"
# one line per stage, each with its step and how long it took
s=$(grep -cE '^bench: \[[0-9]/4\] (stream|membench|lbmkernels|recheck) on Stub Device \(opencl\): [0-9]+ s$' "$tmp/console")
[ "$s" = 4 ] && ok || bad "$s of 4 stage lines: $(grep '^bench: ' "$tmp/console")"
# the summary on stdout, the rest on stderr
(cd "$tmp/t" && STUB_NOISY=3 RUN=r FORCE=1 sh core/bench.sh) >"$tmp/out" 2>"$tmp/err"
grep -q '^summary of results/stub-dev/r$' "$tmp/out" && ok || bad "the summary not on stdout: $(cat "$tmp/out")"
grep -q 'row 1 of' "$tmp/out" "$tmp/err" && bad "a tool's table on the console" || ok
grep -q '^bench: \[1/4\] stream' "$tmp/err" && ok || bad "the stages not on stderr: $(cat "$tmp/err")"

# stdout and stderr written at once (a tool's table beside its warnings):
# every line whole in bench.log, none lost
bench_stub_tree "$tmp/b"
cat >"$tmp/b/stream/stream" <<'EOF'
#!/bin/sh
for a in "$@"; do
    [ "$prev" = --out ] && out=$a
    case "$a" in --describe) printf 'slug,stub-dev\nname,Stub Device\nbackend,opencl\nkind,cpu\n'; exit 0 ;; esac
    prev=$a
done
mkdir -p "$out"
i=0; while [ $i -lt 3000 ]; do echo "stream: warning: burst $i: repetitions scatter" >&2; i=$((i + 1)); done &
j=0; while [ $j -lt 3000 ]; do echo "table row $j of the burst"; j=$((j + 1)); done
wait
echo "device,backend,x" >"$out/stream.csv"
EOF
(cd "$tmp/b" && RUN=b sh core/bench.sh) >"$tmp/console" 2>&1 || bad "the burst bench failed: $(tail -n 3 "$tmp/console")"
blog=$tmp/b/results/stub-dev/b/bench.log
w=$(grep -cE '^stream: warning: burst [0-9]+: repetitions scatter$' "$blog"); t=$(grep -cE '^table row [0-9]+ of the burst$' "$blog")
[ "$w" = 3000 ] && [ "$t" = 3000 ] && ok ||
    bad "bench.log of a burst: $w of 3000 warnings and $t of 3000 rows whole: $(grep -vE '^(stream: warning: burst [0-9]+: repetitions scatter|table row [0-9]+ of the burst)$' "$blog" | grep burst | head -n 3)"
[ "$(grep -c '^$' "$tmp/console")" -le 1 ] && ok || bad "the burst's console has stray empty lines: $(cat "$tmp/console")"

# a failed run: its log beside its partial results, the error on the console
cat >"$tmp/t/lbmkernels/lbmkernels" <<'EOF'
#!/bin/sh
echo "lbmkernels: [1/2] push fp32 (0 s)" >&2
echo "lbmkernels: warning: something odd" >&2
echo "lbmkernels: verification failed: push fp32 off by 3 %" >&2
exit 1
EOF
(cd "$tmp/t" && RUN=f sh core/bench.sh) >"$tmp/console" 2>&1 && bad "a bench whose lbmkernels failed exited 0" || ok
grep -q '^lbmkernels: verification failed: push fp32 off by 3 %$' "$tmp/console" && ok || bad "the tool's error not on the console: $(cat "$tmp/console")"
grep -qs 'lbmkernels: warning: something odd' "$tmp/t/results/stub-dev/f.partial/bench.log" && ok ||
    bad "a failed run's bench.log is not in its .partial folder: $(ls -a "$tmp/t/results/stub-dev/f.partial" 2>&1)"
grep -q '^bench: 1 warning: see results/stub-dev/f.partial/bench.log$' "$tmp/console" && ok || bad "a failed run's tally: $(tail -n 3 "$tmp/console")"

# a run stopped (TERM to its process group, as ^C sends INT to it): the
# console still says where its partial results are, bench.log beside them
if command -v setsid >/dev/null 2>&1; then
    bench_stub_tree "$tmp/k"
    (cd "$tmp/k" && STUB_SLEEP=3 RUN=k exec setsid sh -c 'exec sh core/bench.sh' >"$tmp/console" 2>&1) &
    sleep 1.5
    pg=$(cat "$tmp/k/results/stub-dev/k.partial/.bench-pid" 2>/dev/null)
    pg=$(ps -o pgid= -p "${pg:-1}" | tr -d ' ')
    [ -n "$pg" ] && [ "$pg" != 1 ] && kill -TERM "-$pg"
    wait
    grep -q '^bench: interrupted: results/stub-dev/k.partial left for inspection$' "$tmp/console" && ok ||
        bad "a stopped run's console: $(cat "$tmp/console")"
    [ -f "$tmp/k/results/stub-dev/k.partial/bench.log" ] && ok || bad "a stopped run's bench.log not in its .partial folder"
fi

# ---- on a terminal: the progress rewritten in place ------------------------
if command -v script >/dev/null 2>&1; then
    bench_stub_tree "$tmp/y"
    (cd "$tmp/y" && STUB_NOISY=10 RUN=y script -qec "sh core/bench.sh" /dev/null) >"$tmp/tty" 2>&1 </dev/null
    cr=$(tr -cd '\r' <"$tmp/tty" | wc -c)
    # each progress line a carriage return (and the pty's own at each line end)
    [ "$cr" -ge 30 ] && ok || bad "on a terminal: $cr carriage returns, the progress not rewritten in place"
    # what stays on the screen: each line's text after its last \r (the
    # pty ends each line with \r\n)
    sed 's/\r$//; s/.*\r//; s/\x1b\[K//g' "$tmp/tty" >"$tmp/screen"
    n=$(grep -c . "$tmp/screen")
    [ "$n" -le 15 ] && ok || bad "on a terminal $n lines stay: $(head -n 30 "$tmp/screen")"
    s=$(grep -cE '^bench: \[[0-9]/4\] (stream|membench|lbmkernels) on Stub Device \(opencl\): [0-9]+ s$' "$tmp/screen")
    [ "$s" = 3 ] && ok || bad "on a terminal $s of 3 stage lines stay: $(cat "$tmp/screen")"
    grep -q ' item [0-9]*$' "$tmp/screen" && bad "on a terminal a progress line stays: $(grep ' item ' "$tmp/screen" | head -n 2)" || ok
    # each update: the stage, the tool's count and time first, then what
    kept=$(tr '\r' '\n' <"$tmp/tty" | sed 's/\x1b\[K//g' |
        grep -cE '^bench: \[[0-9]/4\] (stream|membench|lbmkernels) \[[0-9]+/10\] [0-9]+ s, about [0-9]+ s left \| item [0-9]+$')
    [ "$kept" -ge 27 ] && ok || bad "on a terminal only $kept progress updates shown: $(tr '\r' '\n' <"$tmp/tty" | grep item | head -n 3)"
    grep -q 'results in results/stub-dev/y ' "$tmp/tty" && ok || bad "on a terminal the summary missing"
fi

# ---- a tool's own streams: each line one write -----------------------------
# (an unbuffered stderr wrote a progress line in four pieces, between which
# another process's line could land).  LeakSanitizer cannot run under
# ptrace: in make test-sanitize the traced tool runs without it.
if command -v strace >/dev/null 2>&1 &&
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=write -e signal=none -s 4096 -o "$tmp/trace" stream/stream --backend openmp --quick \
        --sweeps size --sizes 4K,8K --out "$tmp/st" --force >/dev/null 2>&1; then
    n=$(grep -cE 'write\([12], ' "$tmp/trace")
    pieces=$(grep -E 'write\([12], ' "$tmp/trace" | grep -v '\\n", [0-9]*) *= [0-9]*$')
    [ "$n" -ge 4 ] && [ -z "$pieces" ] && ok || bad "stream wrote $n times to stdout and stderr, lines in pieces: $(echo "$pieces" | head -n 4)"
fi

# ---- model summary: columns aligned past a long scheme name ----------------
# the H200 fixture with its split rows' stores made non-temporal (a CPU's
# split-nt, the longest name); every row of the table ends where its
# header does (³ and × counted as one column)
cp -r tests/fixtures/nvidia-h200 "$tmp/nt"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR > 1 && $c["scheme"] == "split" { $c["stores"] = "nontemporal" } { print }' \
    tests/fixtures/nvidia-h200/model.csv >"$tmp/nt/model.csv"
model/model summary --data "$tmp/nt" >"$tmp/summary" 2>/dev/null
grep -q '^[a-z]*  *split-nt ' "$tmp/summary" && ok || bad "no split-nt row in the summary: $(head -n 5 "$tmp/summary")"
widths=$(sed -n '/^backend scheme/,/^$/p' "$tmp/summary" | grep . | sed 's/³/3/g; s/×/x/g' | awk '{ print length($0) }' | sort -u)
[ "$(echo "$widths" | wc -l)" = 1 ] && ok || bad "the summary's rows end at columns $(echo $widths): $(sed -n '/^backend scheme/,/^$/p' "$tmp/summary")"
# the numbers under their headers: "measured" ends where each row's number does
h=$(grep '^backend scheme' "$tmp/summary" | awk '{ print index($0, "measured") + 7 }')
off=$(sed -n '/^backend scheme/,/^$/p' "$tmp/summary" | sed 1d | grep . | sed 's/³/3/g; s/×/x/g' |
    awk -v h="$h" '{ e = index($0, $5) + length($5) - 1; if (e != h) print }')
[ -z "$off" ] && ok || bad "rows whose measured column is not under its header: $off"

# ---- tests/run.sh: each program's line as it ends, into a pipe --------------
mkdir -p "$tmp/r/tests"
printf '#!/bin/sh\necho "a: 1 passed, 0 failed"\n' >"$tmp/r/tests/test_a_fast.sh"
printf '#!/bin/sh\nsleep 6\necho "b: 1 passed, 0 failed"\n' >"$tmp/r/tests/test_b_slow.sh"
(cd "$tmp/r" && sh "$repo/tests/run.sh" | cat >"$tmp/runout") &
runner=$!
sleep 3
grep -q '^tests/test_a_fast.sh  *exit 0' "$tmp/runout" && ok || bad "tests/run.sh into a pipe: nothing after 3 s while a program ended at once: '$(cat "$tmp/runout")'"
[ "$(head -n 1 "$tmp/runout")" = "tests: 2 programs, $(nproc 2>/dev/null || echo 1) at a time, the slowest first; each one's line as it ends" ] ||
    [ "$(nproc)" -gt 8 ] && ok || bad "tests/run.sh's first line: $(head -n 1 "$tmp/runout")"
wait $runner
grep -q '^tests: 2 passed, 0 failed' "$tmp/runout" && ok || bad "tests/run.sh's last line: $(tail -n 1 "$tmp/runout")"
# a script named runs alone, once (not every tests/test_*.sh beside it)
(cd "$tmp/r" && sh "$repo/tests/run.sh" tests/test_a_fast.sh) >"$tmp/runout" 2>&1
[ "$(tail -n 1 "$tmp/runout")" = "tests: 1 passed, 0 failed, 0 skipped" ] && ! grep -q test_b_slow "$tmp/runout" && ok ||
    bad "tests/run.sh tests/test_a_fast.sh: $(cat "$tmp/runout")"

echo "console: $passed passed, $failed failed"
[ "$failed" = 0 ]
