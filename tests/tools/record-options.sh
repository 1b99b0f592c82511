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
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open
cd "$W" || exit 1

# start_threads SECONDS: wl-threads in the background ($bg), once ready.
start_threads() {
	"$WL/wl-threads" "$1" >"$W/ready" &
	bg=$!
	i=0
	while ! grep -q ready "$W/ready" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
}
stop_threads() { kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; bg=; }

# record_usage ARGS...: exit 2 with a message.
record_usage() {
	"$REC" "$@" -o "$W/bad.data" -- true >/dev/null 2>"$W/err"
	rc=$?
	[ $rc -eq 2 ] && [ -s "$W/err" ] && ok "not: $*: exit $rc, want 2 with a message" || bad "$*: exit $rc, want 2 with a message: $(cat "$W/err")"
}

syswide_ok=0
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ]; then
	syswide_ok=1
fi
last_cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)

# 1. -C LIST
if [ $syswide_ok = 1 ]; then
	start_threads 10
	"$REC" -e cpu-clock -F 499 -C 0 --duration 1 -o "$W/c0.data" 2>"$W/rec.err" && ok "-C 0: exit $?" ||
		bad "-C 0: exit $?: $(cat "$W/rec.err")"
	"$PERF" script -i "$W/c0.data" -F cpu 2>"$W/script.err" | sort | uniq -c >"$W/c0.cpus"
	echo "-C 0: samples per CPU: $(tr -s ' \n' ' ' <"$W/c0.cpus")"
	[ "$(wc -l <"$W/c0.cpus")" = 1 ] && grep -q '\[000\]' "$W/c0.cpus" && ok "not: -C 0: samples on other CPUs" ||
		bad "-C 0: samples on other CPUs: $(cat "$W/c0.cpus")"
	[ -s "$W/script.err" ] && bad "-C 0: perf script warned: $(cat "$W/script.err")" || ok "not: -C 0: perf script warned"
	"$PERF" report -i "$W/c0.data" --stdio --sort comm,sym -q 2>"$W/rep.err" >"$W/c0.txt"
	grep -q "wl-threads.*_spin" "$W/c0.txt" && ok "not: -C 0: the workload's functions do not resolve'" ||
		bad "-C 0: the workload's functions do not resolve: $(head -5 "$W/c0.txt")"
	if [ "$last_cpu" -ge 1 ]; then
		# Both CPUs of a list, with context switches: SWITCH_CPU_WIDE.
		"$REC" -e cpu-clock -F 499 -C "0-$last_cpu" --switch-events --duration 0.3 \
			-o "$W/c01.data" 2>"$W/rec.err" && ok "-C 0-$last_cpu: exit $?" || bad "-C 0-$last_cpu: exit $?: $(cat "$W/rec.err")"
		n=$("$PERF" script -i "$W/c01.data" -F cpu 2>/dev/null | sort -u | wc -l)
		[ "$n" -ge 2 ] && ok "not: -C 0-$last_cpu: samples from $n CPU(s)" || bad "-C 0-$last_cpu: samples from $n CPU(s)"
		"$PERF" script -i "$W/c01.data" --show-switch-events 2>/dev/null |
			grep -c "PERF_RECORD_SWITCH_CPU_WIDE" >"$W/n" || true
		echo "-C 0-$last_cpu --switch-events: $(cat "$W/n") SWITCH_CPU_WIDE records"
		[ "$(cat "$W/n")" -gt 0 ] && ok "not: -C --switch-events: no SWITCH_CPU_WIDE records" || bad "-C --switch-events: no SWITCH_CPU_WIDE records"
	fi
	# With a command, as perf record -a -- sleep 1: every task, until the
	# command ends (wl-busy burns 0.3 s of CPU, so it is sampled however
	# busy the machine is).
	start=$(date +%s)
	timeout 60 "$REC" -e cpu-clock -F 499 -C 0 -o "$W/cc.data" -- \
		taskset -c 0 "$WL/wl-busy" 0.3 2>"$W/rec.err" && ok "-C 0 -- wl-busy: exit $?" ||
		bad "-C 0 -- wl-busy: exit $?: $(cat "$W/rec.err")"
	"$PERF" script -i "$W/cc.data" -F comm,cpu 2>/dev/null >"$W/cc.txt"
	n=$(grep -c "wl-busy" "$W/cc.txt")
	echo "-C 0 -- wl-busy 0.3: $n samples of wl-busy, $(wc -l <"$W/cc.txt") in all, $(($(date +%s) - start)) s"
	[ "$n" -gt 50 ] && ok "not: -C 0 -- wl-busy: $n samples of the command" || bad "-C 0 -- wl-busy: $n samples of the command"
	grep -qv '\[000\]' "$W/cc.txt" && bad "-C 0 -- wl-busy: samples on other CPUs" || ok "not: -C 0 -- wl-busy: samples on other CPUs"
	timeout 60 "$REC" -e cpu-clock -F 499 -a -o "$W/ac.data" -- "$WL/wl-busy" 0.3 2>"$W/rec.err" && ok "-a -- wl-busy: exit $?" ||
		bad "-a -- wl-busy: exit $?: $(cat "$W/rec.err")"
	"$PERF" report -i "$W/ac.data" --stdio --sort comm,sym -q 2>/dev/null >"$W/ac.txt"
	grep -q "wl-busy.*hot_function" "$W/ac.txt" && ok "not: -a -- wl-busy: no wl-busy hot_function" ||
		bad "-a -- wl-busy: no wl-busy hot_function: $(head -5 "$W/ac.txt")"
	stop_threads
