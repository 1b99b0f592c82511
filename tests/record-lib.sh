# Shared by record-dwarf.sh and record-options.sh (sourced after setting
# name=...): the tools, perf, a scratch directory $tmp, fail/skip, and a
# background process $bg killed at exit.  Skips (77) without perf or
# perf_event_open.
set -u
rec="$top_builddir/tools/perfring-record"
wl="$top_builddir/tests/workloads"
perf=${PERF:-}
fails=0
fail() { echo "$name: FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "$name: SKIP: $*"; exit 77; }

[ -n "$perf" ] && [ -x "$perf" ] || skip "perf was not found at configure time"
tmp=$(mktemp -d)
bg=
trap 'rm -rf "$tmp"; [ -n "$bg" ] && kill "$bg" 2>/dev/null' EXIT
"$rec" --stat -e task-clock:u -- true 2>"$tmp/err" ||
	skip "perf_event_open is not usable here: $(cat "$tmp/err")"

# finish: the verdict.
finish() {
	[ $fails -eq 0 ] || exit 1
	echo "$name: all checks passed"
}
