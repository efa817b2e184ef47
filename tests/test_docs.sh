#!/bin/sh
# What a reader of the README needs beside it: every symbol and term of a
# listed set that README.md uses has its line in doc/glossary.md, every
# work cited by surname in README.md, doc/ or plots/README.md has its entry
# in doc/references.md, each link into references.md names an entry there,
# and the README stays within 150 lines.  Last line: "docs: N passed, M failed".
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The symbols (the papers' and the model's) and terms a reader meets in the
# README without a definition beside them.
symbols="Q N L M K s v B P ℓ T_R T_W t0"
terms="D3Q19
BGK
MLUPS
push
pull
split
A-A
pull-nt
FP32
FP64
FP16S
roofline
write-allocate
probe
occupancy
back to back
geometry path
threads path
clamped
within_measured
error%
drift
QUICK"

# uses_symbol FILE SYMBOL: the symbol stands alone (not inside a word, a
# number, an identifier or a possessive: "L" in "L2" or "s" in "device's")
uses_symbol() {
    LC_ALL=C.UTF-8 grep -qE "(^|[^A-Za-z0-9_'’-])$2([^A-Za-z0-9_'’]|\$)" "$1"
}
# defined GLOSSARY NAME: a row of the glossary's tables names it in bold
defined() { grep '^| ' "$1" | grep -qF "**$2**"; }
# undefined README GLOSSARY: each listed symbol or term the README uses
# that the glossary does not define, one a line
undefined() {
    for x in $symbols; do
        uses_symbol "$1" "$x" && ! defined "$2" "$x" && echo "$x"
    done
    echo "$terms" | while IFS= read -r t; do
        grep -qF -- "$t" "$1" && ! defined "$2" "$t" && echo "$t"
    done
}

# cited SURNAME...: the surnames cited in the given markdown files: a
# capitalised name before "et al", "Art. X", "§", "Fig. n", "'s" and the
# model, roofline, thesis, transfer, time or law, or alone in parentheses;
# links are read as their text, and lines are joined (a citation may wrap)
cited() {
    cat "$@" | tr '\n' ' ' | sed -E 's/\]\([^)]*\)//g; s/\[//g' |
        grep -oE "\b[A-Z][a-z]+( et al\b| Art\. [A-Z]\b| §[0-9]| Fig\. [0-9]|'s (roofline|model|thesis|transfer|time|law)\b)|\([A-Z][a-z]+[),]|\([A-Z][a-z]+ (§|Fig\.|Art\.|[0-9]{4})" |
        sed -E 's/^\(//' | grep -oE '^[A-Z][a-z]+' | sort -u
}
# unreferenced REFERENCES FILE...: each cited surname not in the references
unreferenced() {
    r=$1; shift
    for n in $(cited "$@"); do grep -qw "$n" "$r" || echo "$n"; done
}
# bad_anchors REFERENCES FILE...: links into references.md whose #anchor is no
# heading of it
bad_anchors() {
    r=$1; shift
    grep -ohE 'references\.md#[a-z0-9-]+' "$@" | sed 's/.*#//' | sort -u | while read -r a; do
        grep -qx "## $a" "$r" || echo "$a"
    done
}

docs="README.md plots/README.md data/FORMAT.md $(find doc -name '*.md' ! -name references.md ! -name glossary.md | sort)"

# 1. the README's symbols and terms are in the glossary, which it links
if [ -f doc/glossary.md ]; then ok; else bad "no doc/glossary.md"; fi
u=$(undefined README.md doc/glossary.md 2>/dev/null | tr '\n' ' ')
if [ -z "$u" ]; then ok; else bad "README.md uses, doc/glossary.md does not define: $u"; fi
if grep -q '(doc/glossary.md)' README.md; then ok; else bad "README.md does not link doc/glossary.md"; fi
# every listed symbol and term is in the glossary, used in the README or not
for x in $symbols; do defined doc/glossary.md "$x" 2>/dev/null && ok || bad "doc/glossary.md does not define $x"; done
n=$(echo "$terms" | while IFS= read -r t; do defined doc/glossary.md "$t" 2>/dev/null || echo "$t"; done | tr '\n' ' ')
if [ -z "$n" ]; then ok; else bad "doc/glossary.md does not define: $n"; fi

# 2. the works cited by surname are in the references, which the README links
if [ -f doc/references.md ]; then ok; else bad "no doc/references.md"; fi
c=$(cited $docs)
for n in Habich Obrecht; do
    echo "$c" | grep -qx "$n" && ok || bad "the citation finder missed $n in README.md or doc/ (found: $(echo $c))"
done
u=$(unreferenced doc/references.md $docs 2>/dev/null | tr '\n' ' ')
if [ -z "$u" ]; then ok; else bad "cited by surname, not in doc/references.md: $u"; fi
if grep -q '(doc/references.md' README.md; then ok; else bad "README.md does not link doc/references.md"; fi
a=$(bad_anchors doc/references.md $docs 2>/dev/null | tr '\n' ' ')
if [ -z "$a" ]; then ok; else bad "links to doc/references.md# that name no entry: $a"; fi
# the papers the methods come from, each with its authors' surnames and year
for e in "habich2012:Habich:2012" "obrecht2012:Obrecht:2012" "riesinger2017:Riesinger:2017" "calore2014:Calore:2014" "delpino:del Pino:"; do
    h=${e%%:*}; rest=${e#*:}; who=${rest%%:*}; yr=${rest#*:}
    if sed -n "/^## $h\$/,/^## /p" doc/references.md 2>/dev/null | grep -q "$who" &&
        { [ -z "$yr" ] || sed -n "/^## $h\$/,/^## /p" doc/references.md | grep -q "$yr"; }; then ok
    else bad "doc/references.md has no entry $h naming $who${yr:+ and $yr}"; fi
done

# 3. the README does not grow past one screen of sections
if [ "$(wc -l <README.md)" -le 150 ]; then ok; else bad "README.md has $(wc -l <README.md) lines (at most 150)"; fi

# 4. the checks can fail: a symbol and a term the glossary lacks, a surname
# the references lack, an anchor that names no entry
printf '| **Q** | populations |\n' >"$tmp/glossary.md"
printf 'The launch ℓ, then the A-A scheme, and Q.\n' >"$tmp/readme.md"
u=$(undefined "$tmp/readme.md" "$tmp/glossary.md" | tr '\n' ' ')
if [ "$u" = "ℓ A-A " ]; then ok; else bad "planted undefined symbols not caught: '$u'"; fi
printf "As Smith et\nal. showed, and Jones's model (Brown §3), not Push's exchange.\n" >"$tmp/doc.md"
printf '## smith2020\nA. Smith.\n' >"$tmp/refs.md"
u=$(unreferenced "$tmp/refs.md" "$tmp/doc.md" | tr '\n' ' ')
if [ "$u" = "Brown Jones " ]; then ok; else bad "planted citations not caught: '$u'"; fi
printf '[Smith](references.md#smith2021)\n' >"$tmp/link.md"
if [ "$(bad_anchors "$tmp/refs.md" "$tmp/link.md")" = smith2021 ]; then ok; else bad "a link to a missing entry not caught"; fi
echo "docs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
