# Shared by the perfring-record tests against perf (record-compress.sh,
# record-tracepoint.sh, record-dwarf.sh, record-options.sh; sourced after
# setting name=...): the tools, perf, fail/skip, a scratch directory $tmp
# (0755, made the current directory), a background process $bg killed at
# exit, expect, and the verdict (done_ok or finish).  Skips (77) without
# perf or perf_event_open.
rec="$top_builddir/tools/perfring-record"
replay="$top_builddir/tools/perfring-replay"
dump="$top_builddir/tools/perfring-dump"
wl="$top_builddir/tests/workloads"
perf=${PERF:-}
fails=0
fail() { echo "$name: FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "$name: SKIP: $*"; exit 77; }

[ -n "$perf" ] && [ -x "$perf" ] || skip "perf was not found at configure time"
tmp=$(mktemp -d)
chmod 755 "$tmp"
bg=
trap 'rm -rf "$tmp"; [ -n "$bg" ] && kill "$bg" 2>/dev/null' EXIT
"$rec" --stat -e task-clock:u -- true 2>"$tmp/err" ||
	skip "perf_event_open is not usable here: $(cat "$tmp/err")"
cd "$tmp" || exit 1

# expect RC TEXT -- CMD...: exit status RC and TEXT in its stderr.
expect() {
	want=$1 text=$2; shift 3
	"$@" >out 2>err
	rc=$?
	[ $rc -eq "$want" ] || fail "$*: exit $rc, want $want: $(cat err)"
	grep -qF -- "$text" err || fail "$*: stderr lacks '$text': $(cat err)"
	echo "ok ($rc): $(head -1 err)"
}

# The verdict: exit 1 after any failure.
finish() {
	[ $fails -eq 0 ] || exit 1
	echo "$name: all checks passed"
}
done_ok() { finish; }
