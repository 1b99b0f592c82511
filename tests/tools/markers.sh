#!/bin/sh
# Markers (issue 26): a program's marker rings (perfring-marks-PID-TID.ring,
# named by an MMAP2 as the library maps them) merged into the perf.data as
# perfring:mark tracepoint samples that stock perf prints:
#  - a real perf record -k mono of marks-mkring -l, which writes a ring as
#    the library will (THREAD, NAME, markers with values and text) and maps
#    its first page PROT_READ|PROT_EXEC while burning CPU; perfring-replay
#    merges it without being asked: perf script shows every marker in time
#    order with its fields and thread, among the samples; perf report still
#    names the helper's functions; hotspot's perfparser reads the output;
#  - --no-markers, --markers DIR (a ring no map names), a full ring's lost
#    markers (LOST in perf report --stats, the summary line), a damaged
#    ring (its offset reported, the others merged), a ring that is gone, a
#    recording not on CLOCK_MONOTONIC, -o -, a FIFO; a recording with
#    tracepoints (the marker's format appended to theirs); --jit; --span;
#  - perfring-dump decodes marker rings and the merged samples; --json and
#    back gives the same perf script lines; perfring-record merges the rings
#    of the private PERFRING_MARKS_DIR it gives the command.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
use_build_plugins
MK=$B/tests/tools/marks-mkring
PP=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
cd "$W" || exit 1

# marks FILE: "TID LINE" of each perfring:mark line of perf script, in order
marks() {
	"$PERF" script -i "$1" 2>/dev/null |
		sed -n 's/^ *.* \([0-9][0-9]*\)  *\(\[[-0-9]*\]  *\)\{0,1\}[0-9][0-9]*\.[0-9]*: *perfring:mark: \(.*[^ ]\) *$/\1 \3/p'
}
# times FILE: the time of each line of perf script (markers "M TIME",
# samples "S TIME")
times() {
	"$PERF" script -i "$1" 2>/dev/null | awk '{
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; break }
		sub(":", "", t); print (/perfring:mark:/ ? "M " : "S ") t }'
}

# ---- a real recording ------------------------------------------------------
mkdir rings hidden
"$PERF" record -k mono -q -o rec.data -- sh -c "
	'$MK' -l rings 'b,60,#frame,3,late' 'i,60,checkpoint' 'i,60,#frame,7' \
		'e,60,#frame' 'i,40,note,-,hello world' >live.out &&
	'$MK' -l -n hidden 'i,10,hidden-one,42' 'flood,10,300' -s 4096 >hidden.out
	" >/dev/null 2>rec.err ||
	skip "perf record -k mono cannot record the helper here: $(head -n 3 rec.err)"
ring=$(ls rings/perfring-marks-*.ring)
[ -f "$ring" ] && ok "the helper wrote its ring ($ring)" || die "no ring in rings/: $(ls rings)"
"$PERF" script -i rec.data --show-mmap-events 2>/dev/null | grep "PERF_RECORD_MMAP2.*/${ring##*/}" >map.line
# the thread as perf knows it (the ring's name has the helper's getpid(),
# which differs inside a pid namespace)
tid=$(sed -n 's/^ *[^ ]* *\([0-9][0-9]*\) .*/\1/p' map.line | head -n 1)
[ -n "$tid" ] && ok "perf recorded the MMAP2 that names the ring (thread $tid)" ||
	bad "no MMAP2 names $ring"

"$REPLAY" -o out.data rec.data 2>out.err
status "replay merges the markers" 0 $?
has "replay: the summary" out.err "^perfring-replay: 5 markers merged from 1 ring, 0 lost$"
marks out.data >out.marks
cat >want.marks <<EOF
$tid begin frame value=3 late
$tid instant checkpoint
$tid instant frame value=7
$tid end frame
$tid instant note hello world
EOF
same "perf script: every marker, in order, with its fields and thread" want.marks out.marks
"$PERF" script -i out.data -F pid,tid,event,trace 2>/dev/null | grep perfring:mark | head -n 1 >f.line
has "perf script: pid and tid of the marking thread" f.line "^ *$tid/$tid .*perfring:mark: +begin frame value=3 late"
times out.data >out.times
sort -s -k 2,2n out.times | cmp -s - out.times && ok "perf script: the lines are in time order" ||
	bad "perf script: not in time order: $(sort -s -k 2,2n out.times | diff - out.times | head -n 5)"
