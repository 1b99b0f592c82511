#!/bin/sh
# The tracing data (tracepoint formats) of a perf.data goes through replay
# byte for byte, file feature or pipe-mode record; a damaged one is left
# out, said with its offset (exit 1), never written for perf to crash on:
#  - another machine's formats: a recording whose sched_switch print fmt is
#    edited (same length) prints the edited text under perf script; the
#    replay of its pipe and its file mode prints the same lines, not this
#    machine's format (before, a pipe's formats were rebuilt from tracefs);
#  - the TRACING_DATA bytes of OUT are those of IN (file in, file out);
#  - a format whose "print fmt" line is merged into the line before it (one
#    flipped newline): perf crashes on it; replay reports the offset, leaves
#    the formats out and writes every record (perf then says the trace data
#    is missing instead of crashing).
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs with sched:sched_switch (mount -t tracefs nodev /sys/kernel/tracing)"
"$PERF" record -q -e sched:sched_switch -a -o "$W/probe.data" -- true >/dev/null 2>"$W/probe.err" ||
	skip "perf record cannot record sched:sched_switch here: $(head -n 2 "$W/probe.err")"
use_build_plugins
cd "$W" || exit 1

# edit FILE FROM TO: replace the bytes FROM by TO (same length) everywhere
edit() {
	perl -0777 -pi -e "s/\\Q$2\\E/$3/g" "$1"
}
script() { "$PERF" script -i "$1" 2>/dev/null; }

"$PERF" record -q -e sched:sched_switch -a -o - -- sleep 0.2 >p.data 2>rec.err ||
	die "perf record -o -: $(cat rec.err)"
"$PERF" record -q -e sched:sched_switch -a -o f.data -- sleep 0.2 >/dev/null 2>rec.err ||
	die "perf record: $(cat rec.err)"
for f in p f; do
	edit $f.data 'prev_comm=%s prev_pid' 'PREV_COMM=%s prev_pid'
	script $f.data >$f.script
	has "$f: perf prints the other machine's format" $f.script 'sched_switch: PREV_COMM='
	"$REPLAY" -o $f.out $f.data 2>$f.err
	status "$f: replay" 0 $?
	empty "$f: replay says nothing" $f.err
	script $f.out >$f.out.script
	same "$f: perf script prints the same lines" $f.script $f.out.script
done
"$REPLAY" -o - p.data >pp.out 2>pp.err
status "pipe into a pipe" 0 $?
script pp.out >pp.script
same "pipe into a pipe: the same lines" p.script pp.script
feature_bytes f.data 1 >f.td
[ -s f.td ] && ok "file mode: it has TRACING_DATA" || bad "no TRACING_DATA in f.data"
feature_bytes f.out 1 >f.out.td
same "file mode: TRACING_DATA byte for byte" f.td f.out.td

# damage: the newline before "print fmt" of sched_switch becomes a space
cp f.data bad.data
edit bad.data "
print fmt: \"PREV_COMM" " print fmt: \"PREV_COMM"
cmp -s f.data bad.data && die "the damage was not made"
"$PERF" script -i bad.data >bad.script 2>bad.perf.err
rc=$?
echo "# stock perf script on the damaged input: exit $rc: $(tail -n 1 bad.perf.err)"
[ $rc -ne 0 ] && ok "stock perf fails on the damaged input (exit $rc)" ||
	bad "stock perf read the damaged tracing data"
"$REPLAY" -o bad.out bad.data 2>bad.err
status "damaged: replay" 1 $?
has "damaged: named, with its offset" bad.err '^perfring-replay: bad.data: offset 0x[0-9a-f]+: TRACING_DATA damaged \(left out'
feature_bytes bad.out 1 >bad.td
empty "damaged: no TRACING_DATA written" bad.td
"$PERF" script -v -i bad.out >bad.out.script 2>bad.out.err
rc=$?
# perf 6.1 will not show tracepoint events without their formats: it
# says so and exits, where the damaged formats crashed it
[ $rc -ne 0 ] && { [ $rc -lt 128 ] || [ $rc -eq 255 ]; } && ok "damaged: perf refuses the output cleanly (exit $rc)" ||
	bad "damaged: perf script on the output: exit $rc"
has "damaged: perf says the trace data is missing" bad.out.err 'missing trace data'
"$DUMP" --stats bad.data | grep '^SAMPLE' >bad.in.n
"$DUMP" --stats bad.out | grep '^SAMPLE' >bad.out.n
[ -s bad.in.n ] && ok "damaged: the input has samples" || bad "damaged: no SAMPLE in the input"
same "damaged: every sample is written" bad.in.n bad.out.n
finish
