#!/bin/sh
# perfring-record's messages and exit codes for what a user can act on:
# an event this machine lacks, a perf_event_paranoid refusal (for real as an
# unprivileged user where possible, and through the plugin's
# PERFRING_HW_FAKE_ERRNO hook), too many open files (a real ulimit -n),
# a command that cannot run, bad usage; --help/--version; and how fast
# `perfring-record -- true` finishes.
# Skips (77) only without perf_event_open.
. "$top_srcdir/tests/testlib.sh"
need_event_open
cd "$W" || exit 1

# expect RC TEXT -- ARGS...: exit status RC, TEXT in stderr (prefixed).
expect_prefix="perfring-record: "

# An event the machine lacks: cycles in a VM; forced where cycles works.
if "$REC" --stat -e cycles -- true 2>&1 | grep -q "not supported"; then
	expect 1 "cycles: not supported here; try cpu-clock" -- "$REC" -e cycles -o x.data -- true
	[ -e x.data ] && bad "a failed run left x.data behind" || ok "not: a failed run left x.data behind"
	# No -e: cycles falls back to cpu-clock, saying so, as perf record does.
	expect 0 "cycles: not supported here" -- "$REC" -o d.data -- true
	grep -q "falling back to cpu-clock" "$W/err" && ok "not: no fallback note" || bad "no fallback note"
else
	echo "cycles works here: forcing the 'not supported' path"
	PERFRING_HW_FAKE_ERRNO=ENOENT expect 1 "cycles: not supported here; try cpu-clock" -- \
		"$REC" -e cycles -o x.data -- true
fi

# perf_event_paranoid: the hook, then for real as nobody with -a.
lvl=$(cat /proc/sys/kernel/perf_event_paranoid)
PERFRING_HW_FAKE_ERRNO=EACCES expect 1 "permission denied: kernel.perf_event_paranoid is $lvl" -- \
	"$REC" -e cpu-clock -o x.data -- true