# each marker at its ring time (ns; perf script shows microseconds)
"$DUMP" "$ring" | awk '/ mark (instant|begin|end) / { print substr($2, 1, length($2) - 3) }' >ring.times
grep '^M' out.times | cut -d ' ' -f 2 >out.mtimes
[ -s ring.times ] && same "perf script: each marker at its time in the ring" ring.times out.mtimes ||
	bad "no marker times in the ring's dump"
awk '/^M/ { m++ } /^S/ && m == 1 { s1++ } /^S/ && m == 4 { s4++ }
     END { exit !(s1 > 5 && s4 > 2) }' out.times &&
	ok "perf script: samples between the markers (the helper burnt CPU between them)" ||
	bad "perf script: no samples between the markers: $(grep -n M out.times | head)"
"$PERF" evlist -v -i out.data >evlist 2>&1
has "the marker event is a tracepoint with IDENTIFIER" evlist \
	"^perfring:mark: type: 2, .*config: 0xfffe, .*sample_type: TID\|TIME\|RAW\|IDENTIFIER"
has "the recording's event got IDENTIFIER" evlist "^cpu-clock.*sample_type: IP\|TID\|TIME\|PERIOD\|IDENTIFIER"
report rec.data >rec.report
report out.data >out.report
has "perf report: the helper's function" out.report "	marks_burn$"
a=$(share rec.data marks_burn) b=$(share out.data marks_burn)
at_least "$b" 50 && ok "perf report: marks_burn has $b% (input $a%)" ||
	bad "perf report: marks_burn has $b% (input $a%)"
# the recording's event comes first, then perfring:mark's samples (no IP)
head -n "$(wc -l <rec.report)" out.report >out.top
same "perf report: the samples sorted as before" rec.report out.top
if [ -x "$PP" ]; then
	"$PP" --input out.data --output pp.out >pp.log 2>&1
	status "hotspot-perfparser reads the output" 0 $?
else
	echo "# $PP is not installed: not checked"
fi

"$REPLAY" --no-markers -o nom.data rec.data 2>nom.err
status "--no-markers" 0 $?
marks nom.data >nom.marks
empty "--no-markers: no marker" nom.marks
hasnt "--no-markers: no summary" nom.err "markers merged"

# ---- --markers DIR, lost markers ------------------------------------------------
hring=$(ls hidden/perfring-marks-*.ring)
"$REPLAY" -o all.data --markers hidden rec.data 2>all.err
status "--markers DIR" 0 $?
dropped=$(sed -n 's/^dropped //p' hidden.out)
[ "${dropped:-0}" -gt 0 ] && ok "the full ring dropped $dropped markers" || bad "the ring dropped none"
has "--markers: the summary counts the lost" all.err \
	"^perfring-replay: $((5 + 1 + 300 - dropped)) markers merged from 2 rings, $dropped lost$"
marks all.data >all.marks
grep -q "instant hidden-one value=42$" all.marks && ok "--markers: the ring no map names is merged" ||
	bad "--markers: hidden-one missing: $(head -n 3 all.marks)"
[ "$(grep -c 'instant flood$' all.marks)" -eq $((300 - dropped)) ] &&
	ok "--markers: every marker that fitted" || bad "--markers: $(grep -c flood all.marks) floods"
"$PERF" report -i all.data --stats 2>/dev/null >stats
has "perf report --stats: the LOST record" stats "LOST events: +1 "
"$PERF" script -i all.data --show-lost-events 2>/dev/null | grep -i lost >lost.lines
has "perf script: the lost markers" lost.lines "PERF_RECORD_LOST lost $dropped$"
"$REPLAY" -o one.data --markers "$hring" rec.data 2>one.err
status "--markers FILE" 0 $?
has "--markers FILE: merged too" one.err "markers merged from 2 rings"

