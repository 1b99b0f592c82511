#!/bin/sh
# examples/markers and examples/markers-preload, recorded for real (issue
# 26): the library's marker rings found without configuration and merged
# by time among the samples.
#  - perfring-record -g of examples/markers (two threads, nested request >
#    parse/render spans, a SIGPROF handler that marks, an inline-named
#    checkpoint): perf script shows each thread's markers in order, the
#    spans properly nested per thread, samples between them; perf report
#    still names the example's functions; perfring-replay --span render
#    keeps the samples taken inside render spans, whose top function is
#    render_pixels, and says how many it kept and dropped.
#  - perf record -k mono of the example, killed with -9 in the middle:
#    perfring-replay merges every marker its rings hold (the rings' own
#    count, from perfring-dump).
#  - examples/markers-preload in python3, unmodified: a dlopen span with
#    the library's name as its text.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
need_event_open
use_build_plugins
EX=$B/examples/markers/markers
PRE=$B/examples/markers-preload/.libs/libperfring-marks-preload.so
[ -x "$EX" ] || die "examples/markers/markers is not built"
cd "$W" || exit 1

# marks FILE: "TID KIND NAME..." of each perfring:mark line of perf script
marks() {
	"$PERF" script -i "$1" -F tid,event,trace 2>/dev/null |
		sed -n 's/^ *\([0-9][0-9]*\) *perfring:mark: *\(.*[^ ]\) *$/\1 \2/p'
}

# ---- perfring-record of the example -------------------------------------------
"$REC" -F 999 -g -o ex.data -- "$EX" 2 60 >ex.out 2>ex.err
status "perfring-record -g examples/markers" 0 $?
has "the example marked on three threads" ex.out "^markers: 2 threads, 60 requests each: [0-9]+ markers, 0 dropped, 3 rings$"
has "perfring-record: the merge's summary" ex.err "[0-9]+ markers merged from 3 rings, 0 lost"
marks ex.data >ex.marks
n=$(grep -c ' begin request' ex.marks)
[ "$n" -eq 120 ] && ok "perf script: 120 request spans begin" || bad "perf script: $n request spans begin, want 120"
for k in "end request" "begin parse" "end parse" "begin render" "end render"; do
	c=$(grep -c " $k\$" ex.marks)
	[ "$c" -eq 120 ] && ok "perf script: 120 x '$k'" || bad "perf script: $c x '$k', want 120"
done
c=$(grep -c ' instant checkpoint value=[0-9]* 50 more served$' ex.marks)
[ "$c" -eq 2 ] && ok "perf script: the inline-named checkpoints with value and text" ||
	bad "perf script: $c checkpoints, want 2: $(grep checkpoint ex.marks | head -n 3)"
t=$(grep -c ' instant tick value=' ex.marks)
[ "$t" -ge 1 ] && ok "perf script: $t ticks marked from the SIGPROF handler" ||
	bad "perf script: no tick from the signal handler"
has "perf script: the main thread's first marker" ex.marks "^[0-9]+ instant start value=2$"
# per thread, the spans nest: a stack of open names, ticks aside
awk '$2 == "begin" { s[$1] = s[$1] " " $3; next }
     $2 == "end" { n = split(s[$1], a, " "); if (n == 0 || a[n] != $3) { bad++; next }
		   sub(" " $3 "$", "", s[$1]); next }
     END { for (t in s) if (s[t] != "") bad++; exit bad != 0 }' ex.marks &&
	ok "perf script: on every thread each end closes the innermost open span" ||
	bad "perf script: spans do not nest per thread"
# each thread's requests in order: request N's value is (worker << 32) | N
awk '$2 == "begin" && $3 == "request" { v = substr($4, 7); if (v + 0 < last[$1] + 0) bad++; last[$1] = v }
     END { exit bad != 0 }' ex.marks &&
	ok "perf script: each thread's requests in their order" || bad "perf script: requests out of order"
