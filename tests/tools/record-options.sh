#!/bin/sh
# perfring-record's perf-record options, read back by the real perf:
#  - -C LIST: every sample of a two-thread workload on the CPUs asked for
#    (perf script -F cpu), the workload's symbols resolved; bad lists and
#    offline CPUs refused;
#  - -t TID: only that thread of a running two-thread process;
#  - --switch-events: perf script --show-switch-events prints SWITCH
#    records (SWITCH_CPU_WIDE with -C);
#  - -k CLOCK: the header's clockid and the sample times follow it (perf
#    report --header-only, perf script -F time); monotonic without -k;
#    unknown clocks refused.
# Skips (77) only without perf or perf_event_open.
name=record-options.sh
. "$top_srcdir/tests/record-lib.sh"

# start_threads SECONDS: wl-threads in the background ($bg), once ready.
start_threads() {
	"$wl/wl-threads" "$1" >"$tmp/ready" &
	bg=$!
	i=0
	while ! grep -q ready "$tmp/ready" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
}
stop_threads() { kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; bg=; }

# usage_error ARGS...: exit 2 with a message.
usage_error() {
	"$rec" "$@" -o "$tmp/bad.data" -- true >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ -s "$tmp/err" ] || fail "$*: exit $rc, want 2 with a message: $(cat "$tmp/err")"
}

syswide_ok=0
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ]; then
	syswide_ok=1
fi
last_cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)

# 1. -C LIST
if [ $syswide_ok = 1 ]; then
	start_threads 10
	"$rec" -e cpu-clock -F 499 -C 0 --duration 1 -o "$tmp/c0.data" 2>"$tmp/rec.err" ||
		fail "-C 0: exit $?: $(cat "$tmp/rec.err")"
	"$perf" script -i "$tmp/c0.data" -F cpu 2>"$tmp/script.err" | sort | uniq -c >"$tmp/c0.cpus"
	echo "-C 0: samples per CPU: $(tr -s ' \n' ' ' <"$tmp/c0.cpus")"
	[ "$(wc -l <"$tmp/c0.cpus")" = 1 ] && grep -q '\[000\]' "$tmp/c0.cpus" ||
		fail "-C 0: samples on other CPUs: $(cat "$tmp/c0.cpus")"
	[ -s "$tmp/script.err" ] && fail "-C 0: perf script warned: $(cat "$tmp/script.err")"
	"$perf" report -i "$tmp/c0.data" --stdio --sort comm,sym -q 2>"$tmp/rep.err" >"$tmp/c0.txt"
	grep -q "wl-threads.*_spin" "$tmp/c0.txt" ||
		fail "-C 0: the workload's functions do not resolve: $(head -5 "$tmp/c0.txt")"
	if [ "$last_cpu" -ge 1 ]; then
		# Both CPUs of a list, with context switches: SWITCH_CPU_WIDE.
		"$rec" -e cpu-clock -F 499 -C "0-$last_cpu" --switch-events --duration 0.3 \
			-o "$tmp/c01.data" 2>"$tmp/rec.err" || fail "-C 0-$last_cpu: exit $?: $(cat "$tmp/rec.err")"
		n=$("$perf" script -i "$tmp/c01.data" -F cpu 2>/dev/null | sort -u | wc -l)
		[ "$n" -ge 2 ] || fail "-C 0-$last_cpu: samples from $n CPU(s)"
		"$perf" script -i "$tmp/c01.data" --show-switch-events 2>/dev/null |
			grep -c "PERF_RECORD_SWITCH_CPU_WIDE" >"$tmp/n" || true
		echo "-C 0-$last_cpu --switch-events: $(cat "$tmp/n") SWITCH_CPU_WIDE records"
		[ "$(cat "$tmp/n")" -gt 0 ] || fail "-C --switch-events: no SWITCH_CPU_WIDE records"
	fi
	# With a command, as perf record -a -- sleep 1: every task, until the
	# command ends (wl-busy burns 0.3 s of CPU, so it is sampled however
	# busy the machine is).
	start=$(date +%s)
	timeout 60 "$rec" -e cpu-clock -F 499 -C 0 -o "$tmp/cc.data" -- \
		taskset -c 0 "$wl/wl-busy" 0.3 2>"$tmp/rec.err" ||
		fail "-C 0 -- wl-busy: exit $?: $(cat "$tmp/rec.err")"
	"$perf" script -i "$tmp/cc.data" -F comm,cpu 2>/dev/null >"$tmp/cc.txt"
	n=$(grep -c "wl-busy" "$tmp/cc.txt")
	echo "-C 0 -- wl-busy 0.3: $n samples of wl-busy, $(wc -l <"$tmp/cc.txt") in all, $(($(date +%s) - start)) s"
	[ "$n" -gt 50 ] || fail "-C 0 -- wl-busy: $n samples of the command"
	grep -qv '\[000\]' "$tmp/cc.txt" && fail "-C 0 -- wl-busy: samples on other CPUs"
	timeout 60 "$rec" -e cpu-clock -F 499 -a -o "$tmp/ac.data" -- "$wl/wl-busy" 0.3 2>"$tmp/rec.err" ||
		fail "-a -- wl-busy: exit $?: $(cat "$tmp/rec.err")"
	"$perf" report -i "$tmp/ac.data" --stdio --sort comm,sym -q 2>/dev/null >"$tmp/ac.txt"
	grep -q "wl-busy.*hot_function" "$tmp/ac.txt" ||
		fail "-a -- wl-busy: no wl-busy hot_function: $(head -5 "$tmp/ac.txt")"
	stop_threads
else
	echo "-C: not allowed for this user at this perf_event_paranoid level; only usage checked"
