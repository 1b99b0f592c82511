#!/bin/sh
# perfring-record -e SUBSYSTEM:EVENT against the real perf:
#  - perf script prints each event's fields (sched_process_exec:
#    filename=/bin/true pid=N old_pid=N) and perf report sorts by them
#    (-s filename), from a file and from a pipe (-o -);
#  - the HEADER_TRACING_DATA is byte for byte what perf record writes for
#    the same event here;
#  - globs (-e 'sched:sched_process_e*') give every matching event;
#  - perfring-dump shows the raw payload;
#  - -z and perfring-replay keep the fields;
#  - what a user can act on: an unknown event and a missing tracefs name
#    what was looked up; paranoid and tracefs refusals say what to do,
#    for real as nobody where we are root.
# Skips (77) without perf, perf_event_open or a mounted tracefs.
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open
cd "$W" || exit 1
tracefs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r "$d/events/sched/sched_process_exec/format" ] && { tracefs=$d; break; }
done
[ -n "$tracefs" ] || skip "no readable tracefs with sched:sched_process_exec (mount -t tracefs nodev /sys/kernel/tracing)"

# fields FILE: perf script's lines for sched_process_exec, the
# fields only (comm, pid, cpu and time differ between runs).
fields() {
	"$PERF" script -i "$1" 2>"$W/script.err" |
		sed -n 's/.*sched:sched_process_exec: //p'
}

# 1. The fields, in perf script and perf report.
"$REC" -e sched:sched_process_exec -o tp.data -- sh -c '/bin/true; /bin/true' 2>rec.err && ok "exit $?" ||
	bad "exit $?: $(cat rec.err)"
cat rec.err
fields tp.data >f.txt
cat f.txt
[ -s script.err ] && bad "perf script warned: $(cat script.err)" || ok "not: perf script warned"
n=$(grep -c '^filename=/bin/true pid=[0-9][0-9]* old_pid=[0-9][0-9]*$' f.txt)
[ "$n" = 2 ] && ok "not: want 2 'filename=/bin/true pid=N old_pid=N' lines, got $n" || bad "want 2 'filename=/bin/true pid=N old_pid=N' lines, got $n: $(cat f.txt)"
"$PERF" report -i tp.data --stdio -s filename 2>rep.err | grep -v '^#' | grep . >rep.txt
cat rep.txt
grep -q '66.67%  *\/bin\/true$' rep.txt && ok "not: perf report -s filename" || bad "perf report -s filename: $(cat rep.txt rep.err)"
"$PERF" evlist -i tp.data 2>/dev/null | grep -qx 'sched:sched_process_exec' && ok "not: event name" ||
	bad "event name: $("$PERF" evlist -i tp.data 2>&1)"