# ---- damage -----------------------------------------------------------------
cp "$ring" damaged.ring
# the 3rd marker record ('i,60,#frame,7'): its size becomes 12 (not 8-aligned)
set -- $(sed -n 's/^mark 2 //p' live.out)
poke damaged.ring $(($1 + 6)) '\014\000'
"$REPLAY" -o dmg.data --markers damaged.ring --markers hidden rec.data 2>dmg.err
status "a damaged ring: exit 1" 1 $?
has "a damaged ring: its offset" dmg.err "^perfring-replay: damaged.ring: offset $(printf '%#x' "$1"): "
marks dmg.data >dmg.marks
grep -q "hidden-one" dmg.marks && ok "a damaged ring: the other rings merge" ||
	bad "a damaged ring: the others are missing"
grep -q "end frame" dmg.marks && ok "a damaged ring: its markers after the damage are kept" ||
	bad "a damaged ring: nothing after the damage: $(cat dmg.err)"

# ---- a ring that is gone, another clock, a pipe ----------------------------------
mv "$ring" gone.ring
"$REPLAY" -o gone.data rec.data 2>gone.err
status "a ring that is gone: not a failure" 0 $?
has "a ring that is gone: a warning" gone.err "^perfring-replay: warning: marker ring .*$ring"
mv gone.ring "$ring"
"$PERF" record -q -o real.data -- "$MK" -l rings 'i,50,x' >/dev/null 2>rec.err ||
	die "perf record (default clock): $(cat rec.err)"
"$REPLAY" -o real.out real.data 2>real.err
status "not CLOCK_MONOTONIC: not a failure" 0 $?
has "not CLOCK_MONOTONIC: a warning" real.err "warning: markers: the recording is not on CLOCK_MONOTONIC"
marks real.out >real.marks
empty "not CLOCK_MONOTONIC: no marker" real.marks
"$REPLAY" -o - rec.data >pipe.data 2>pipe.err
status "-o -" 0 $?
has "-o -: a note" pipe.err "note: .*not into a pipe"
"$REPLAY" -o x.data --markers hidden - <rec.data >/dev/null 2>stdin.err
status "--markers with standard input: refused" 2 $?
has "--markers with standard input: why" stdin.err "name a regular file, not -$"
"$PERF" record -k mono -q -o - -- "$MK" -l rings 'i,20,in-a-pipe' >pipe-in.data 2>rec.err ||
	die "perf record -o -: $(cat rec.err)"
if mkfifo fifo; then
	cat pipe-in.data >fifo &
	"$REPLAY" -o fifo.data fifo 2>fifo.err &
	r=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $r 2>/dev/null || break; sleep 1; done
	if kill -0 $r 2>/dev/null; then
		kill $r
		bad "a FIFO input: replay waits for a second reading"
	else
		wait $r
		status "a FIFO input: replayed once" 0 $?
		marks fifo.data >fifo.marks
		empty "a FIFO input: without markers" fifo.marks
		"$REPLAY" -o pipe-in.out pipe-in.data 2>/dev/null
		marks pipe-in.out | grep -q "instant in-a-pipe$" &&
			ok "the same pipe-mode recording as a file: its marker" ||
			bad "the pipe-mode recording as a file: no marker"
	fi
else
	bad "mkfifo failed in $W"
fi

# ---- again: merged once only ----------------------------------------------------
"$REPLAY" -o twice.data out.data 2>twice.err
status "a merged file replayed" 0 $?
marks twice.data >twice.marks
same "a merged file replayed: the markers once" out.marks twice.marks

