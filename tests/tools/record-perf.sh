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
set -u
rec="$top_builddir/tools/perfring-record"
wl="$top_builddir/tests/workloads"
perf=${PERF:-}
fails=0
fail() { echo "record-perf.sh: FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "record-perf.sh: SKIP: $*"; exit 77; }

[ -n "$perf" ] && [ -x "$perf" ] || skip "perf was not found at configure time"
tmp=$(mktemp -d)
bg=
trap 'rm -rf "$tmp"; [ -n "$bg" ] && kill "$bg" 2>/dev/null' EXIT
"$rec" --stat -e task-clock:u -- true 2>"$tmp/err" ||
	skip "perf_event_open is not usable here: $(cat "$tmp/err")"

# summary_samples FILE: N from "perfring-record: N samples, ..."
summary_samples() {
	sed -n 's/^perfring-record: \([0-9][0-9]*\) samples, .*/\1/p' "$1"
}

# share DATA SYMS...: percentage of samples in the workload's binary whose
# symbol is one of SYMS (perf report --sort dso,sym).
share() {
	data=$1; shift
	"$perf" report -i "$data" --stdio --sort dso,sym --no-children -q 2>"$tmp/rep.err" |
		awk -v syms="$*" '
			BEGIN { n = split(syms, s, " "); for (i = 1; i <= n; i++) want[s[i]] = 1 }
			$2 ~ /^wl-/ && ($4 in want) { sub("%", "", $1); t += $1 }
			END { printf "%d\n", t }'
}

# top2 DATA: the two symbols with most samples.
top2() {
	"$perf" report -i "$1" --stdio --sort sym --no-children -q 2>/dev/null |
		awk 'NF >= 3 && n < 2 { printf "%s ", $3; n++ }'
}

# 1. A command, then perf report and perf script.
"$rec" -e cpu-clock -F 999 -o "$tmp/x.data" -- "$wl/wl-busy" 0.5 2>"$tmp/rec.err"
rc=$?
cat "$tmp/rec.err"
[ $rc -eq 0 ] || fail "perfring-record exit $rc"
n=$(summary_samples "$tmp/rec.err")
[ -n "$n" ] && [ "$n" -gt 200 ] || fail "summary: want > 200 samples: $(cat "$tmp/rec.err")"
pct=$(share "$tmp/x.data" hot_function cold_function)
echo "hot_function + cold_function in wl-busy: $pct% of samples"
[ "$pct" -ge 70 ] || fail "only $pct% of samples in hot_function/cold_function of wl-busy"
[ -s "$tmp/rep.err" ] && fail "perf report warned: $(cat "$tmp/rep.err")"
"$perf" report -i "$tmp/x.data" --stdio --sort dso,sym --no-children -q 2>/dev/null | head -3
lines=$("$perf" script -i "$tmp/x.data" -F ip 2>"$tmp/script.err" | wc -l)
echo "summary $n samples, perf script $lines lines"
[ "$lines" = "$n" ] || fail "perf script printed $lines samples, the summary said $n"
[ -s "$tmp/script.err" ] && fail "perf script warned: $(cat "$tmp/script.err")"
"$perf" buildid-list -i "$tmp/x.data" 2>/dev/null | grep -q "/wl-busy$" ||
	fail "no build id for wl-busy: $("$perf" buildid-list -i "$tmp/x.data" 2>&1)"

# 2. -g: frame-pointer callchains through main.
"$rec" -e cpu-clock -F 999 -g -o "$tmp/g.data" -- "$wl/wl-busy" 0.3 2>"$tmp/rec.err" ||
	fail "-g: exit $?: $(cat "$tmp/rec.err")"
n=$(summary_samples "$tmp/rec.err")
with_main=$("$perf" script -i "$tmp/g.data" -F ip,sym 2>/dev/null |
	awk 'NF == 0 { if (inhot && m) c++; inhot = 0; m = 0; next }
	     /hot_function|cold_function/ { inhot = 1 } / main$/ { m = 1 }
	     END { if (inhot && m) c++; print c + 0 }')
"$perf" report -i "$tmp/g.data" --stdio -q >/dev/null 2>"$tmp/rep.err"
[ -s "$tmp/rep.err" ] && fail "-g: perf report warned: $(cat "$tmp/rep.err")"
echo "-g: $with_main of $n samples in hot/cold_function have main in their callchain"
[ "$with_main" -gt $((n / 2)) ] || fail "-g: only $with_main of $n callchains reach main"

# 3. Side by side with perf record: the same top functions.
"$perf" record -q -e cpu-clock -F 999 -o "$tmp/ref.data" -- "$wl/wl-busy" 0.5 >/dev/null 2>&1 ||
	fail "perf record failed"
ours=$(top2 "$tmp/x.data")
theirs=$(top2 "$tmp/ref.data")
echo "top functions: perfring-record: $ours; perf record: $theirs"
[ "$ours" = "$theirs" ] || fail "top functions differ: '$ours' vs perf record '$theirs'"

# 4. -p PID: a running two-thread process.
"$wl/wl-threads" 4 >"$tmp/ready" &
bg=$!
i=0
while ! grep -q ready "$tmp/ready" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$rec" -e cpu-clock -F 999 -p "$bg" --duration 1 -o "$tmp/p.data" 2>"$tmp/rec.err"
rc=$?
cat "$tmp/rec.err"
[ $rc -eq 0 ] || fail "-p: exit $rc"
# Ctrl-C (SIGINT) ends a -p recording cleanly too.
"$rec" -e cpu-clock -F 999 -p "$bg" -o "$tmp/p2.data" 2>"$tmp/rec2.err" &
rp=$!
sleep 0.5
kill -INT "$rp"
wait "$rp"
rc=$?
[ $rc -eq 0 ] || fail "-p stopped by SIGINT: exit $rc: $(cat "$tmp/rec2.err")"
n=$(summary_samples "$tmp/rec2.err")
lines=$("$perf" script -i "$tmp/p2.data" -F ip 2>/dev/null | wc -l)
[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$lines" = "$n" ] ||
	fail "-p stopped by SIGINT: $lines samples in the file, summary: $(cat "$tmp/rec2.err")"
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; bg=
pct=$(share "$tmp/p.data" main_spin thread_spin)
echo "-p: main_spin + thread_spin in wl-threads: $pct% of samples"
[ "$pct" -ge 70 ] || fail "-p: only $pct% of samples resolved to wl-threads functions"
[ -s "$tmp/rep.err" ] && fail "-p: perf report warned: $(cat "$tmp/rep.err")"
tids=$("$perf" script -i "$tmp/p.data" -F tid 2>/dev/null | sort -u | wc -l)
[ "$tids" -ge 2 ] || fail "-p: samples from $tids thread(s), want both"
n=$(summary_samples "$tmp/rec.err")
lines=$("$perf" script -i "$tmp/p.data" -F ip 2>/dev/null | wc -l)
[ "$lines" = "$n" ] || fail "-p: perf script printed $lines samples, the summary said $n"

# -p ends by itself when the process exits (pidfd), with everything drained.
# (2.5 s of wall time: attaching takes a while under sanitizers on a busy
# machine, and the threads share the CPUs with everything else.)
"$wl/wl-threads" 2.5 >"$tmp/ready2" &
bg=$!
i=0
while ! grep -q ready "$tmp/ready2" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
timeout 20 "$rec" -e cpu-clock -F 999 -p "$bg" -o "$tmp/pe.data" 2>"$tmp/rec.err" ||
	fail "-p until exit: exit $?: $(cat "$tmp/rec.err")"
wait "$bg"; bg=
n=$(summary_samples "$tmp/rec.err")
"$perf" script -i "$tmp/pe.data" --show-task-events -F comm,tid 2>/dev/null >"$tmp/pe.txt"
grep -q "PERF_RECORD_EXIT" "$tmp/pe.txt" || fail "-p until exit: no EXIT record in the file"
[ -n "$n" ] && [ "$n" -gt 100 ] || fail "-p until exit: $(cat "$tmp/rec.err")"

# 5. -a for 0.3 s while a workload runs, if this user may (paranoid <= 0 or root).
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ]; then
	"$wl/wl-busy" 1 &
	bg=$!
	"$rec" -e cpu-clock -F 499 -a --duration 0.3 -o "$tmp/a.data" 2>"$tmp/rec.err" ||
		fail "-a: exit $?: $(cat "$tmp/rec.err")"
	wait "$bg"; bg=
	"$perf" report -i "$tmp/a.data" --stdio --sort comm,sym -q >"$tmp/a.txt" 2>"$tmp/rep.err"
	# It started before the recording: resolved through the synthesised records.
	grep -q "wl-busy.*hot_function" "$tmp/a.txt" ||
		fail "-a: no wl-busy hot_function line: $(head "$tmp/a.txt")"
	[ -s "$tmp/rep.err" ] && fail "-a: perf report warned: $(cat "$tmp/rep.err")"
	# samples carry their CPU
	"$perf" script -i "$tmp/a.data" -F cpu >"$tmp/a.cpu" 2>"$tmp/script.err" ||
		fail "-a: perf script -F cpu: $(cat "$tmp/script.err")"
	grep -Eq '^ *\[[0-9]+\]' "$tmp/a.cpu" || fail "-a: no [CPU] in perf script -F cpu"
else
	echo "-a: not allowed for this user at this perf_event_paranoid level; not tested"
fi

# 6. Pipe output into perf script.
lines=$("$rec" -e cpu-clock -F 999 -o - -- "$wl/wl-busy" 0.2 2>"$tmp/rec.err" |
	"$perf" script -i - -F ip 2>"$tmp/script.err" | wc -l)
n=$(summary_samples "$tmp/rec.err")
echo "pipe: summary $n samples, perf script $lines"
[ -n "$n" ] && [ "$lines" = "$n" ] || fail "pipe: perf script read $lines samples of $n: $(cat "$tmp/rec.err" "$tmp/script.err")"

# 7. Two sampling events: perf script tells their samples apart (the
#    records carry IDENTIFIER; one event alone goes without, as with perf
#    record).
"$rec" -e cpu-clock,task-clock -F 999 -o "$tmp/two.data" -- "$wl/wl-busy" 0.3 2>"$tmp/rec.err" ||
	fail "two events: exit $?: $(cat "$tmp/rec.err")"
"$perf" script -i "$tmp/two.data" -F event 2>"$tmp/script.err" | sed 's/[: ]//g' | sort | uniq -c >"$tmp/two.txt"
for e in cpu-clock task-clock; do
	c=$(awk -v e="$e" '$2 == e { print $1 }' "$tmp/two.txt")
	[ -n "$c" ] && [ "$c" -gt 50 ] || fail "two events: $e has ${c:-no} samples: $(cat "$tmp/two.txt")"
done
[ -s "$tmp/script.err" ] && fail "two events: perf script warned: $(cat "$tmp/script.err")"
echo "two events: $(tr -s ' \n' ' ' <"$tmp/two.txt")"

[ $fails -eq 0 ] || exit 1
echo "record-perf.sh: all checks passed"
