# Sourced by tests/test_*.sh from the repository root: the pass and fail
# counts each prints on its last line, ok and bad to count, and a temporary
# folder removed at exit.
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# cpu_fixture_as_this_pocl DIR: the frozen CPU fixture copied into DIR with
# this host's PoCL device named in it, for tests of the pipeline (measured
# here, predicted from it), never of the model's accuracy on this CPU
cpu_fixture_as_this_pocl() {
    slug=$(stream/stream --backend opencl --describe | awk -F, '$1 == "slug" { print $2 }')
    fx=tests/fixtures/pthread-skylake-avx512-intel-xeon-processor
    mkdir -p "$1" && for c in "$fx"/*.csv; do
        sed "s/^pthread-skylake-avx512-intel-xeon-processor,/$slug,/; s/^slug,.*/slug,$slug/" "$c" >"$1/${c##*/}"
    done
}
