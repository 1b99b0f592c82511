# Shared by tests/record-compress.sh and tests/record-tracepoint.sh (sourced,
# with $name set): the tools, fail/skip, a temp directory (0755, the
# current directory) and expect.  Skips (77) without perf or
# perf_event_open.
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
trap 'rm -rf "$tmp"' EXIT
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

# done_ok: the exit status of the script.
done_ok() {
	[ $fails -eq 0 ] || exit 1
	echo "$name: ok"
}
