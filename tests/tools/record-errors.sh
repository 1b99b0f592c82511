#!/bin/sh
# perfring-record's messages and exit codes for what a user can act on:
# an event this machine lacks, a perf_event_paranoid refusal (for real as an
# unprivileged user where possible, and through the plugin's
# PERFRING_HW_FAKE_ERRNO hook), too many open files (a real ulimit -n),
# a command that cannot run, bad usage; --help/--version; and how fast
# `perfring-record -- true` finishes.
# Skips (77) only without perf_event_open.
set -u
rec="$top_builddir/tools/perfring-record"
fails=0
fail() { echo "record-errors.sh: FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
"$rec" --stat -e task-clock:u -- true 2>"$tmp/err" || {
	echo "record-errors.sh: SKIP: perf_event_open is not usable here: $(cat "$tmp/err")"
	exit 77
}
cd "$tmp" || exit 1

# expect RC TEXT -- ARGS...: exit status RC, TEXT in stderr (prefixed).
expect() {
	want=$1 text=$2; shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "$*: exit $rc, want $want: $(cat "$tmp/err")"
	grep -qF -- "$text" "$tmp/err" || fail "$*: stderr lacks '$text': $(cat "$tmp/err")"
	grep -q "^perfring-record: " "$tmp/err" || fail "$*: stderr not prefixed: $(cat "$tmp/err")"
	echo "ok ($rc): $(head -1 "$tmp/err")"
}

# An event the machine lacks: cycles in a VM; forced where cycles works.
if "$rec" --stat -e cycles -- true 2>&1 | grep -q "not supported"; then
	expect 1 "cycles: not supported here; try cpu-clock" -- "$rec" -e cycles -o x.data -- true
	[ -e x.data ] && fail "a failed run left x.data behind"
	# No -e: cycles falls back to cpu-clock, saying so, as perf record does.
	expect 0 "cycles: not supported here" -- "$rec" -o d.data -- true
	grep -q "falling back to cpu-clock" "$tmp/err" || fail "no fallback note"
else
	echo "cycles works here: forcing the 'not supported' path"
	PERFRING_HW_FAKE_ERRNO=ENOENT expect 1 "cycles: not supported here; try cpu-clock" -- \
		"$rec" -e cycles -o x.data -- true
fi

# perf_event_paranoid: the hook, then for real as nobody with -a.
lvl=$(cat /proc/sys/kernel/perf_event_paranoid)
PERFRING_HW_FAKE_ERRNO=EACCES expect 1 "permission denied: kernel.perf_event_paranoid is $lvl" -- \
	"$rec" -e cpu-clock -o x.data -- true
grep -q "CAP_PERFMON" "$tmp/err" || fail "no hint in: $(cat "$tmp/err")"
# nobody may not reach the build tree (a clone in a mktemp -d directory is
# 0700): it runs copies of the real executable, the library, the plugins
# and the workload, staged in $tmp (0755).
stage_for_nobody() {
	real="$top_builddir/tools/.libs/perfring-record"
	[ -x "$real" ] || real=$rec
	mkdir -p "$tmp/stage/lib" "$tmp/stage/plugins" &&
	cp "$real" "$tmp/stage/perfring-record" &&
	cp "$top_builddir/tests/workloads/wl-busy" "$tmp/stage/wl-busy" &&
	for f in "$top_builddir"/lib/.libs/libperfring.so*; do
		[ -e "$f" ] && cp -P "$f" "$tmp/stage/lib/"
	done &&
	for f in "$top_builddir"/plugins/*/.libs/*.so; do
		cp "$f" "$tmp/stage/plugins/" || return 1
	done &&
	chmod -R a+rX "$tmp/stage"
}
if [ "$(id -u)" = 0 ] && [ "$lvl" -ge 1 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null &&
   stage_for_nobody; then
	# (paths from mktemp: no spaces)
	nrec="env LD_LIBRARY_PATH=$tmp/stage/lib PERFRING_PLUGIN_PATH=$tmp/stage/plugins PERFRING_PLUGIN_SYSTEM_PATH= $tmp/stage/perfring-record"
	expect 1 "kernel.perf_event_paranoid is $lvl" -- setpriv --reuid=nobody --regid=nogroup \
		--clear-groups $nrec -e cpu-clock -a --duration 0.1 -o "$tmp/n.data"
	grep -q -- "-a (every CPU) needs" "$tmp/err" || fail "the paranoid message does not say what -a needs"
	# Without -a an unprivileged user falls back to user space only, as
	# perf does, and perf report still resolves the workload.
	if [ "$lvl" -ge 2 ] && [ -n "${PERF:-}" ] && [ -x "$PERF" ]; then
		mkdir "$tmp/nobody" && chmod 777 "$tmp/nobody"
		expect 0 "measuring user space only (:u)" -- setpriv --reuid=nobody --regid=nogroup \
			--clear-groups $nrec -e cpu-clock -F 999 -o "$tmp/nobody/u.data" -- \
			"$tmp/stage/wl-busy" 0.2
		"$PERF" report -f -i "$tmp/nobody/u.data" --stdio --sort sym -q >"$tmp/out" 2>&1
		grep -q "hot_function" "$tmp/out" || fail "user-space-only data: $(cat "$tmp/out")"
		"$PERF" evlist -f -i "$tmp/nobody/u.data" 2>&1 | grep -qx "cpu-clock:u" ||
			fail "the fallback event is not named cpu-clock:u"
	fi
else
	echo "not root or paranoid < 1: real refusal not tested"
fi

# Too many open files, for real: each event needs an fd.
expect 1 "too many open files" -- sh -c 'ulimit -n 12 && exec "$@"' sh "$rec" --stat \
	-e cpu-clock,task-clock,page-faults,cs,migrations,minor-faults,major-faults,dummy,cpu-clock,task-clock,page-faults,cs \
	-- true
grep -q "ulimit -n" "$tmp/err" || fail "EMFILE: no ulimit hint"
PERFRING_HW_FAKE_ERRNO=EMFILE expect 1 "(EMFILE)" -- "$rec" -e cpu-clock -o x.data -- true

# A frequency above what the kernel allows.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -lt 1000000 ]; then
	expect 2 "is above kernel.perf_event_max_sample_rate ($max)" -- \
		"$rec" -e cpu-clock -F $((max + 1)) -o x.data -- true
fi

# A command that cannot run; usage errors.
expect 1 "cannot run /nonexistent/cmd" -- "$rec" -e cpu-clock -o x.data -- /nonexistent/cmd
expect 2 "unknown event 'bogus'" -- "$rec" -e bogus -- true
expect 2 "-F and -c exclude each other" -- "$rec" -F 99 -c 1000 -- true
expect 2 "nothing to record" -- "$rec" -e cpu-clock
expect 2 "--size needs --ring" -- "$rec" --size 4K -- true
expect 2 "only one of" -- "$rec" -a -p 1
expect 2 "--stat counts" -- "$rec" --stat -g -- true
expect 2 "Unknown option" -- "$rec" --no-such-option
"$rec" --help >"$tmp/out" 2>&1 || fail "--help: exit $?"
grep -q -- "--stat" "$tmp/out" && grep -q -- "--ring" "$tmp/out" || fail "--help incomplete"
"$rec" --version >"$tmp/out" 2>&1 || fail "--version: exit $?"
grep -q "plugin ABI" "$tmp/out" || fail "--version lacks the plugin ABI"
# The tool finds the hw backend as a plugin.
"$rec" --list-plugins >"$tmp/out" 2>&1 || fail "--list-plugins: exit $?"
grep -q "^hw *backend" "$tmp/out" || fail "--list-plugins lacks hw: $(cat "$tmp/out")"
nm -D "$rec" 2>/dev/null | grep -q "hw_parse_events\|perf_event_open" &&
	fail "perfring-record links the hw code"

# A second run keeps the first file as FILE.old, as perf record does.
"$rec" -e cpu-clock -o keep.data -- true 2>/dev/null && cp keep.data first.data &&
	"$rec" -e cpu-clock -o keep.data -- true 2>/dev/null || fail "keep.data: exit $?"
cmp -s first.data keep.data.old || fail "the previous keep.data is not keep.data.old"

# How fast a trivial command is recorded (no fixed poll timeout at exit).
best=999999
for i in 1 2 3; do
	t0=$(date +%s%N)
	"$rec" -e cpu-clock -o t.data -- true 2>/dev/null || fail "-- true: exit $?"
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	[ $ms -lt $best ] && best=$ms
done
t0=$(date +%s%N)
"$rec" -e cpu-clock --ring t.ring --size 64K -- true 2>/dev/null || fail "--ring -- true: exit $?"
t1=$(date +%s%N)
echo "perfring-record -- true: best of 3: $best ms to perf.data; $(( (t1 - t0) / 1000000 )) ms to a ring file"
# Both outputs are private, as perf.data is: they name everything recorded.
for f in t.data t.ring; do
	m=$(stat -c %a "$f")
	[ "$m" = 600 ] || fail "$f created with mode $m, not 600"
done
[ $best -lt 1000 ] || fail "perfring-record -- true took $best ms"

[ $fails -eq 0 ] || exit 1
echo "record-errors.sh: all checks passed"
