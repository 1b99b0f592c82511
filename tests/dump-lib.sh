# Shared by the dump-*.sh tests (sourced): tools, a scratch directory,
# TAP-style ok/bad and small checks.
B=$top_builddir
DUMP="$B/tools/perfring-dump"
export PERFRING_NO_DLCLOSE=1
PERF=${PERF:-$(command -v perf 2>/dev/null)}
W=$(mktemp -d "${TMPDIR:-/tmp}/dump.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
export HOME="$W"	# no ~/.debug build-id cache, no user perf config
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
has() {		# DESCRIPTION FILE ERE
	if grep -Eq -- "$3" "$2"; then ok "$1"; else
		bad "$1: no line matching '$3' in:"; sed 's/^/#   /' "$2" | head -40
	fi
}
hasnt() {	# DESCRIPTION FILE ERE
	if ! grep -Eq -- "$3" "$2"; then ok "$1"; else
		bad "$1: unexpected lines matching '$3':"; grep -E -- "$3" "$2" | head -20 | sed 's/^/#   /'
	fi
}
empty() {
	if [ ! -s "$2" ]; then ok "$1"; else
		bad "$1: not empty:"; sed 's/^/#   /' "$2" | head -20
	fi
}
status() {	# DESCRIPTION EXPECTED ACTUAL
	if [ "$2" -eq "$3" ]; then ok "$1: exit $3"; else bad "$1: exit $3, expected $2"; fi
}
same() {	# DESCRIPTION FILE1 FILE2
	if cmp -s "$2" "$3"; then ok "$1"; else
		bad "$1:"; diff "$2" "$3" | head -20 | cut -c1-300 | sed 's/^/#   /'
	fi
}
finish() {
	echo "1..$n"
	[ $fails -eq 0 ]
	exit $?
}
