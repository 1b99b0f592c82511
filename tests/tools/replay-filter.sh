#!/bin/sh
# perfring-replay's filtered rewrites (--time, --pid, --tid, --comm, --cpu,
# --event): perf report --no-children --sort comm,dso,sym on the filtered
# file gives the same lines and sample counts as perf report with the same
# filter on the whole file (side-band kept: the same functions named);
# the summary line counts what was kept and dropped; a filter that matches
# nothing writes a valid profile without samples and exits 1; a bad filter
# exits 2 and leaves an existing output as it was.
. "$top_srcdir/tests/testlib.sh"
use_build_plugins
need_perf_sampling

# A multi-process workload: two threads, a single-threaded burner, a shell loop.
"$PERF" record -q --sample-cpu -e cpu-clock -F 2000 -g -o "$W/w.data" -- \
	sh -c "$WL/wl-threads 0.8 >/dev/null & $WL/wl-busy 0.3;
	       i=0; while [ \$i -lt 20000 ]; do i=\$((i + 1)); done; wait" \
	>/dev/null 2>"$W/rec.err" || die "perf record: $(head -n 3 "$W/rec.err")"

# report ARGS...: perf report's lines and sample counts, comments dropped
# (perf marks a --time run's counts with "(time slices: ...)": cut off)
rep() {
	"$PERF" report --no-children --stdio -g none "$@" 2>/dev/null |
		grep -v '^#' | grep -v '^$'
	"$PERF" report --no-children --stdio -g none "$@" 2>/dev/null |
		sed -n 's/ (time slices:.*//; /^# \(Samples\|Event count\)/p'
}
# compare WHAT SORT "REPLAY OPTIONS" "PERF OPTIONS": the rewrite against perf
compare() {
	rm -f "$W/f.data"
	# shellcheck disable=SC2086
	eval "\"\$REPLAY\" $3 -o \"\$W/f.data\" \"\$W/w.data\"" 2>"$W/f.err"
	rc=$?
	eval "rep --sort $2 -i \"\$W/f.data\"" >"$W/ours.txt"
	eval "rep --sort $2 $4 -i \"\$W/w.data\"" >"$W/perf.txt"
	if [ $rc -ne 0 ]; then
		bad "$1: exit $rc: $(cat "$W/f.err")"
	elif ! grep -q '^# Samples: [1-9]' "$W/perf.txt"; then
		bad "$1: perf report keeps no sample (the workload is too short here?)"
	else
		same "$1: perf report on the rewrite = perf report $4" "$W/ours.txt" "$W/perf.txt"
	fi
}

hdr=$("$PERF" report --header-only -i "$W/w.data" 2>/dev/null)
first=$(echo "$hdr" | sed -n 's/^# time of first sample : //p')
last=$(echo "$hdr" | sed -n 's/^# time of last sample : //p')
[ -n "$first" ] && [ -n "$last" ] || die "perf record wrote no sample times"
at() { awk -v a="$first" -v b="$last" -v f="$1" 'BEGIN { printf "%.6f", a + f * (b - a) }'; }
t1=$(at 0.2) t2=$(at 0.4) t3=$(at 0.6) t4=$(at 0.8)
# the single-threaded burner: its tid is its pid
busy=$("$PERF" report --no-children --stdio -g none --sort pid -i "$W/w.data" 2>/dev/null |
	sed -n 's/^ *[0-9.]*% *\([0-9]*\):wl-busy.*/\1/p' | head -n 1)
[ -n "$busy" ] || die "no wl-busy samples"
# the CPU with the most samples (the others may have none in a slice)
cpu=$("$PERF" report --no-children --stdio -g none --sort cpu -i "$W/w.data" 2>/dev/null |
	sed -n 's/^ *[0-9.]*% *0*\([0-9][0-9]*\) *$/\1/p' | head -n 1)
[ -n "$cpu" ] || die "no sample names its CPU"

S=comm,dso,sym
compare "--time 10%/2" $S "--time 10%/2" "--time 10%/2"
compare "--time 0%-10%,30%-40%" $S "--time 0%-10%,30%-40%" "--time 0%-10%,30%-40%"
compare "--time 10%/1,10%/3" $S "--time 10%/1,10%/3" "--time 10%/1,10%/3"
compare "--time 50%" $S "--time 50%" "--time 50%"
compare "--time START,STOP" $S "--time $t1,$t3" "--time $t1,$t3"
compare "--time ,STOP" $S "--time ,$t2" "--time ,$t2"
compare "--time START," $S "--time $t3," "--time $t3,"
compare "--time, two ranges" $S "--time '$t1,$t2 $t3,$t4'" "--time '$t1,$t2 $t3,$t4'"
compare "--cpu" $S "--cpu $cpu" "--cpu $cpu"
compare "--cpu 0-1" $S "--cpu 0-1" "--cpu 0-1"
compare "--pid" $S "--pid $busy" "--pid $busy --percentage relative"
compare "--pid --time" $S "--pid $busy --time 25%-100%" \
	"--pid $busy --time 25%-100% --percentage relative"
