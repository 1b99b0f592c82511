#!/bin/sh
# perfring-dump against the real perf: a varied set of perf.data files is
# recorded now with `perf record` (software events; -g, --call-graph dwarf,
# -T, --sample-cpu, several events, a group, --switch-events, -z, pipe mode
# with and without -z, a fork+exec workload, a multithreaded one, one of
# more than 8 MiB) and for
# each one:
#  - `perfring-dump --stats` equals the "Aggregated stats" of
#    `perf report -D` (same names, same counts, same order; perf prints TOTAL
#    first, we print it last);
#  - `perfring-dump --check` exits 0 with only its summary line;
#  - the text dump has one line per record (the TOTAL of --stats), and
#    --json one line per record plus one ATTR line per event (pipe mode:
#    minus the HEADER_ATTR records the ATTR lines stand for).
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
work="dd if=/dev/zero of=/dev/null bs=4k count=20000 status=none"

# rec NAME PERF-RECORD-OPTIONS... -- COMMAND  (file mode)
rec() {
	name=$1; shift
	if "$PERF" record -q -o "$W/$name.data" "$@" >"$W/$name.rec" 2>&1; then
		files="$files $name"
	else
		bad "$name: perf record failed:"; sed 's/^/#   /' "$W/$name.rec" | head -5
	fi
}
# pipe NAME PERF-RECORD-OPTIONS... -- COMMAND  (pipe mode, -o -)
pipe() {
	name=$1; shift
	if "$PERF" record -q -o - "$@" >"$W/$name.data" 2>"$W/$name.rec"; then
		files="$files $name"
		pipes="$pipes $name"
	else
		bad "$name: perf record -o - failed:"; sed 's/^/#   /' "$W/$name.rec" | head -5
	fi
}
files=
pipes=
rec plain -e cpu-clock -c 200000 -- $work
rec callchain -e cpu-clock -c 200000 -g -- $work
rec dwarf -e cpu-clock -c 500000 --call-graph dwarf,4096 -- $work
rec timestamps -e task-clock -c 200000 -T --sample-cpu -- $work
rec events -e cpu-clock,task-clock,page-faults -c 100000 -- $work
rec group -e '{cpu-clock,task-clock}' -c 200000 -- $work
rec switch -e cpu-clock -c 200000 --switch-events -- $work
rec zstd -e cpu-clock -c 100000 -z -- $work
rec forkexec -e cpu-clock -c 200000 -- sh -c "$work; $work | cat; ls / >/dev/null"
if [ -x "$WL/wl-threads" ]; then
	rec threads -e cpu-clock -c 200000 -- "$WL/wl-threads" 0.1
else
	echo "# no tests/workloads/wl-threads: multithreaded recording not tested"
fi
# more than 8 MiB of data: --stats reads it with several threads
# (perfring_perfdata_count, lib/perfdata/count.c); recorded again for longer if the machine was slow
if [ -x "$WL/wl-threads" ]; then
	for secs in 1.2 4; do
		rec big -e cpu-clock -c 10000 -g -- "$WL/wl-threads" "$secs"
		[ "$(stat -c %s "$W/big.data" 2>/dev/null || echo 0)" -gt 9437184 ] && break
		files=$(echo "$files" | sed 's/ big$//')
	done
	case " $files " in
	*" big "*) ok "big: $(stat -c %s "$W/big.data") bytes, past the threaded counter's threshold" ;;
	*) bad "big: perf record -g of wl-threads for 4 s wrote less than 9 MiB" ;;
	esac
fi
pipe pipe -e cpu-clock -c 200000 -- $work
pipe pipezstd -e cpu-clock,task-clock -c 100000 -z -g -- $work
pipe pipefork -e cpu-clock -c 200000 --switch-events -- sh -c "$work; $work | cat"