else
	echo "-C: not allowed for this user at this perf_event_paranoid level; only usage checked"
fi
record_usage -C ""
record_usage -C x
record_usage -C 0-
record_usage -C 1-0
record_usage -C 0 -p 1
"$REC" -C 65535 --duration 0.1 -o "$W/bad.data" 2>"$W/err"
rc=$?
[ $rc -eq 2 ] && grep -q "CPU 65535 is not online" "$W/err" && ok "-C 65535: exit $rc" ||
	bad "-C 65535: exit $rc: $(cat "$W/err")"

# 2. -t TID: one thread of a running process.
start_threads 3
tids=$(ls /proc/"$bg"/task)
other=
for t in $tids; do [ "$t" != "$bg" ] && other=$t; done
[ -n "$other" ] && ok "not: wl-threads has no second thread: $tids" || bad "wl-threads has no second thread: $tids"
"$REC" -e cpu-clock -F 999 -t "$other" --duration 0.4 -o "$W/t.data" 2>"$W/rec.err" && ok "-t: exit $?" ||
	bad "-t: exit $?: $(cat "$W/rec.err")"
"$PERF" script -i "$W/t.data" -F tid 2>/dev/null | sort | uniq -c >"$W/t.tids"
echo "-t $other: samples per thread: $(tr -s ' \n' ' ' <"$W/t.tids")"
[ "$(wc -l <"$W/t.tids")" = 1 ] && [ "$(awk '{ print $2 }' "$W/t.tids")" = "$other" ] && ok "not: -t $other: samples of other threads" ||
	bad "-t $other: samples of other threads: $(cat "$W/t.tids")"
"$PERF" report -i "$W/t.data" --stdio --sort sym -q 2>"$W/rep.err" >"$W/t.txt"
grep -q "thread_spin" "$W/t.txt" && ok "not: -t: thread_spin does not resolve" || bad "-t: thread_spin does not resolve: $(head -5 "$W/t.txt")"
grep -q "main_spin" "$W/t.txt" && bad "-t: the main thread was sampled too" || ok "not: -t: the main thread was sampled too"
[ -s "$W/rep.err" ] && bad "-t: perf report warned: $(cat "$W/rep.err")" || ok "not: -t: perf report warned"
stop_threads
record_usage -t 0
record_usage -t 1 -p 1
"$REC" -t 999999999 -o "$W/bad.data" 2>"$W/err"
rc=$?
[ $rc -ne 0 ] && grep -q "thread 999999999" "$W/err" && ok "-t of no thread: exit $rc" || bad "-t of no thread: exit $rc: $(cat "$W/err")"