compare "--cpu --time" $S "--cpu $cpu --time 10%/4,10%/6" "--cpu $cpu --time 10%/4,10%/6"
compare "--event" $S "--event cpu-clock --time 50%" "--time 50%"
# --comm: a thread's command when the sample was taken, as perf script
# --comm takes it (perf report --comm filters its entries by the thread's
# last command instead, and counts the samples a thread took before its
# exec under the new name): the same samples as perf script keeps.
script() {
	"$PERF" script -F comm,pid,tid,cpu,time,ip "$@" 2>/dev/null | sort
}
compare_script() {
	rm -f "$W/f.data"
	eval "\"\$REPLAY\" $2 -o \"\$W/f.data\" \"\$W/w.data\"" 2>"$W/f.err"
	rc=$?
	script -i "$W/f.data" >"$W/ours.txt"
	eval "script $3 -i \"\$W/w.data\"" >"$W/perf.txt"
	if [ $rc -ne 0 ] || [ ! -s "$W/perf.txt" ]; then
		bad "$1: exit $rc, $(wc -l <"$W/perf.txt") samples from perf: $(cat "$W/f.err")"
	else
		same "$1: perf script on the rewrite = perf script $3" "$W/ours.txt" "$W/perf.txt"
	fi
}
compare_script "--comm" "--comm wl-busy" "--comm wl-busy"
compare_script "--comm, two" "--comm wl-busy,sh" "--comm wl-busy,sh"
compare_script "--comm --cpu" "--comm wl-threads --cpu $cpu" "--comm wl-threads --cpu $cpu"
compare "--tid" $S "--tid $busy" "--tid $busy --percentage relative"

# A pipe-mode file: perf writes its SAMPLE_TIME feature as zeros there, so
# the percents are of the samples' own times (perf report cannot take them
# there: compared with perf report on the file-mode rewrite, which has them).
"$PERF" record -q -e cpu-clock -F 2000 -g -o - -- "$WL/wl-busy" 0.3 >"$W/p.data" \
	2>"$W/prec.err" || die "perf record -o -: $(head -n 3 "$W/prec.err")"
"$REPLAY" -o "$W/pf.data" "$W/p.data" 2>"$W/pf.err" ||
	bad "pipe-mode file: rewrite: $(cat "$W/pf.err")"
rm -f "$W/f.data"
"$REPLAY" --time 10%-60% -o "$W/f.data" "$W/p.data" 2>"$W/f.err"
status "pipe-mode file: --time 10%-60%" 0 $?
rep --sort $S -i "$W/f.data" >"$W/ours.txt"
rep --sort $S --time 10%-60% -i "$W/pf.data" >"$W/perf.txt"
if grep -q '^# Samples: [1-9]' "$W/perf.txt"; then
	same "pipe-mode file: --time 10%-60% = perf report --time 10%-60%" "$W/ours.txt" "$W/perf.txt"
else
	bad "pipe-mode file: perf report keeps no sample"
fi

# The summary line: kept + dropped = every record of the input.
"$REPLAY" --time 10%/2 -o "$W/f.data" "$W/w.data" 2>"$W/f.err"
has "summary line" "$W/f.err" '^perfring-replay: [0-9]+ records kept, [0-9]+ dropped'
total=$("$REPLAY" --json-out "$W/w.data" 2>/dev/null | grep -vc '"type":"ATTR"')
sum=$(sed -n 's/^perfring-replay: \([0-9]*\) records kept, \([0-9]*\) dropped.*/\1 \2/p' \
	"$W/f.err" | awk '{ print $1 + $2 }')
[ "$sum" = "$total" ] && ok "summary: kept + dropped = $total records" ||
	bad "summary: kept + dropped = $sum, the input has $total records"
# Side-band is all there: the same COMM, MMAP2, FORK and EXIT records.
for f in w f; do
	"$REPLAY" --json-out "$W/$f.data" 2>/dev/null |
		grep -E '"type":"(COMM|MMAP|MMAP2|FORK|EXIT)"' >"$W/$f.side"
done
same "every side-band record kept" "$W/w.side" "$W/f.side"

# No sample matches: a valid empty profile, exit 1, said so.
rm -f "$W/e.data"
"$REPLAY" --pid 999999999 -o "$W/e.data" "$W/w.data" 2>"$W/e.err"
status "no match" 1 $?
has "no match: says so" "$W/e.err" 'no sample matches the filter'
has "no match: 0 samples kept" "$W/e.err" 'samples: 0 kept'
"$PERF" report --stats -i "$W/e.data" >"$W/e.stats" 2>&1
status "no match: perf report --stats reads the empty profile" 0 $?
"$REPLAY" --json-out "$W/e.data" 2>/dev/null | grep -c '"type":"SAMPLE"' >"$W/e.n"
has "no match: no SAMPLE record" "$W/e.n" '^0$'

# A bad filter: exit 2, an existing output untouched, no temporary left.
echo old >"$W/keep.data"
for bad in "--time 10" "--time 2,1" "--time 10%/11" "--time 10%/0" "--cpu x" "--pid 1x" \
	   "--event no-such-event" "--time '2,3 1,4'"; do
	eval "\"\$REPLAY\" $bad -o \"\$W/keep.data\" \"\$W/w.data\"" 2>"$W/b.err"
	rc=$?
	[ $rc -eq 2 ] && [ -s "$W/b.err" ] && ok "$bad: exit 2, said why" ||
		bad "$bad: exit $rc: $(cat "$W/b.err")"
done
has "a bad filter leaves the output as it was" "$W/keep.data" '^old$'
ls "$W" | grep '\.tmp\.' >"$W/tmps"
empty "no temporary file left" "$W/tmps"
finish