fi
usage_error -C ""
usage_error -C x
usage_error -C 0-
usage_error -C 1-0
usage_error -C 0 -p 1
"$rec" -C 65535 --duration 0.1 -o "$tmp/bad.data" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "CPU 65535 is not online" "$tmp/err" ||
	fail "-C 65535: exit $rc: $(cat "$tmp/err")"

# 2. -t TID: one thread of a running process.
start_threads 3
tids=$(ls /proc/"$bg"/task)
other=
for t in $tids; do [ "$t" != "$bg" ] && other=$t; done
[ -n "$other" ] || fail "wl-threads has no second thread: $tids"
"$rec" -e cpu-clock -F 999 -t "$other" --duration 0.4 -o "$tmp/t.data" 2>"$tmp/rec.err" ||
	fail "-t: exit $?: $(cat "$tmp/rec.err")"
"$perf" script -i "$tmp/t.data" -F tid 2>/dev/null | sort | uniq -c >"$tmp/t.tids"
echo "-t $other: samples per thread: $(tr -s ' \n' ' ' <"$tmp/t.tids")"
[ "$(wc -l <"$tmp/t.tids")" = 1 ] && [ "$(awk '{ print $2 }' "$tmp/t.tids")" = "$other" ] ||
	fail "-t $other: samples of other threads: $(cat "$tmp/t.tids")"
"$perf" report -i "$tmp/t.data" --stdio --sort sym -q 2>"$tmp/rep.err" >"$tmp/t.txt"
grep -q "thread_spin" "$tmp/t.txt" || fail "-t: thread_spin does not resolve: $(head -5 "$tmp/t.txt")"
grep -q "main_spin" "$tmp/t.txt" && fail "-t: the main thread was sampled too"
[ -s "$tmp/rep.err" ] && fail "-t: perf report warned: $(cat "$tmp/rep.err")"
stop_threads
usage_error -t 0
usage_error -t 1 -p 1
"$rec" -t 999999999 -o "$tmp/bad.data" 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && grep -q "thread 999999999" "$tmp/err" || fail "-t of no thread: exit $rc: $(cat "$tmp/err")"

# 3. --switch-events on a command that sleeps between bursts.
"$rec" -e cpu-clock -F 999 --switch-events -o "$tmp/sw.data" -- sh -c 'sleep 0.05; sleep 0.05' \
	2>"$tmp/rec.err" || fail "--switch-events: exit $?: $(cat "$tmp/rec.err")"
"$perf" script -i "$tmp/sw.data" --show-switch-events 2>"$tmp/script.err" >"$tmp/sw.txt"
n=$(grep -c "PERF_RECORD_SWITCH " "$tmp/sw.txt")
echo "--switch-events: $n SWITCH records"
[ "$n" -ge 2 ] || fail "--switch-events: $n SWITCH records: $(head -5 "$tmp/sw.txt")"
grep -q "PERF_RECORD_SWITCH OUT" "$tmp/sw.txt" || fail "--switch-events: no switch-out record"
[ -s "$tmp/script.err" ] && fail "--switch-events: perf script warned: $(cat "$tmp/script.err")"
"$rec" -e cpu-clock -F 999 -o "$tmp/nosw.data" -- sh -c 'sleep 0.05' 2>/dev/null
"$perf" script -i "$tmp/nosw.data" --show-switch-events 2>/dev/null | grep -q "PERF_RECORD_SWITCH" &&
	fail "SWITCH records without --switch-events"

# 4. -k CLOCK: the header names it and the times follow it.
first_time() { "$perf" script -i "$1" -F time 2>/dev/null | head -n 1 | tr -d ' :'; }
header_clock() { "$perf" report -i "$1" --header-only 2>/dev/null | sed -n 's/^# clockid: //p'; }
"$rec" -e cpu-clock -F 999 -o "$tmp/mono.data" -- "$wl/wl-busy" 0.1 2>/dev/null
"$rec" -e cpu-clock -F 999 -k realtime -o "$tmp/real.data" -- "$wl/wl-busy" 0.1 2>"$tmp/rec.err" ||
	fail "-k realtime: exit $?: $(cat "$tmp/rec.err")"
now=$(date +%s)
up=$(cut -d. -f1 /proc/uptime)
echo "clockid without -k: $(header_clock "$tmp/mono.data"); -k realtime: $(header_clock "$tmp/real.data")"
case $(header_clock "$tmp/mono.data") in monotonic*) ;; *) fail "default clock: $(header_clock "$tmp/mono.data")" ;; esac
case $(header_clock "$tmp/real.data") in realtime*) ;; *) fail "-k realtime: $(header_clock "$tmp/real.data")" ;; esac
t=$(first_time "$tmp/real.data"); t=${t%.*}
echo "-k realtime: first sample at $t s, date +%s $now"
[ -n "$t" ] && [ $((now - t)) -lt 120 ] && [ $((t - now)) -lt 120 ] ||
	fail "-k realtime: first sample at '$t', now $now"
t=$(first_time "$tmp/mono.data"); t=${t%.*}
[ -n "$t" ] && [ $((up - t)) -lt 120 ] && [ $((t - up)) -lt 120 ] ||
	fail "default clock: first sample at '$t', uptime $up"
for k in CLOCK_BOOTTIME mono raw tai 7; do
	"$rec" -e cpu-clock -k "$k" -o "$tmp/k.data" -- true 2>"$tmp/rec.err" ||
		fail "-k $k: exit $?: $(cat "$tmp/rec.err")"
done
case $(header_clock "$tmp/k.data") in boottime*) ;; *) fail "-k 7: $(header_clock "$tmp/k.data")" ;; esac
usage_error -k jiffies
usage_error -k ""
usage_error -k 5x

finish
