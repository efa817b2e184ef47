# Sourced by tests/test_*.sh from the repository root: the pass and fail
# counts each prints on its last line, ok and bad to count, and a temporary
# folder removed at exit.
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
