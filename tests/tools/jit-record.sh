#!/bin/sh
# perfring-record bakes JIT symbols by itself (no perf inject, no -k mono:
# its events always use CLOCK_MONOTONIC):
#  - tinyjit with a jitdump: perf report names the hot functions (most
#    samples), no warning; the summary says how many were resolved; the
#    ELF lies beside the output;
#  - tinyjit --perf-map (only /tmp/perf-PID.map): the same, and it stays
#    resolved once the map is removed;
#  - --no-jit: raw addresses, no ELF, no word in the summary.
# Skips (77) without perf or perf_event_open.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
need_event_open

hot_total() {
	t=0
	for f in hot_fn_0 hot_fn_1 hot_fn_2 hot_fn_3; do
		t=$(awk -v t="$t" -v a="$(share "$1" $f)" 'BEGIN { print t + a }')
	done
	echo "$t"
}

for mode in dump map; do
	d=$W/$mode
	mkdir -p "$d"
	arg=
	[ $mode = map ] && arg=--perf-map
	(cd "$d" && "$REC" -e cpu-clock -o out.data -- "$TINYJIT" -n 256 -t 700 $arg) \
		>"$d/rec.out" 2>&1 && ok "$mode: perfring-record exited $?" || bad "$mode: perfring-record exited $?: $(cat "$d/rec.out")"
	grep -q '; 256 JIT functions resolved (1 ELF)' "$d/rec.out" && ok "not: $mode: summary" ||
		bad "$mode: summary: $(cat "$d/rec.out")"
	ls "$d"/out.data.jit-*.so >/dev/null 2>&1 && ok "not: $mode: no ELF beside out.data" || bad "$mode: no ELF beside out.data"
	if [ $mode = map ]; then
		pid=$("$PERF" script -i "$d/out.data" -F comm,pid 2>/dev/null |
			awk '$1 == "tinyjit" { print $2; exit }')
		[ -n "$pid" ] && [ -f "/tmp/perf-$pid.map" ] && ok "not: no /tmp/perf-$pid.map" || bad "no /tmp/perf-$pid.map"
		rm -f "/tmp/perf-$pid.map"
	fi
	t=$(hot_total "$d/out.data")
	echo "# $mode: the hot functions have $t% of the samples"
	at_least "$t" 75 && ok "not: $mode: the hot functions have only $t%" || bad "$mode: the hot functions have only $t%"
	no_warnings "$d/out.data"
done

d=$W/nojit
mkdir -p "$d"
(cd "$d" && "$REC" -e cpu-clock --no-jit -o out.data -- "$TINYJIT" -n 16 -t 300) \
	>"$d/rec.out" 2>&1 && ok "--no-jit: perfring-record exited $?" || bad "--no-jit: perfring-record exited $?: $(cat "$d/rec.out")"
grep -q 'JIT functions' "$d/rec.out" && bad "--no-jit: summary: $(cat "$d/rec.out")" || ok "not: --no-jit: summary"
ls "$d"/out.data.jit-*.so >/dev/null 2>&1 && bad "--no-jit wrote an ELF" || ok "not: --no-jit wrote an ELF"
t=$(hot_total "$d/out.data")
at_least 1 "$t" && ok "not: --no-jit: the hot functions are named ($t%)" || bad "--no-jit: the hot functions are named ($t%)"

finish
