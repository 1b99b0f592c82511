#!/bin/sh
# perfring-record into an output that is not a regular file, as
# `perf record -o /dev/null` is used to measure overhead: /dev/null, a FIFO
# with a reader and standard output (-o -) all exit 0 with the summary
# line, and the JIT step (which reads the output back) is skipped with one
# line that says why.  Before, -o /dev/null exited 1 ("empty input: not a
# perf.data") from the JIT step.  Stock perf 6.1 exits 0 for /dev/null too;
# into a FIFO it says "failed to mmap file" and still exits 0.
. "$top_srcdir/tests/testlib.sh"
need_event_open
cd "$W" || exit 1
use_build_plugins

# /dev/null
"$REC" -e cpu-clock -o /dev/null -- "$WL/wl-busy" 0.05 >out 2>err
status "-o /dev/null" 0 $?
has "-o /dev/null: the summary line" err "samples, [0-9]+ records, [0-9]+ lost, written to /dev/null"
has "-o /dev/null: the JIT step is skipped, saying why" err \
	"JIT symbols not baked: /dev/null is not a regular file"
[ "$(grep -c 'JIT symbols' err)" -eq 1 ] && ok "-o /dev/null: one JIT line" ||
	bad "-o /dev/null: $(grep -c 'JIT symbols' err) JIT lines"
hasnt "-o /dev/null: no error" err "not a perf.data|offset 0x"
[ -c /dev/null ] && ok "/dev/null is still a character device" || bad "/dev/null was replaced"
empty "-o /dev/null: nothing on stdout" out

# A FIFO with a reader: the stream is a pipe-mode perf.data perf reads.
mkfifo fifo || die "mkfifo"
cat fifo >fifo.data &
reader=$!
"$REC" -e cpu-clock -o fifo -- "$WL/wl-busy" 0.05 >out 2>err
rc=$?
wait $reader
status "-o FIFO" 0 $rc
has "-o FIFO: the summary line" err "samples, [0-9]+ records, [0-9]+ lost, written to fifo"
has "-o FIFO: the JIT step is skipped, saying why" err "JIT symbols not baked: fifo is not a regular file"
[ -p fifo ] && ok "the FIFO is still a FIFO" || bad "the FIFO was replaced"
"$DUMP" --check fifo.data >check.out 2>&1
status "what the FIFO carried passes --check" 0 $?
if [ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
	"$PERF" report -i - --stats <fifo.data >stats.out 2>&1
	status "perf report reads what the FIFO carried" 0 $?
	has "perf report: SAMPLE events" stats.out "SAMPLE events: +[1-9]"
fi

# Standard output
"$REC" -e cpu-clock -o - -- "$WL/wl-busy" 0.05 >pipe.data 2>err
status "-o -" 0 $?
has "-o -: the summary line" err "samples, [0-9]+ records, [0-9]+ lost, written to -"
has "-o -: the JIT step is skipped, saying why" err "JIT symbols not baked: standard output"
"$DUMP" --check pipe.data >check.out 2>&1
status "-o -: the stream passes --check" 0 $?

# A regular file still gets the JIT step, and no such line.
"$REC" -e cpu-clock -o f.data -- "$WL/wl-busy" 0.05 >out 2>err
status "-o FILE" 0 $?
hasnt "-o FILE: no JIT-skipped line" err "JIT symbols not baked"
has "-o FILE: MB written" err "MB written to f.data"
finish