# 2. HEADER_TRACING_DATA as perf record writes it for the same event.
# feature FILE: the TRACING_DATA payload, from perfring-dump -H's offsets.
feature() {
	set -- "$1" $("$DUMP" -H "$1" | sed -n 's/^feature 1 TRACING_DATA (offset \(0x[0-9a-f]*\), \([0-9]*\) bytes)$/\1 \2/p')
	[ $# = 3 ] || return 1
	tail -c +$(($2 + 1)) "$1" | head -c "$3"
}
"$PERF" record -q -e sched:sched_process_exec -o perf.data -- true 2>/dev/null && ok "not: perf record -e sched:sched_process_exec failed" ||
	bad "perf record -e sched:sched_process_exec failed"
feature tp.data >ours.td && ok "not: no TRACING_DATA feature in perfring-record's file'" || bad "no TRACING_DATA feature in perfring-record's file"
feature perf.data >perf.td && ok "not: no TRACING_DATA feature in perf record's file'" || bad "no TRACING_DATA feature in perf record's file"
[ -s ours.td ] && cmp ours.td perf.td && ok "not: TRACING_DATA differs from perf record's'" || bad "TRACING_DATA differs from perf record's ($(wc -c <ours.td) vs $(wc -c <perf.td) bytes)"
echo "TRACING_DATA: $(wc -c <ours.td) bytes, same as perf record's"

# 3. Pipe mode: the tracing data goes as a record before the samples.
"$REC" -e sched:sched_process_exec -o - -- sh -c /bin/true 2>/dev/null >pipe.data
"$PERF" script -i - <pipe.data 2>script.err | grep -c 'filename=/bin/true pid=' >n.txt
[ "$(cat n.txt)" = 1 ] && ok "not: pipe mode" || bad "pipe mode: $(cat n.txt) exec lines: $(cat script.err)"

# 4. Globs: every match is an event of its own.
"$REC" -e 'sched:sched_process_e*' -o glob.data -- sh -c /bin/true 2>rec.err && ok "glob: exit $?" ||
	bad "glob: exit $?: $(cat rec.err)"
"$PERF" evlist -i glob.data 2>/dev/null | grep -v "^#" | sort >ev.txt
printf 'sched:sched_process_exec\nsched:sched_process_exit\n' | cmp -s - ev.txt && ok "not: glob events" ||
	bad "glob events: $(cat ev.txt)"
"$PERF" script -i glob.data 2>/dev/null | grep -q 'sched:sched_process_exit: comm=true pid=' && ok "not: no sched_process_exit fields" ||
	bad "no sched_process_exit fields: $("$PERF" script -i glob.data 2>&1 | head -5)"

# 5. perfring-dump: the payload, /bin/true in hex.
"$DUMP" -t SAMPLE tp.data >dump.txt && ok "perfring-dump: exit $?" || bad "perfring-dump: exit $?"
grep -q ' raw [0-9]* .*2f 62 69 6e 2f 74 72 75 65 00' dump.txt && ok "not: perfring-dump shows no raw payload" ||
	bad "perfring-dump shows no raw payload: $(head -2 dump.txt)"

# 6. -z, and perfring-replay (the tracing data comes along).
"$REC" -z -e sched:sched_process_exec -o tpz.data -- sh -c '/bin/true; /bin/true' 2>/dev/null
fields tpz.data | grep -c 'filename=/bin/true' | grep -qx 2 && ok "not: -z" || bad "-z: $(fields tpz.data)"
"$REPLAY" -z -o replayed.data tp.data 2>rep.err && ok "replay: exit $?" || bad "replay: exit $?: $(cat rep.err)"
fields replayed.data >g.txt
cmp -s f.txt g.txt && ok "not: perf script differs after perfring-replay -z" || bad "perf script differs after perfring-replay -z: $(cat g.txt)"

# 7. What was looked up, and refusals.
expect 1 "unknown tracepoint 'sched:no_such_event' (no $tracefs/events/sched/no_such_event/id" -- \
	"$REC" -e sched:no_such_event -o x.data -- true
expect 1 "no tracepoint matches 'nosys*:x'" -- "$REC" -e 'nosys*:x' -o x.data -- true
PERFRING_TRACEFS=$W/none expect 1 "no tracefs: looked for $W/none/events" -- \
	"$REC" -e sched:sched_process_exec -o x.data -- true
lvl=$(cat /proc/sys/kernel/perf_event_paranoid)
PERFRING_HW_FAKE_ERRNO=EACCES expect 1 "kernel.perf_event_paranoid is $lvl: tracepoints with their fields (raw data) need -1" -- \
	"$REC" -e sched:sched_process_exec -o x.data -- true
[ -e x.data ] && bad "a failed run left x.data behind" || ok "not: a failed run left x.data behind"
# tracefs is root's only here: as nobody, for real.
mode=$(stat -c %a "$tracefs")
if [ "$(id -u)" = 0 ] && [ "$mode" = 700 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
	mkdir stage stage/lib stage/plugins &&
	cp "$top_builddir/tools/.libs/perfring-record" stage/ &&
	cp -P "$top_builddir"/lib/.libs/libperfring.so* stage/lib/ &&
	cp "$top_builddir"/plugins/*/.libs/*.so stage/plugins/ && chmod -R a+rX stage && ok "not: staging for nobody" ||
		bad "staging for nobody"
	nrec="setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_LIBRARY_PATH=$W/stage/lib PERFRING_PLUGIN_PATH=$W/stage/plugins $W/stage/perfring-record"
	expect 1 "tracefs cannot be read: Permission denied (tracefs is usually root's only" -- \
		$nrec -e sched:sched_process_exec -o "$W/n.data" -- true
	# With a readable copy of the event's files, the kernel's own refusal.
	if [ "$lvl" -ge 0 ]; then
		ev=events/sched/sched_process_exec
		mkdir -p "copy/$ev" && cp "$tracefs/$ev/id" "$tracefs/$ev/format" "copy/$ev/" &&
			chmod -R a+rX copy && ok "not: copying the event's tracefs files'" || bad "copying the event's tracefs files"
		PERFRING_TRACEFS=$W/copy expect 1 "kernel.perf_event_paranoid is $lvl: tracepoints with their fields (raw data) need -1" -- \
			$nrec -e sched:sched_process_exec -o "$W/n.data" -- true
		grep -q "user space only" err && bad "a tracepoint refusal fell back to :u" || ok "not: a tracepoint refusal fell back to :u"
	fi
else
	echo "tracefs is mode $mode or not root: the real tracefs refusal is not tested"
fi

finish
