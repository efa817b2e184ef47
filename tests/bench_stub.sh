# Sourced by tests/test_*.sh that run core/bench.sh with no device.
# bench_stub_tree DIR: a tree with core/bench.sh and stub tools: each stage
# writes its CSV into --out after STUB_SLEEP seconds; model validate exits
# STUB_MODEL_RC, writing model.csv and a meta saying STUB_RESULT unless
# STUB_RESULT=none.
bench_stub_tree() {
    mkdir -p "$1/core" "$1/plots" "$1/stream" "$1/membench" "$1/lbmkernels" "$1/model"
    cp core/bench.sh core/console.awk "$1/core/"
    # (two runs at once render at once: each writes its own file and renames
    # it over render.args, so the file holds one run's arguments whole)
    printf '#!/bin/sh\necho "$@" >"$(dirname "$0")/render.args.$$" && mv "$(dirname "$0")/render.args.$$" "$(dirname "$0")/render.args"\nexit 0\n' >"$1/plots/render.sh"
    printf '#!/bin/sh\nexit 0\n' >"$1/core/bench-ranks.sh" # the multi-device stage: nothing to run
    cat >"$1/stub" <<'STUB'
#!/bin/sh
tool=$(basename "$0")
out=""; data=""; cmd=""
for a in "$@"; do
    case "$prev" in --out) out=$a ;; --data) data=$a ;; esac
    case "$a" in --describe) printf 'slug,stub-dev\nname,Stub Device\nbackend,opencl\nkind,cpu\n'; exit 0 ;; esac
    prev=$a
done
sleep "${STUB_SLEEP:-0}"
[ -z "$out" ] || mkdir -p "$out" # as the tools make their --out folder
# STUB_NOISY=N: N progress lines on stderr, each written in two pieces with
# a line of stdout between them (as a tool that writes a line in several
# calls may), a warning every fifth, and the "results in" line a tool
# prints, naming the folder it was given
if [ "${STUB_NOISY:-0}" -gt 0 ] && [ "$tool" != model ]; then
    i=1
    while [ $i -le "$STUB_NOISY" ]; do
        printf '%s: [%d/%d] item %d' "$tool" $i "$STUB_NOISY" $i >&2
        sleep 0.02; echo "row $i of $tool's table"; sleep 0.02
        printf ' (%d s, about %d s left)\n' $i $((STUB_NOISY - i)) >&2
        [ $((i % 5)) = 0 ] && echo "$tool: warning: item $i: repetitions scatter by 9.9 %" >&2
        i=$((i + 1))
    done
    echo "results in $out"
fi
case $tool in
stream) echo "device,backend,x" >"$out/stream.csv" ;;
membench)
    case " $* " in *" --thread-counts "*) echo "$@" >"$(dirname "$0")/recheck.args" ;; esac
    echo "device,backend,sweep,threads" >"$out/membench.csv"
    [ -n "${STUB_RECHECK:-}" ] && echo "stub-dev,opencl,threads,32768" >>"$out/membench.csv" ;;
lbmkernels)
    echo "device,backend,cells" >"$out/lbm.csv"
    [ -n "${STUB_RECHECK:-}" ] && echo "stub-dev,opencl,32768" >>"$out/lbm.csv" ;;
model)
    case $1 in
    validate)
        if [ "${STUB_RESULT:-pass}" != none ]; then
            echo "backend,predicted" >"$data/model.csv"
            printf 'key,value\nresult,%s\n' "${STUB_RESULT:-pass}" >"$data/model-meta.csv"
        fi
        exit "${STUB_MODEL_RC:-0}" ;;
    summary) echo "summary of $data" ;;
    esac ;;
esac
exit 0
STUB
    for t in stream membench lbmkernels model; do cp "$1/stub" "$1/$t/$t"; chmod +x "$1/$t/$t"; done
}