for f in $files; do
	F="$W/$f.data"
	case " $pipes " in
	*" $f "*) "$PERF" report -D -i - < "$F" > "$W/$f.D" 2>"$W/$f.Derr" ;;
	*) "$PERF" report -D -i "$F" > "$W/$f.D" 2>"$W/$f.Derr" ;;
	esac
	# perf's "Aggregated stats" block: "   NAME events:   COUNT  (P%)"
	awk '/^Aggregated stats:/ { on = 1; next }
	     on && / stats:$/ { exit }
	     on && $2 == "events:" { print $1, $3 }' "$W/$f.D" > "$W/$f.perfall"
	if [ ! -s "$W/$f.perfall" ]; then
		bad "$f: no Aggregated stats from perf report -D:"
		sed 's/^/#   /' "$W/$f.Derr" | head -5
		continue
	fi
	{ grep -v '^TOTAL ' "$W/$f.perfall"; grep '^TOTAL ' "$W/$f.perfall"; } > "$W/$f.perf"
	"$DUMP" --stats "$F" > "$W/$f.ours" 2>"$W/$f.err"
	status "$f: --stats" 0 $?
	same "$f: --stats equals perf report -D's Aggregated stats" "$W/$f.perf" "$W/$f.ours"
	# and through standard input
	"$DUMP" --stats - < "$F" > "$W/$f.ours2" 2>>"$W/$f.err"
	same "$f: --stats from standard input" "$W/$f.perf" "$W/$f.ours2"
	empty "$f: --stats: nothing on stderr" "$W/$f.err"

	"$DUMP" --check "$F" > "$W/$f.check" 2>&1
	rc=$?
	if grep -q 'out of order events' "$W/$f.Derr"; then
		# perf itself saw FINISHED_ROUND violations: --check must too
		status "$f: --check (perf warned about out of order events)" 1 $rc
		continue
	fi
	status "$f: --check" 0 $rc
	if [ "$(wc -l < "$W/$f.check")" -eq 1 ] &&
	   grep -Eq "^$F: [0-9]+ records, 0 problems" "$W/$f.check"; then
		ok "$f: --check prints only its summary"
	else
		bad "$f: --check output:"; sed 's/^/#   /' "$W/$f.check" | head -20
	fi

	total=$(awk '$1 == "TOTAL" { print $2 }' "$W/$f.ours")
	"$DUMP" "$F" > "$W/$f.txt" 2>"$W/$f.err"
	status "$f: text dump" 0 $?
	lines=$(wc -l < "$W/$f.txt")
	[ "$lines" = "$total" ] && ok "$f: text dump has $total lines" ||
		bad "$f: text dump has $lines lines, $total records"
	hasnt "$f: no record that does not decode" "$W/$f.txt" "does not decode|malformed"
	"$DUMP" --json "$F" > "$W/$f.json" 2>"$W/$f.err"
	status "$f: --json" 0 $?
	nattr=$(grep -c '^{"type":"ATTR","attr"' "$W/$f.json")
	hattr=$(awk '$1 == "ATTR" { print $2 }' "$W/$f.ours")
	jl=$(($(wc -l < "$W/$f.json") - nattr + ${hattr:-0}))
	[ "$jl" = "$total" ] && [ "$nattr" -ge 1 ] &&
		ok "$f: --json: $nattr ATTR lines, then one line per record" ||
		bad "$f: --json: $nattr ATTR lines, $jl records for $total"
	first=$(head -n "$nattr" "$W/$f.json" | grep -vc '"type":"ATTR"')
	[ "$first" -eq 0 ] && ok "$f: --json: ATTR lines first" || bad "$f: --json: ATTR lines not first"
done

# Filters, on the fork+exec recording: every line is of the type asked.
F="$W/forkexec.data"
if [ -f "$F" ]; then
	"$DUMP" --type COMM,EXIT "$F" > "$W/filt.txt"
	status "--type COMM,EXIT" 0 $?
	hasnt "--type COMM,EXIT: only those types" "$W/filt.txt" '^0x[0-9a-f]+ [^ ]+ [^ ]+ [^ ]+ (SAMPLE|MMAP2|MMAP|FINISHED_ROUND)'
	ncomm=$(awk '$1 == "COMM" { print $2 }' "$W/forkexec.ours")
	nexit=$(awk '$1 == "EXIT" { print $2 }' "$W/forkexec.ours")
	[ "$(wc -l < "$W/filt.txt")" -eq $((ncomm + nexit)) ] && ok "--type: every COMM and EXIT" ||
		bad "--type: $(wc -l < "$W/filt.txt") lines for $ncomm COMM + $nexit EXIT"
	pid=$(awk '$5 == "SAMPLE" { split($4, a, "/"); print a[1]; exit }' "$W/forkexec.txt")
	"$DUMP" --pid "$pid" --type SAMPLE "$F" > "$W/pid.txt"
	np=$(awk -v p="$pid" '$5 == "SAMPLE" { split($4, a, "/"); if (a[1] == p) n++ } END { print n + 0 }' "$W/forkexec.txt")
	[ "$(wc -l < "$W/pid.txt")" -eq "$np" ] && [ "$np" -gt 0 ] &&
		ok "--pid $pid --type SAMPLE: its $np samples" ||
		bad "--pid $pid: $(wc -l < "$W/pid.txt") lines, $np samples of that pid"
	"$DUMP" --stats --type SAMPLE "$F" > "$W/st.txt"
	has "--stats --type SAMPLE counts only samples" "$W/st.txt" "^SAMPLE [0-9]+$"
	[ "$(wc -l < "$W/st.txt")" -eq 2 ] && ok "--stats --type SAMPLE: SAMPLE and TOTAL" ||
		bad "--stats --type SAMPLE:"
fi
finish
