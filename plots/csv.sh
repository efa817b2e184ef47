# CSV helpers for the plot scripts: select by column name, never position.
# csvcol FILE COL                 values of one column
# csvsel FILE "k=v,k2=v2" COL...  the named columns (space-separated) of the
#                                 rows whose columns equal those values
# metaval FILE KEY                a value of a key,value meta file
csvsel() {
    awk -F, -v cond="$2" -v want="$(shift 2; echo "$*")" '
        NR == 1 {
            for (i = 1; i <= NF; i++) ix[$i] = i
            nc = split(cond, c, ","); nw = split(want, w, " ")
            for (j = 1; j <= nc; j++) {
                split(c[j], kv, "="); ck[j] = kv[1]; cv[j] = kv[2]
                if (!(ck[j] in ix)) { bad = ck[j]; exit }
            }
            for (j = 1; j <= nw; j++) if (!(w[j] in ix)) { bad = w[j]; exit }
            next
        }
        {
            for (j = 1; j <= nc; j++) if ($(ix[ck[j]]) != cv[j]) next
            line = ""
            for (j = 1; j <= nw; j++) line = line (j > 1 ? " " : "") $(ix[w[j]])
            print line
        }
        END { if (bad != "") { printf "plots: %s has no column %s\n", FILENAME, bad > "/dev/stderr"; exit 1 } }' "$1"
}
csvcol() { csvsel "$1" "" "$2"; }
metaval() {
    [ -f "$1" ] || return 1
    awk -v k="$2" 'index($0, k ",") == 1 { v = substr($0, length(k) + 2); gsub(/^"|"$/, "", v); print v; found = 1; exit }
        END { exit !found }' "$1"
}