grep -q "CAP_PERFMON" "$W/err" && ok "not: no hint in" || bad "no hint in: $(cat "$W/err")"
# nobody may not reach the build tree (a clone in a mktemp -d directory is
# 0700): it runs copies of the real executable, the library, the plugins
# and the workload, staged in $W (0755).
stage_for_nobody() {
	real="$top_builddir/tools/.libs/perfring-record"
	[ -x "$real" ] || real=$REC
	mkdir -p "$W/stage/lib" "$W/stage/plugins" &&
	cp "$real" "$W/stage/perfring-record" &&
	cp "$top_builddir/tests/workloads/wl-busy" "$W/stage/wl-busy" &&
	for f in "$top_builddir"/lib/.libs/libperfring.so*; do
		[ -e "$f" ] && cp -P "$f" "$W/stage/lib/"
	done &&
	for f in "$top_builddir"/plugins/*/.libs/*.so; do
		cp "$f" "$W/stage/plugins/" || return 1
	done &&
	chmod -R a+rX "$W/stage"
}
if [ "$(id -u)" = 0 ] && [ "$lvl" -ge 1 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null &&
   stage_for_nobody; then
	# (paths from mktemp: no spaces)
	nrec="env LD_LIBRARY_PATH=$W/stage/lib PERFRING_PLUGIN_PATH=$W/stage/plugins PERFRING_PLUGIN_SYSTEM_PATH= $W/stage/perfring-record"
	expect 1 "kernel.perf_event_paranoid is $lvl" -- setpriv --reuid=nobody --regid=nogroup \
		--clear-groups $nrec -e cpu-clock -a --duration 0.1 -o "$W/n.data"
	grep -q -- "-a (every CPU) needs" "$W/err" && ok "not: the paranoid message does not say what -a needs" || bad "the paranoid message does not say what -a needs"
	# Without -a an unprivileged user falls back to user space only, as
	# perf does, and perf report still resolves the workload.
	if [ "$lvl" -ge 2 ] && [ -n "${PERF:-}" ] && [ -x "$PERF" ]; then
		mkdir "$W/nobody" && chmod 777 "$W/nobody"
		expect 0 "measuring user space only (:u)" -- setpriv --reuid=nobody --regid=nogroup \
			--clear-groups $nrec -e cpu-clock -F 999 -o "$W/nobody/u.data" -- \
			"$W/stage/wl-busy" 0.2
		"$PERF" report -f -i "$W/nobody/u.data" --stdio --sort sym -q >"$W/out" 2>&1
		grep -q "hot_function" "$W/out" && ok "not: user-space-only data" || bad "user-space-only data: $(cat "$W/out")"
		"$PERF" evlist -f -i "$W/nobody/u.data" 2>&1 | grep -qx "cpu-clock:u" && ok "not: the fallback event is not named cpu-clock:u" ||
			bad "the fallback event is not named cpu-clock:u"
	fi
else
	echo "not root or paranoid < 1: real refusal not tested"
fi

# Too many open files, for real: each event needs an fd.
expect 1 "too many open files" -- sh -c 'ulimit -n 12 && exec "$@"' sh "$REC" --stat \
	-e cpu-clock,task-clock,page-faults,cs,migrations,minor-faults,major-faults,dummy,cpu-clock,task-clock,page-faults,cs \
	-- true
grep -q "ulimit -n" "$W/err" && ok "not: EMFILE: no ulimit hint" || bad "EMFILE: no ulimit hint"
PERFRING_HW_FAKE_ERRNO=EMFILE expect 1 "(EMFILE)" -- "$REC" -e cpu-clock -o x.data -- true

# A frequency above what the kernel allows.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -lt 1000000 ]; then
	expect 2 "is above kernel.perf_event_max_sample_rate ($max)" -- \
		"$REC" -e cpu-clock -F $((max + 1)) -o x.data -- true
fi

# A command that cannot run; usage errors.
expect 1 "cannot run /nonexistent/cmd" -- "$REC" -e cpu-clock -o x.data -- /nonexistent/cmd
expect 2 "unknown event 'bogus'" -- "$REC" -e bogus -- true
expect 2 "-F and -c exclude each other" -- "$REC" -F 99 -c 1000 -- true
expect 2 "nothing to record" -- "$REC" -e cpu-clock
expect 2 "--size needs --ring" -- "$REC" --size 4K -- true
expect 2 "only one of" -- "$REC" -a -p 1
expect 2 "--stat counts" -- "$REC" --stat -g -- true
expect 2 "Unknown option" -- "$REC" --no-such-option
"$REC" --help >"$W/out" 2>&1 && ok "--help: exit $?" || bad "--help: exit $?"
grep -q -- "--stat" "$W/out" && grep -q -- "--ring" "$W/out" && ok "not: --help incomplete" || bad "--help incomplete"
"$REC" --version >"$W/out" 2>&1 && ok "--version: exit $?" || bad "--version: exit $?"
grep -q "plugin ABI" "$W/out" && ok "not: --version lacks the plugin ABI" || bad "--version lacks the plugin ABI"
# The tool finds the hw backend as a plugin.
"$REC" --list-plugins >"$W/out" 2>&1 && ok "--list-plugins: exit $?" || bad "--list-plugins: exit $?"
grep -q "^hw *backend" "$W/out" && ok "not: --list-plugins lacks hw" || bad "--list-plugins lacks hw: $(cat "$W/out")"
nm -D "$REC" 2>/dev/null | grep -q "hw_parse_events\|perf_event_open" &&
	bad "perfring-record links the hw code" || ok "not: perfring-record links the hw code"

# A second run keeps the first file as FILE.old, as perf record does.
"$REC" -e cpu-clock -o keep.data -- true 2>/dev/null && cp keep.data first.data &&
	"$REC" -e cpu-clock -o keep.data -- true 2>/dev/null && ok "keep.data: exit $?" || bad "keep.data: exit $?"
cmp -s first.data keep.data.old && ok "not: the previous keep.data is not keep.data.old" || bad "the previous keep.data is not keep.data.old"

# How fast a trivial command is recorded (no fixed poll timeout at exit).
best=999999
for i in 1 2 3; do
	t0=$(date +%s%N)
	"$REC" -e cpu-clock -o t.data -- true 2>/dev/null && ok "-- true: exit $?" || bad "-- true: exit $?"
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	[ $ms -lt $best ] && best=$ms
done
t0=$(date +%s%N)
"$REC" -e cpu-clock --ring t.ring --size 64K -- true 2>/dev/null && ok "--ring -- true: exit $?" || bad "--ring -- true: exit $?"
t1=$(date +%s%N)
echo "perfring-record -- true: best of 3: $best ms to perf.data; $(( (t1 - t0) / 1000000 )) ms to a ring file"
# Both outputs are private, as perf.data is: they name everything recorded.
for f in t.data t.ring; do
	m=$(stat -c %a "$f")
	[ "$m" = 600 ] && ok "not: $f created with mode $m, not 600" || bad "$f created with mode $m, not 600"
done
[ $best -lt 1000 ] && ok "not: perfring-record -- true took $best ms" || bad "perfring-record -- true took $best ms"

finish
