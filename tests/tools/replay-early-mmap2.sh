#!/bin/sh
# The early MMAP2 layout (Linux 3.12-3.15, and 3.10 enterprise kernels
# with MMAP2 backported, RHEL 7): no prot and flags, the filename at byte 64
# instead of 72.  The inputs are a real `perf record -d` (short names such
# as //anon, [vdso], [stack], 8-15 byte ones such as [vvar_vclock], long
# paths) whose MMAP2 records tests/tools/pd-rewrite turned into that
# layout, with and without sample_id_all.  Stock perf 6.1 keeps every one
# (perf report --stats and -D count them all), reading the filename 8
# bytes late.  Must hold: --stats counts equal perf's, --check reports no
# problem, the text and JSON dumps decode the layout and say so, JSON lines
# give the same bytes back, replay keeps every record byte for byte (so
# perf script on OUT equals perf script on IN).  Before: --check and replay
# reported 7 of the 24 ("8 bytes short of its sample_id_all trailer", or
# "not NUL-terminated" without sample_id_all) and replay dropped them.
# Records that neither layout explains are dropped, each reported with its
# offset, and counted in one line (before: no count).
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
cd "$W" || exit 1
RW="$B/tests/tools/pd-rewrite"
"$PERF" record -q -d -e cpu-clock -F 2000 -o d.data -- "$WL/wl-faults" >/dev/null 2>rec.err ||
	skip "perf record -d failed: $(head -3 rec.err)"
# mmap records only: a line per record, without the time perf script shows.
# Where perf 6.1 reads an early record's name 8 bytes late and finds none
# (a short name: it reads past the record, into whatever its buffer holds
# next, which differs from file to file), the name is left out.
mmaps() {
	"$PERF" script --show-mmap-events -i "$1" 2>/dev/null | grep -a 'PERF_RECORD_MMAP' |
		sed -E 's/(\]: [rwxsp-]{4}) [^/[].*$/\1 (no name)/'
}
mmap2_json() { "$DUMP" --json "$1" | grep '"type":"MMAP2"' | sed 's/"offset":[0-9]*,//'; }

"$DUMP" d.data >text.cur
hasnt "the current layout is not taken for the early one" text.cur "early layout"
for v in sid noid; do
	[ $v = sid ] && a= || a=noid
	"$RW" early-mmap2 d.data e.$v $a >list.$v || die "$v: pd-rewrite failed"
	n=$(wc -l <list.$v)
	[ "$n" -ge 10 ] && ok "$v: $n MMAP2 records in the early layout" || die "$v: only $n MMAP2 records"
	# perf 6.1 keeps them all
	"$PERF" report --stats -i e.$v >perf.stats 2>&1
	pn=$(sed -n 's/^ *MMAP2 events: *\([0-9]*\).*/\1/p' perf.stats)
	pt=$(sed -n 's/^ *TOTAL events: *\([0-9]*\).*/\1/p' perf.stats)
	[ "$pn" = "$n" ] && ok "$v: perf report --stats counts all $n" || bad "$v: perf counts '$pn' MMAP2 of $n"
	dn=$("$PERF" report -D -i e.$v 2>/dev/null | grep -ac 'PERF_RECORD_MMAP2')
	[ "$dn" = "$n" ] && ok "$v: perf report -D shows all $n" || bad "$v: perf report -D shows $dn of $n"
	"$DUMP" --stats e.$v >stats.out
	has "$v: --stats counts the MMAP2 records as perf does" stats.out "^MMAP2 $pn\$"
	has "$v: --stats TOTAL equals perf's" stats.out "^TOTAL $pt\$"
	"$DUMP" --check e.$v >check.out 2>&1
	status "$v: --check" 0 $?
	has "$v: --check: no problem" check.out " 0 problems"
	# decoded as the kernel wrote it, and said to be the early layout
	"$DUMP" e.$v >text.out
	[ "$(grep -c 'MMAP2 .*early layout (no prot, flags) ' text.out)" -eq "$n" ] &&
		ok "$v: the text dump says early layout for all $n" ||
		bad "$v: $(grep -c 'early layout' text.out) early-layout lines of $n"
	for name in //anon '\[vdso\]' '\[stack\]' /usr/lib/x86_64-linux-gnu/libc.so.6 "$WL/wl-faults"; do
		has "$v: the filename $name is decoded whole" text.out "early layout \\(no prot, flags\\) $name\$"
	done
	mmap2_json e.$v >json.out
	[ "$(grep -c '"layout":"early",' json.out)" -eq "$n" ] && ok "$v: JSON says layout early for all $n" ||
		bad "$v: JSON: $(grep -c '"layout":"early"' json.out) of $n say layout early"
	hasnt "$v: JSON has no prot or flags for them" json.out '"prot":'
	hasnt "$v: JSON decodes every one into fields" json.out '"body":'
	# JSON lines give the same record bytes back
	"$DUMP" --json e.$v >all.json
	"$REPLAY" --json-in all.json -o rt.$v >/dev/null 2>rt.err
	status "$v: replay --json-in of the JSON dump" 0 $?
	mmap2_json rt.$v >json.rt
	same "$v: the MMAP2 records come back from JSON as they were" json.out json.rt
	# replay keeps them byte for byte
	"$REPLAY" -o out.$v e.$v >/dev/null 2>rep.err
	status "$v: replay" 0 $?
	empty "$v: replay reports nothing" rep.err
	mmap2_json out.$v >json.outv
	same "$v: replay keeps every MMAP2 record byte for byte" json.out json.outv
	mmaps e.$v >in.mm
	mmaps out.$v >out.mm
	same "$v: perf script --show-mmap-events: OUT equals IN" in.mm out.mm
	"$PERF" script -i e.$v >in.txt 2>/dev/null
	"$PERF" script -i out.$v >out.txt 2>/dev/null
	same "$v: perf script: OUT equals IN" in.txt out.txt
	# what stock perf makes of them: the filename read 8 bytes late
	if grep -aq ': rwxs /x86_64-linux-gnu/libc.so.6' in.mm; then
		echo "# $v: perf $("$PERF" version | cut -d' ' -f3) reads the filename at byte 72: '/usr/lib' lost, prot 'rwxs' from its letters"
	fi
done
# A record neither layout explains is still dropped, and every drop is
# reported with its offset and counted (tests/tools/dump-mkbad's damage).
"$B/tests/tools/dump-mkbad" pipe bad.data >bad.list || die "dump-mkbad failed"
"$REPLAY" -o bad.out bad.data >/dev/null 2>bad.err
status "replay of damaged records" 1 $?
off=$(awk '$1 == "short8" { printf "0x%x", $2 }' bad.list)
has "the MMAP2 8 bytes short of any layout is reported at its offset" bad.err "offset $off: MMAP2 record"
nd=$(grep -c ': offset 0x' bad.err)
has "the drops are counted" bad.err "^perfring-replay: $nd damaged records dropped \\(each reported above with its offset\\)\$"
finish
