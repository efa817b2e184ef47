#!/bin/sh
# What keeps make test honest on any machine, checked by reading the tree:
# 1. no test reads the committed data/<device>/ folders or names a folder
#    after the host (tests read frozen fixtures under tests/, so refreshing
#    a reference run or another CPU model breaks nothing);
# 2. every environment variable the tools read is in core/envvars.c's table
#    and in doc/environment.md, and every LBP_ variable of the scripts too;
# 3. plots/ in git holds each device's report and the figures README.md
#    and doc/ show, and every such figure is there;
# 4. doc/model.md is the model's specification: at most 400 lines, and a
#    section (### `NAME`: ...) for every correction model corrections --list
#    names.
# Last line: "hygiene: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

# 1. data/<device>, data/$slug, a loop over data/*, results/<slug>
host_data='(^|[^a-z_-])data/(nvidia|intel|pthread|amd|[a-z0-9-]*-x[0-9]|\$|\*)|results/\$'
reads_host_data() { grep -n -E "$host_data" "$@"; }
found=$(reads_host_data $(ls tests/test_*.sh tests/test_*.c tests/*.h | grep -v -x tests/test_hygiene.sh))
[ -z "$found" ] && ok || bad "tests that read committed data/ or a host's folder: $found"
# (written through %s, so that this file does not itself read as one)
printf 'cp -r %s/nvidia-h200 "$tmp"\nd=%s/$slug\nfor d in %s/*/; do :; done\nln -s "$repo/%s/pthread-x" .\n' data data data data >"$tmp/planted.sh"
[ "$(reads_host_data "$tmp/planted.sh" | wc -l)" = 4 ] && ok || bad "the check misses a planted read: $(reads_host_data "$tmp/planted.sh")"
printf 'cp tests/model-data/gpu/x.csv .\ncp tests/fixtures/nvidia-h200/x.csv .\n' >"$tmp/fine.sh"
[ -z "$(reads_host_data "$tmp/fine.sh")" ] && ok || bad "the check flags fixtures: $(reads_host_data "$tmp/fine.sh")"

# 2. environment variables
table=$(sed -n 's/^ *{"\([A-Z_]*\)",.*/\1/p' core/envvars.c)
[ -n "$table" ] && ok || bad "no variables read from core/envvars.c"
read_by_tools=$(grep -ho 'getenv("[A-Z_]*")' core/*.c stream/*.c membench/*.c lbmkernels/*.c model/*.c |
    sed 's/getenv("\(.*\)")/\1/' | grep -v -x -e PATH -e HOME | sort -u)
for v in $read_by_tools; do
    echo "$table" | grep -qx "$v" && ok || bad "getenv(\"$v\") is not in core/envvars.c's table"
done
for v in $table; do
    grep -q "\`$v\`" doc/environment.md && ok || bad "$v (core/envvars.c) is not in doc/environment.md"
done
scripts=$(grep -ho 'LBP_[A-Z][A-Z_]*' Makefile */rules.mk core/*.sh tests/*.sh tests/fuzz/*.sh tests/kernels/*.sh |
    grep -v -x -e LBP_CFLAGS -e 'LBP_HAVE_[A-Z_]*' -e LBP_GIT_COMMIT -e LBP_CUDA_HOME -e 'LBP_[A-Z_]*_OBJS' | sort -u)
for v in $scripts; do
    grep -q "\`$v\`" doc/environment.md && ok || bad "$v (a script's) is not in doc/environment.md"
done
./membench/membench --help | grep -q '^  LBP_OMP_CFLAGS *\* ' && ok || bad "membench --help does not list LBP_OMP_CFLAGS as recorded"

# 3. plots/ in git
shown=$(for md in README.md $(git ls-files 'doc/*.md' 'doc/**/*.md' plots/README.md); do
    d=$(dirname "$md")
    grep -oE '\]\([^)]+\.(png|pdf)\)' "$md" | sed 's/^](//; s/)$//' |
        while read -r t; do realpath -m --relative-to=. "$d/$t"; done
done | sort -u)
# (only in a checkout's own root: make test-sanitize runs a copy of the
# tree inside .sanitize/, which git ignores)
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    tracked=$(git ls-files 'plots/*/*')
    for f in $shown; do
        echo "$tracked" | grep -qxF "$f" || git ls-files --error-unmatch "$f" >/dev/null 2>&1 && ok ||
            bad "$f is shown by the docs but not in git"
    done
    for f in $tracked; do
        case "$f" in */report.md | */report.pdf) ok; continue ;; esac
        echo "$shown" | grep -qxF "$f" && ok || bad "$f is in git but no doc shows it (make plots renders it)"
    done
else
    echo "not the root of a git checkout: the plots check is skipped"
fi

# 4. doc/model.md: short, and every named correction in its catalog
lines=$(wc -l <doc/model.md)
[ "$lines" -le 400 ] && ok || bad "doc/model.md has $lines lines (at most 400: the specification; history goes to doc/findings/)"
names=$(./model/model corrections --list | awk '{print $1}')
[ -n "$names" ] && ok || bad "model corrections --list named no correction"
for c in $names; do
    grep -q "^### \`$c\`" doc/model.md && ok || bad "doc/model.md has no section \"### \`$c\`\" for the correction $c"
done

# 5. model/: no function body (from its opening to its closing brace at
# the line's start) of more than 60 lines; a planted one is caught
long_functions() {
    awk 'FNR == 1 { open = 0 } /^{/ { open = FNR } /^}/ { if (open && FNR - open > 60) print FILENAME ":" open; open = 0 }' "$@"
}
long=$(long_functions model/*.c model/*/*.c)
[ -z "$long" ] && ok || bad "model/ functions over 60 lines, opening at: $long"
awk 'BEGIN { print "static void planted(void)\n{"; for (i = 0; i < 61; i++) print "    ;"; print "}" }' >"$tmp/long.c"
[ -n "$(long_functions "$tmp/long.c")" ] && ok || bad "the long-function check missed a planted 62-line body"

echo "hygiene: $passed passed, $failed failed"
[ "$failed" = 0 ]
