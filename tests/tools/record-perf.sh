#!/bin/sh
# perfring-record end to end, read back by the real perf:
#  - a command: perf report names the workload's functions in its binary for
#    most samples, with nothing on stderr; the summary's sample count equals
#    perf script's line count; -g callchains reach main;
#  - side by side with perf record on the same workload: same top functions;
#  - -p PID on a running two-thread workload: its symbols resolve, both
#    threads sampled;
#  - -a for a moment (samples carry their CPU), and pipe output (-o -)
#    into perf script;
#  - two sampling events: perf script tells their samples apart.
# Skips (77) only without perf or perf_event_open.
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open

# summary_samples FILE: N from "perfring-record: N samples, ..."
summary_samples() {
	sed -n 's/^perfring-record: \([0-9][0-9]*\) samples, .*/\1/p' "$1"
}

# wl_share DATA SYMS...: percentage of samples in the workload's binary whose
# symbol is one of SYMS (perf report --sort dso,sym).
wl_share() {
	data=$1; shift
	"$PERF" report -i "$data" --stdio --sort dso,sym --no-children -q 2>"$W/rep.err" |
		awk -v syms="$*" '
			BEGIN { n = split(syms, s, " "); for (i = 1; i <= n; i++) want[s[i]] = 1 }
			$2 ~ /^wl-/ && ($4 in want) { sub("%", "", $1); t += $1 }
			END { printf "%d\n", t }'
}

# top2 DATA: the two symbols with most samples.
top2() {
	"$PERF" report -i "$1" --stdio --sort sym --no-children -q 2>/dev/null |
		awk 'NF >= 3 && n < 2 { printf "%s ", $3; n++ }'
}

# 1. A command, then perf report and perf script.
"$REC" -e cpu-clock -F 999 -o "$W/x.data" -- "$WL/wl-busy" 0.5 2>"$W/rec.err"
rc=$?
cat "$W/rec.err"
[ $rc -eq 0 ] && ok "perfring-record exit $rc" || bad "perfring-record exit $rc"
n=$(summary_samples "$W/rec.err")
[ -n "$n" ] && [ "$n" -gt 200 ] && ok "not: summary: want > 200 samples" || bad "summary: want > 200 samples: $(cat "$W/rec.err")"
pct=$(wl_share "$W/x.data" hot_function cold_function)
echo "hot_function + cold_function in wl-busy: $pct% of samples"
[ "$pct" -ge 70 ] && ok "not: only $pct% of samples in hot_function/cold_function of wl-busy" || bad "only $pct% of samples in hot_function/cold_function of wl-busy"
[ -s "$W/rep.err" ] && bad "perf report warned: $(cat "$W/rep.err")" || ok "not: perf report warned"
"$PERF" report -i "$W/x.data" --stdio --sort dso,sym --no-children -q 2>/dev/null | head -3
lines=$("$PERF" script -i "$W/x.data" -F ip 2>"$W/script.err" | wc -l)
echo "summary $n samples, perf script $lines lines"
[ "$lines" = "$n" ] && ok "not: perf script printed $lines samples, the summary said $n" || bad "perf script printed $lines samples, the summary said $n"
[ -s "$W/script.err" ] && bad "perf script warned: $(cat "$W/script.err")" || ok "not: perf script warned"
"$PERF" buildid-list -i "$W/x.data" 2>/dev/null | grep -q "/wl-busy$" && ok "not: no build id for wl-busy" ||
	bad "no build id for wl-busy: $("$PERF" buildid-list -i "$W/x.data" 2>&1)"

# 2. -g: frame-pointer callchains through main.
"$REC" -e cpu-clock -F 999 -g -o "$W/g.data" -- "$WL/wl-busy" 0.3 2>"$W/rec.err" && ok "-g: exit $?" ||
	bad "-g: exit $?: $(cat "$W/rec.err")"
