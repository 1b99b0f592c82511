#!/bin/sh
# COMPRESSED2 (record type 83, newer perf: header, u64 data_size, zstd
# data, padded to 8) in file and pipe mode, made from a real `perf record
# -z` by tests/tools/pd-rewrite (every COMPRESSED record rewritten as a
# COMPRESSED2): perfring-dump names it "COMPRESSED2" (perf's name in its
# perf_event__names), --stats counts it once per record as newer perf's
# `perf report --stats` does (nr_events[83]) and every other line equals
# --stats of the COMPRESSED original, --check and replay report no
# problem, and replay's output (its own compression, or none) gives the
# same `perf script` as the original.  Before: TYPE83, "unknown record
# type 83" from --check, and replay warned that it dropped them.
# Stock perf 6.1 itself refuses the rewritten input ("failed to process
# type: 83"), and reads replay's output.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
cd "$W" || exit 1
RW="$B/tests/tools/pd-rewrite"
"$PERF" record -q -g -e cpu-clock -F 4000 -m 8 -z -o z.data -- "$WL/wl-busy" 0.5 \
	>/dev/null 2>rec.err || skip "perf record -z failed: $(head -3 rec.err)"
"$DUMP" --check z.data >/dev/null 2>&1 || skip "perfring-dump cannot read perf record -z's file (built without zstd?)"
"$PERF" record -q -g -e cpu-clock -F 4000 -m 8 -z -o - -- "$WL/wl-busy" 0.5 \
	>zp.data 2>/dev/null || skip "perf record -z -o - failed"

for m in file pipe; do
	[ $m = file ] && src=z.data || src=zp.data
	"$RW" comp2 $src c2.$m >c2.$m.list || die "$m: pd-rewrite failed"
	n=$(wc -l <c2.$m.list)
	[ "$n" -ge 1 ] && ok "$m: $n COMPRESSED2 records made" || die "$m: no COMPRESSED record to rewrite"
	"$DUMP" --stats $src >stats.orig 2>&1
	"$DUMP" --stats c2.$m >stats.c2 2>&1
	status "$m: --stats" 0 $?
	has "$m: --stats names and counts COMPRESSED2 as perf does" stats.c2 "^COMPRESSED2 $n\$"
	hasnt "$m: --stats has no TYPE83" stats.c2 "TYPE83"
	sed "s/^COMPRESSED /COMPRESSED2 /" stats.orig | sort >stats.want
	sort stats.c2 >stats.got
	same "$m: --stats otherwise equals the COMPRESSED original's" stats.want stats.got
	"$DUMP" --check c2.$m >check.out 2>&1
	status "$m: --check" 0 $?
	has "$m: --check: no problem" check.out " 0 problems"
	"$DUMP" c2.$m >text.out 2>&1
	has "$m: the text dump names it" text.out "COMPRESSED2 [0-9]+ bytes of zstd data"
	has "$m: ... and shows the records inside" text.out "^0x[0-9a-f]+\\+z"
	"$REPLAY" -o out.$m c2.$m >/dev/null 2>rep.err
	status "$m: replay" 0 $?
	empty "$m: replay warns about nothing" rep.err
	"$REPLAY" -z -o outz.$m c2.$m >/dev/null 2>rep.err
	status "$m: replay -z" 0 $?
	empty "$m: replay -z warns about nothing" rep.err
	# stock perf 6.1: the original reads, the COMPRESSED2 input does not
	if [ $m = file ]; then
		"$PERF" script -i z.data >want.txt 2>/dev/null
		"$PERF" report --stats -i c2.$m >perf.c2 2>&1
	else
		"$PERF" script -i - <zp.data >want.txt 2>/dev/null
		"$PERF" report --stats -i - <c2.$m >perf.c2 2>&1
	fi
	if grep -q "failed to process type: 83" perf.c2; then
		echo "# $m: stock perf $("$PERF" version | cut -d' ' -f3) refuses COMPRESSED2 (older than the perf that writes it)"
	else
		has "$m: a perf that reads COMPRESSED2 counts it" perf.c2 "COMPRESSED2 events: +$n "
	fi
	"$PERF" script -i out.$m >got.txt 2>/dev/null
	[ "$(wc -l <want.txt)" -gt 100 ] && ok "$m: perf script of the original: $(wc -l <want.txt) lines" ||
		bad "$m: perf script of the original: only $(wc -l <want.txt) lines"
	same "$m: perf script of replay's output equals the original's" want.txt got.txt
	"$PERF" script -i outz.$m >got.txt 2>/dev/null
	same "$m: perf script of replay -z's output equals the original's" want.txt got.txt
done
finish
