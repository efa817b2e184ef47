#!/bin/sh
# model predict, validate and summary --json: one JSON object each, parsed
# by jq (python3 -m json.tool where jq is missing), with numbers as numbers,
# the provenance records and what the text says.  On committed data.
# Last line: "json: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
if ! command -v jq >/dev/null 2>&1; then echo "json: jq missing (make deps installs it)"; echo "json: 0 passed, 1 failed"; exit 1; fi
# holds FILE FILTER: the file is one JSON object and FILTER is true of it
holds() { jq -e "$2" "$1" >/dev/null 2>&1; }
check() { # FILE FILTER WHAT
    if holds "$1" "$2"; then ok; else bad "$3: $(head -c 300 "$1")"; fi
}
two=tests/fixtures/nvidia-h200

model/model predict --data "$two" --backend cuda --scheme push --precision fp32 --size 256 --json >"$tmp/p.json" ||
    bad "predict --json exited $?"
check "$tmp/p.json" '.lattice.nx == 256 and .lattice.cells == 16777216' "predict: the lattice as numbers"
check "$tmp/p.json" '(.roofline.mlups | type) == "number" and .probe.mlups > 0 and .full.mlups > 0' "predict: the levels"
check "$tmp/p.json" '(.within_measured | type) == "boolean" and (.read_instead | type) == "array" and (.notes | type) == "array"' \
    "predict: the provenance"
check "$tmp/p.json" '.read_instead | all(has("kind") and has("asked") and has("read") and has("why"))' "predict: each record"
# the text and the JSON agree on the answer
full=$(model/model predict --data "$two" --backend cuda --scheme push --precision fp32 --size 256 | awk '$1 == 3 && $2 == "full" { print $3 }')
check "$tmp/p.json" "(.full.mlups * 10 | round) == ($full * 10 | round)" "predict: full MLUPS $full as in the text"

cp -r tests/model-data/gpu "$tmp/v"
model/model validate --data "$tmp/v" --backend cuda --json >"$tmp/v.json" || bad "validate --json exited $?"
rows=$(grep -c ",periodic," "$tmp/v/lbm.csv") # validate predicts the timed (periodic) rows
check "$tmp/v.json" "(.points | length) == $rows and .pass == true" "validate: every timed point of lbm.csv"
check "$tmp/v.json" '.points | all((.error_pct | type) == "number" and (.within_measured | type) == "boolean" and has("read_instead"))' \
    "validate: each point with its provenance"
check "$tmp/v.json" '.large.points >= 1 and (.large.worst_abs_error_pct | type) == "number"' "validate: the large lattices"
if [ -f "$tmp/v/model.csv" ]; then ok; else bad "validate --json wrote no model.csv"; fi
# the two errors: each point's before the kernel, and per backend and precision
check "$tmp/v.json" '.points | all((.before_kernel.error_pct | type) == "number" and (.before_kernel.path | type) == "string")' \
    "validate: each point's error before the kernel"
check "$tmp/v.json" '(.model_error | length) > 0 and (.model_error | all(.at_launch.points == .before_kernel.points and (.before_kernel.worst_abs_error_pct | type) == "number"))' \
    "validate: both errors per backend and precision"
model/model summary --data "$tmp/v" --json >"$tmp/sv.json" || bad "summary --json of a fresh model.csv exited $?"
check "$tmp/sv.json" '(.model_error | length) > 0 and (.model_error | all((.at_launch.mean_abs_error_pct | type) == "number" and (.before_kernel.mean_abs_error_pct | type) == "number"))' \
    "summary: both errors per backend and precision"
# no lattice of 128^3: its worst error is null, not 0
sed -i '/,256,256,256,/d' "$tmp/v/lbm.csv"
model/model validate --data "$tmp/v" --backend cuda --json --force >"$tmp/v2.json"
check "$tmp/v2.json" '.large.points == 0 and .large.worst_abs_error_pct == null' "validate: no large lattice is null"

for d in tests/fixtures/*/; do
    [ -f "$d/model.csv" ] || continue
    model/model summary --data "$d" --json >"$tmp/s.json" || bad "summary --json $d exited $?"
    check "$tmp/s.json" '(.rows | length) > 0 and (.rows | all((.nx | type) == "number" and (.measured_mlups | type) == "number"))' \
        "summary $d: rows with numbers"
    check "$tmp/s.json" '(.quick | type) == "boolean"' "summary $d: quick said"
    n=$(model/model summary --data "$d" | awk '$2 ~ /^(push|pull|split|aa)(-nt)?$/' | wc -l)
    check "$tmp/s.json" "(.rows | length) == $n" "summary $d: the text's $n rows"
    # the multi-rank block: its group lines (between the block's header and
    # its first target line) as "several_devices", absent without them
    g=$(model/model summary --data "$d" | awk '/^several devices/ { on = 1; next } /^target:/ { on = 0 }
        on && $5 ~ /^[0-9]+$/ { n++ } END { print n + 0 }')
    if [ "$g" -gt 0 ]; then
        check "$tmp/s.json" "(.several_devices.groups | length) == $g" "summary $d: the text's $g multi-rank groups"
        check "$tmp/s.json" '.several_devices.groups | all((.ranks | type) == "number" and (.error_pct | type) == "number")' \
            "summary $d: multi-rank groups with numbers"
        worst=$(model/model summary --data "$d" | sed -n 's/^target: model within.*worst |error| \([0-9.]*\) %.*/\1/p')
        check "$tmp/s.json" "(.several_devices.error_target.worst_abs_error_pct * 100 | round) == ($worst * 100 | round)" \
            "summary $d: the error target's worst |error| $worst as in the text"
        multi=$((multi + 1))
    else
        check "$tmp/s.json" 'has("several_devices") | not' "summary $d: no multi-rank block without multi-rank rows"
    fi
done
[ "${multi:-0}" -gt 0 ] && ok || bad "no committed folder with multi-rank rows was summarised"

# the check can fail: text that is not JSON, and a filter that is false
echo 'backend scheme' >"$tmp/text"
if holds "$tmp/text" '.'; then bad "text passed as JSON"; else ok; fi
if holds "$tmp/p.json" '.lattice.nx == 255'; then bad "a false filter held"; else ok; fi
echo "json: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