n=$(summary_samples "$W/rec.err")
with_main=$("$PERF" script -i "$W/g.data" -F ip,sym 2>/dev/null |
	awk 'NF == 0 { if (inhot && m) c++; inhot = 0; m = 0; next }
	     /hot_function|cold_function/ { inhot = 1 } / main$/ { m = 1 }
	     END { if (inhot && m) c++; print c + 0 }')
"$PERF" report -i "$W/g.data" --stdio -q >/dev/null 2>"$W/rep.err"
[ -s "$W/rep.err" ] && bad "-g: perf report warned: $(cat "$W/rep.err")" || ok "not: -g: perf report warned"
echo "-g: $with_main of $n samples in hot/cold_function have main in their callchain"
[ "$with_main" -gt $((n / 2)) ] && ok "not: -g: only $with_main of $n callchains reach main" || bad "-g: only $with_main of $n callchains reach main"

# 3. Side by side with perf record: the same top functions.
"$PERF" record -q -e cpu-clock -F 999 -o "$W/ref.data" -- "$WL/wl-busy" 0.5 >/dev/null 2>&1 && ok "not: perf record failed" ||
	bad "perf record failed"
ours=$(top2 "$W/x.data")
theirs=$(top2 "$W/ref.data")
echo "top functions: perfring-record: $ours; perf record: $theirs"
[ "$ours" = "$theirs" ] && ok "not: top functions differ: '$ours' vs perf record '$theirs'" || bad "top functions differ: '$ours' vs perf record '$theirs'"

# 4. -p PID: a running two-thread process.
"$WL/wl-threads" 4 >"$W/ready" &
bg=$!
i=0
while ! grep -q ready "$W/ready" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$REC" -e cpu-clock -F 999 -p "$bg" --duration 1 -o "$W/p.data" 2>"$W/rec.err"
rc=$?
cat "$W/rec.err"
[ $rc -eq 0 ] && ok "-p: exit $rc" || bad "-p: exit $rc"
# Ctrl-C (SIGINT) ends a -p recording cleanly too.
"$REC" -e cpu-clock -F 999 -p "$bg" -o "$W/p2.data" 2>"$W/rec2.err" &
rp=$!
sleep 0.5
kill -INT "$rp"
wait "$rp"
rc=$?
[ $rc -eq 0 ] && ok "-p stopped by SIGINT: exit $rc" || bad "-p stopped by SIGINT: exit $rc: $(cat "$W/rec2.err")"
n=$(summary_samples "$W/rec2.err")
lines=$("$PERF" script -i "$W/p2.data" -F ip 2>/dev/null | wc -l)
[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$lines" = "$n" ] && ok "not: -p stopped by SIGINT: $lines samples in the file, summary" ||
	bad "-p stopped by SIGINT: $lines samples in the file, summary: $(cat "$W/rec2.err")"
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; bg=
pct=$(wl_share "$W/p.data" main_spin thread_spin)
echo "-p: main_spin + thread_spin in wl-threads: $pct% of samples"
[ "$pct" -ge 70 ] && ok "not: -p: only $pct% of samples resolved to wl-threads functions" || bad "-p: only $pct% of samples resolved to wl-threads functions"
[ -s "$W/rep.err" ] && bad "-p: perf report warned: $(cat "$W/rep.err")" || ok "not: -p: perf report warned"
tids=$("$PERF" script -i "$W/p.data" -F tid 2>/dev/null | sort -u | wc -l)
[ "$tids" -ge 2 ] && ok "not: -p: samples from $tids thread(s), want both" || bad "-p: samples from $tids thread(s), want both"
n=$(summary_samples "$W/rec.err")
lines=$("$PERF" script -i "$W/p.data" -F ip 2>/dev/null | wc -l)
[ "$lines" = "$n" ] && ok "not: -p: perf script printed $lines samples, the summary said $n" || bad "-p: perf script printed $lines samples, the summary said $n"

# -p ends by itself when the process exits (pidfd), with everything drained.
# (2.5 s of wall time: attaching takes a while under sanitizers on a busy
# machine, and the threads wl_share the CPUs with everything else.)
"$WL/wl-threads" 2.5 >"$W/ready2" &
bg=$!
i=0
while ! grep -q ready "$W/ready2" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
timeout 20 "$REC" -e cpu-clock -F 999 -p "$bg" -o "$W/pe.data" 2>"$W/rec.err" && ok "-p until exit: exit $?" ||
	bad "-p until exit: exit $?: $(cat "$W/rec.err")"
wait "$bg"; bg=
n=$(summary_samples "$W/rec.err")
"$PERF" script -i "$W/pe.data" --show-task-events -F comm,tid 2>/dev/null >"$W/pe.txt"
grep -q "PERF_RECORD_EXIT" "$W/pe.txt" && ok "not: -p until exit: no EXIT record in the file" || bad "-p until exit: no EXIT record in the file"
[ -n "$n" ] && [ "$n" -gt 100 ] && ok "not: -p until exit" || bad "-p until exit: $(cat "$W/rec.err")"

# 5. -a for 0.3 s while a workload runs, if this user may (paranoid <= 0 or root).
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ]; then
	"$WL/wl-busy" 1 &
	bg=$!
	"$REC" -e cpu-clock -F 499 -a --duration 0.3 -o "$W/a.data" 2>"$W/rec.err" && ok "-a: exit $?" ||
		bad "-a: exit $?: $(cat "$W/rec.err")"
	wait "$bg"; bg=
	"$PERF" report -i "$W/a.data" --stdio --sort comm,sym -q >"$W/a.txt" 2>"$W/rep.err"
	# It started before the recording: resolved through the synthesised records.
	grep -q "wl-busy.*hot_function" "$W/a.txt" && ok "not: -a: no wl-busy hot_function line" ||
		bad "-a: no wl-busy hot_function line: $(head "$W/a.txt")"
	[ -s "$W/rep.err" ] && bad "-a: perf report warned: $(cat "$W/rep.err")" || ok "not: -a: perf report warned"
	# samples carry their CPU
	"$PERF" script -i "$W/a.data" -F cpu >"$W/a.cpu" 2>"$W/script.err" && ok "not: -a: perf script -F cpu" ||
		bad "-a: perf script -F cpu: $(cat "$W/script.err")"
	grep -Eq '^ *\[[0-9]+\]' "$W/a.cpu" && ok "not: -a: no [CPU] in perf script -F cpu" || bad "-a: no [CPU] in perf script -F cpu"
else
	echo "-a: not allowed for this user at this perf_event_paranoid level; not tested"
fi

# 6. Pipe output into perf script.
lines=$("$REC" -e cpu-clock -F 999 -o - -- "$WL/wl-busy" 0.2 2>"$W/rec.err" |
	"$PERF" script -i - -F ip 2>"$W/script.err" | wc -l)
n=$(summary_samples "$W/rec.err")
echo "pipe: summary $n samples, perf script $lines"
[ -n "$n" ] && [ "$lines" = "$n" ] && ok "not: pipe: perf script read $lines samples of $n" || bad "pipe: perf script read $lines samples of $n: $(cat "$W/rec.err" "$W/script.err")"

# 7. Two sampling events: perf script tells their samples apart (the
#    records carry IDENTIFIER; one event alone goes without, as with perf
#    record).
"$REC" -e cpu-clock,task-clock -F 999 -o "$W/two.data" -- "$WL/wl-busy" 0.3 2>"$W/rec.err" && ok "two events: exit $?" ||
	bad "two events: exit $?: $(cat "$W/rec.err")"
"$PERF" script -i "$W/two.data" -F event 2>"$W/script.err" | sed 's/[: ]//g' | sort | uniq -c >"$W/two.txt"
for e in cpu-clock task-clock; do
	c=$(awk -v e="$e" '$2 == e { print $1 }' "$W/two.txt")
	[ -n "$c" ] && [ "$c" -gt 50 ] && ok "not: two events: $e has ${c:-no} samples" || bad "two events: $e has ${c:-no} samples: $(cat "$W/two.txt")"
done
[ -s "$W/script.err" ] && bad "two events: perf script warned: $(cat "$W/script.err")" || ok "not: two events: perf script warned"
echo "two events: $(tr -s ' \n' ' ' <"$W/two.txt")"

finish