# 3. --switch-events on a command that sleeps between bursts.
"$REC" -e cpu-clock -F 999 --switch-events -o "$W/sw.data" -- sh -c 'sleep 0.05; sleep 0.05' \
	2>"$W/rec.err" && ok "--switch-events: exit $?" || bad "--switch-events: exit $?: $(cat "$W/rec.err")"
"$PERF" script -i "$W/sw.data" --show-switch-events 2>"$W/script.err" >"$W/sw.txt"
n=$(grep -c "PERF_RECORD_SWITCH " "$W/sw.txt")
echo "--switch-events: $n SWITCH records"
[ "$n" -ge 2 ] && ok "not: --switch-events: $n SWITCH records" || bad "--switch-events: $n SWITCH records: $(head -5 "$W/sw.txt")"
grep -q "PERF_RECORD_SWITCH OUT" "$W/sw.txt" && ok "not: --switch-events: no switch-out record" || bad "--switch-events: no switch-out record"
[ -s "$W/script.err" ] && bad "--switch-events: perf script warned: $(cat "$W/script.err")" || ok "not: --switch-events: perf script warned"
"$REC" -e cpu-clock -F 999 -o "$W/nosw.data" -- sh -c 'sleep 0.05' 2>/dev/null
"$PERF" script -i "$W/nosw.data" --show-switch-events 2>/dev/null | grep -q "PERF_RECORD_SWITCH" &&
	bad "SWITCH records without --switch-events" || ok "not: SWITCH records without --switch-events"

# 4. -k CLOCK: the header names it and the times follow it.
first_time() { "$PERF" script -i "$1" -F time 2>/dev/null | head -n 1 | tr -d ' :'; }
header_clock() { "$PERF" report -i "$1" --header-only 2>/dev/null | sed -n 's/^# clockid: //p'; }
"$REC" -e cpu-clock -F 999 -o "$W/mono.data" -- "$WL/wl-busy" 0.1 2>/dev/null
"$REC" -e cpu-clock -F 999 -k realtime -o "$W/real.data" -- "$WL/wl-busy" 0.1 2>"$W/rec.err" && ok "-k realtime: exit $?" ||
	bad "-k realtime: exit $?: $(cat "$W/rec.err")"
now=$(date +%s)
up=$(cut -d. -f1 /proc/uptime)
echo "clockid without -k: $(header_clock "$W/mono.data"); -k realtime: $(header_clock "$W/real.data")"
case $(header_clock "$W/mono.data") in monotonic*) ;; *) bad "default clock: $(header_clock "$W/mono.data")" ;; esac
case $(header_clock "$W/real.data") in realtime*) ;; *) bad "-k realtime: $(header_clock "$W/real.data")" ;; esac
t=$(first_time "$W/real.data"); t=${t%.*}
echo "-k realtime: first sample at $t s, date +%s $now"
[ -n "$t" ] && [ $((now - t)) -lt 120 ] && [ $((t - now)) -lt 120 ] && ok "not: -k realtime: first sample at '$t', now $now" ||
	bad "-k realtime: first sample at '$t', now $now"
t=$(first_time "$W/mono.data"); t=${t%.*}
[ -n "$t" ] && [ $((up - t)) -lt 120 ] && [ $((t - up)) -lt 120 ] && ok "not: default clock: first sample at '$t', uptime $up" ||
	bad "default clock: first sample at '$t', uptime $up"
for k in CLOCK_BOOTTIME mono raw tai 7; do
	"$REC" -e cpu-clock -k "$k" -o "$W/k.data" -- true 2>"$W/rec.err" && ok "-k $k: exit $?" ||
		bad "-k $k: exit $?: $(cat "$W/rec.err")"
done
case $(header_clock "$W/k.data") in boottime*) ;; *) bad "-k 7: $(header_clock "$W/k.data")" ;; esac
record_usage -k jiffies
record_usage -k ""
record_usage -k 5x

finish