# ---- a recording with tracepoints: the format joins theirs -------------------------
mkdir tp
if "$PERF" record -k mono -q -e sched:sched_switch -e cpu-clock -o tp.data -- \
	"$MK" -l tp 'b,30,#frame,5' 'e,30,#frame' >/dev/null 2>tp.rec.err; then
	"$REPLAY" -o tp.out tp.data 2>tp.err
	status "tracepoints: replay" 0 $?
	"$PERF" script -i tp.out 2>tp.script.err >tp.script
	has "tracepoints: sched_switch still printed with its fields" tp.script \
		"sched:sched_switch: prev_comm=.* prev_pid=[0-9]+ .*==> next_comm="
	marks tp.out >tp.marks
	printf 'begin frame value=5\nend frame\n' >want.tp
	sed 's/^[0-9]* //' tp.marks >tp.lines
	same "tracepoints: the markers beside them" want.tp tp.lines
	"$PERF" evlist -i tp.out --trace-fields 2>/dev/null >tp.fields
	has "tracepoints: perf lists the marker's fields" tp.fields \
		"perfring:mark: trace_fields: value,pid,depth,flags,kind,name,text,line"
else
	echo "# perf cannot record sched:sched_switch here: $(head -n 1 tp.rec.err)"
fi

# ---- --jit and markers: the baked MMAP2s carry the changed event ---------------------
mkdir jm
if [ -x "$TINYJIT" ]; then
	(cd jm && "$PERF" record -k mono -q -o jm.data -- sh -c \
		"'$TINYJIT' >/dev/null && '$MK' -l . 'i,20,after-jit' >/dev/null") 2>jm.rec.err ||
		die "perf record tinyjit: $(cat jm.rec.err)"
	"$REPLAY" --jit -o jm/out.data jm/jm.data 2>jm.err
	status "--jit with markers" 0 $?
	has "--jit with markers: the markers" jm.err "1 markers merged from 1 ring, 0 lost$"
	marks jm/out.data | grep -q "instant after-jit$" && ok "--jit with markers: perf script shows the marker" ||
		bad "--jit with markers: no marker"
	"$PERF" report -i jm/out.data --stdio -q --sort dso,sym 2>/dev/null >jm.report
	has "--jit with markers: perf report names the JIT functions" jm.report "out\.data\.jit-[0-9]+\.so +\[\.\] hot_fn_"
else
	echo "# $TINYJIT is not built: --jit with markers not checked"
fi

# ---- --span NAME ------------------------------------------------------------------
mkdir spans
"$PERF" record -k mono -q -o span.data -- "$MK" -l spans 'i,80,before' 'b,80,#frame' \
	'b,40,#frame' 'e,40,#frame' 'e,80,#frame' 'i,80,after' >/dev/null 2>rec.err ||
	die "perf record: $(cat rec.err)"
"$REPLAY" -o span.out --span frame span.data 2>span.err
status "--span" 0 $?
"$REPLAY" -o nospan.out span.data 2>/dev/null
total=$("$PERF" script -i nospan.out 2>/dev/null | grep -vc perfring:mark)
kept=$("$PERF" script -i span.out 2>/dev/null | grep -vc perfring:mark)
has "--span: the summary" span.err "^perfring-replay: $kept samples kept, $((total - kept)) dropped \(1 spans\)$"
times span.out >span.times
# markers: before, begin (outermost), begin, end, end (outermost), after
awk '/^M/ { m++; next } { n[m]++ } END {
	exit !(!n[1] && n[2] > 20 && n[3] > 10 && n[4] > 20 && !n[5] && !n[6]) }' span.times &&
	ok "--span: samples only between the outermost begin and end" ||
	bad "--span: samples per stretch: $(awk '/^M/ { m++; next } { n[m]++ } END { for (i = 0; i <= 6; i++) printf "%d ", n[i] }' span.times)"
[ "$kept" -gt 0 ] && [ "$kept" -lt "$total" ] && ok "--span: $kept of $total samples kept" ||
	bad "--span: $kept of $total samples kept"
