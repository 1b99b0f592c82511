# Shared by the replay-*.sh tests (sourced): tools, a scratch directory,
# TAP-style ok/bad, and small checks.
B=$top_builddir
REPLAY="$B/tools/perfring-replay"
EMU="$B/examples/emulator/emulator"
GUEST="$B/examples/emulator/guest"
export PERFRING_PLUGIN_PATH="$B/plugins/comm:$B/plugins/mmap2:$B/plugins/task"
export PERFRING_NO_DLCLOSE=1
PERF=${PERF:-$(command -v perf 2>/dev/null)}
W=$(mktemp -d "${TMPDIR:-/tmp}/replay.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
export HOME="$W"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
has() {
	if grep -Eq -- "$3" "$2"; then ok "$1"; else
		bad "$1: no line matching '$3' in:"; sed 's/^/#   /' "$2" | head -40
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
# The records of a JSON dump without what the perf.data writer manages
# itself (ATTR lines, FINISHED_ROUND, FEATURE, COMPRESSED, TRACING_DATA).
records() {
	grep -v '"type":"\(ATTR\|FINISHED_ROUND\|FEATURE\|COMPRESSED\|TRACING_DATA\)"' "$@"
}
# "offset size" of each record of an unwrapped normal-mode ring file, from
# its descriptor (desc_size @24, page_size @16) and control page (data_head).
ring_records() {
	_u() { od -An -t "u$1" -j "$2" -N "$1" "$3" | tr -d ' '; }
	_desc=$(_u 8 24 "$1"); _page=$(_u 4 16 "$1")
	_pos=$((_desc + _page)); _end=$((_pos + $(_u 8 $((_desc + 1024)) "$1")))
	while [ $_pos -lt $_end ]; do
		_s=$(_u 2 $((_pos + 6)) "$1"); echo "$_pos $_s"; _pos=$((_pos + _s))
	done
}
# poke FILE OFFSET OCTAL-ESCAPES: overwrite bytes in place
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