"$PERF" script -i ex.data -F event,time 2>/dev/null | awk '
	/perfring:mark/ { m++; if (s) between++; s = 0; next } { s++ }
	END { exit !(m > 700 && between >= 20) }' &&
	ok "perf script: samples lie between the markers" || bad "perf script: markers not among the samples"
rp=$(share ex.data render_pixels); pp=$(share ex.data parse_input)
at_least "$rp" 40 && at_least "$pp" 2 &&
	ok "perf report still names the example's work: render_pixels $rp%, parse_input $pp%" ||
	bad "perf report: render_pixels $rp%, parse_input $pp%"

# ---- the profile of one span ------------------------------------------------------
if "$REPLAY" --help 2>&1 | grep -q -- '--span'; then
	"$REPLAY" --span render -o render.data ex.data 2>span.err
	status "perfring-replay --span render" 0 $?
	has "--span: kept and dropped counted" span.err "[0-9]+ samples kept, [0-9]+ dropped"
	# perf report has a section per event: the markers' (at address 0) aside
	top=$(report render.data | grep -v "$(printf '\t')0*\$" | sort -t "$(printf '\t')" -k1,1nr |
		head -n 1 | cut -f 2)
	[ "$top" = render_pixels ] && ok "--span render: the top function is render_pixels" ||
		bad "--span render: the top function is '$top'"
	rs=$(share render.data render_pixels)
	at_least "$rs" 90 && ok "--span render: render_pixels has $rs% of the span's samples" ||
		bad "--span render: render_pixels has $rs%"
	ps=$(share render.data parse_input)
	at_least 1 "$ps" && ok "--span render: parse_input ($ps%) is left out" ||
		bad "--span render: parse_input still has $ps%"
else
	bad "perfring-replay has no --span"
fi

# ---- killed with -9: every committed marker is merged -------------------------------
mkdir kdir
PERFRING_MARKS_DIR=$W/kdir "$PERF" record -k mono -e cpu-clock -q -o k.data -- "$EX" 1 100000 \
	>k.out 2>k.err &
pr=$!
i=0
while [ $i -lt 100 ] && [ "$(ls kdir 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
pkill -9 -P "$pr" -x markers 2>/dev/null || pkill -9 -f "$EX 1 100000"
wait "$pr"
# what the rings hold: their markers (not the THREAD and NAME records)
held=0
for r in kdir/*.ring; do
	c=$("$DUMP" "$r" 2>/dev/null | grep -cE ' mark (begin|end|instant) ')
	held=$((held + c))
done
"$REPLAY" -o k2.data k.data 2>k2.err
status "replay of the killed program's recording" 0 $?
got=$(marks k2.data | wc -l)
[ "$got" -gt 100 ] && [ "$got" -eq "$held" ] &&
	ok "killed with -9: all $got markers its rings hold are merged" ||
	bad "killed with -9: $got merged, the rings hold $held markers"

# ---- an unmodified program, preloaded -----------------------------------------------
# (a sanitizer build's shim needs its runtime loaded first, which an
# uninstrumented python3 does not do: that build checks the rest only)
if [ -f "$PRE" ] && ldd "$PRE" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
	echo "# the preload shim is built with a sanitizer: not preloaded into python3"
elif command -v python3 >/dev/null 2>&1 && [ -f "$PRE" ]; then
	"$REC" -F 999 -o py.data -- env LD_PRELOAD="$PRE" python3 -c \
		'import ctypes, threading; ctypes.CDLL("libm.so.6"); threading.Thread(target=lambda: None, name="worker-one").start()' \
		>py.out 2>py.err
	status "perfring-record of python3 with the preload shim" 0 $?
	marks py.data >py.marks
	has "preload: a dlopen span begins with the library's name" py.marks "^[0-9]+ begin dlopen libm\.so\.6$"
	has "preload: it ends, and says it loaded" py.marks "^[0-9]+ end dlopen value=1$"
else
	echo "# no python3 or no preload shim: the preload is not checked"
fi
finish