[ "$(marks span.out | wc -l)" -eq 6 ] && ok "--span: the markers kept" || bad "--span: markers lost"
"$REPLAY" -o x.out --span nosuchspan span.data 2>nosuch.err
has "--span of a name never marked: nothing kept" nosuch.err "^perfring-replay: 0 samples kept, $total dropped \(0 spans\)$"
"$REPLAY" -o x.out --span frame rec.data --no-markers 2>x.err
status "--span with --no-markers: refused" 2 $?

# ---- perfring-dump, JSON ---------------------------------------------------------
"$DUMP" "$ring" >ring.dump 2>&1
has "perfring-dump: a marker ring decoded" ring.dump "mark begin id=1 value=3 text=\"late\""
has "perfring-dump: NAME records" ring.dump "mark name id=1 name=\"frame\"$"
has "perfring-dump: THREAD records" ring.dump "SAMPLE user mark thread pid=[0-9]+ tid=[0-9]+$"
has "perfring-dump: inline names, texts" ring.dump "mark instant name=\"note\" text=\"hello world\"$"
"$DUMP" out.data >out.dump 2>&1
has "perfring-dump: the merged samples decoded" out.dump \
	"event perfring:mark mark begin frame value=3 text=\"late\" pid=$tid tid=$tid depth=1$"
"$DUMP" --json out.data >out.json 2>json.err
status "perfring-dump --json" 0 $?
"$REPLAY" --json-in out.json -o rt.data 2>rt.err
status "--json-in" 0 $?
marks rt.data >rt.marks
same "--json round trip: the same markers" out.marks rt.marks
"$PERF" script -i out.data 2>/dev/null >a.script
"$PERF" script -i rt.data 2>/dev/null >b.script
same "--json round trip: the same perf script" a.script b.script

# ---- perfring-record -----------------------------------------------------------
if "$REC" --stat -e task-clock:u -- true 2>/dev/null; then
	"$REC" -o prec.data -- "$MK" -l - 'b,60,#frame,3,late' 'e,60,#frame' >prec.out 2>prec.err
	status "perfring-record" 0 $?
	has "perfring-record: the summary" prec.err "^perfring-record: 2 markers merged from 1 ring, 0 lost$"
	marks prec.data | sed 's/^[0-9]* //' >prec.marks
	printf 'begin frame value=3 late\nend frame\n' >want.prec
	same "perfring-record: the markers" want.prec prec.marks
	pdir=$(sed -n 's|^ring \(.*\)/[^/]*$|\1|p' prec.out)
	case $pdir in
	"${TMPDIR:-/tmp}"/perfring-marks-??????) ok "perfring-record: a private PERFRING_MARKS_DIR ($pdir)" ;;
	*) bad "perfring-record: the command's PERFRING_MARKS_DIR is $pdir" ;;
	esac
	[ -n "$pdir" ] && [ ! -e "$pdir" ] && ok "perfring-record: its private folder is removed" ||
		bad "perfring-record: $pdir is left: $(ls -la "$pdir" 2>&1)"
	"$REC" -z -o precz.data -- "$MK" -l - 'i,20,#zst' >/dev/null 2>precz.err
	status "perfring-record -z" 0 $?
	marks precz.data | grep -q "instant zst$" && ok "perfring-record -z: the marker" ||
		bad "perfring-record -z: no marker: $(cat precz.err)"
	"$PERF" report -i precz.data --header-only 2>/dev/null | grep -q '^# compressed : Zstd, level = 1,' &&
		ok "perfring-record -z: still compressed after the merge" ||
		bad "perfring-record -z: not compressed after the merge"
	mkdir nomarks
	PERFRING_MARKS_DIR=$W/nomarks "$REC" --no-markers -o prec2.data -- "$MK" -l - 'i,20,x' \
		>prec2.out 2>prec2.err
	has "perfring-record --no-markers: the command's own PERFRING_MARKS_DIR" prec2.out "^ring $W/nomarks/"
	marks prec2.data >prec2.marks
	empty "perfring-record --no-markers: no marker" prec2.marks
else
	echo "# perf_event_open is not usable for perfring-record: its checks skipped"
fi
finish
