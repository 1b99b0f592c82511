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
name=jit-record.sh
. "$top_srcdir/tests/jit-lib.sh"
rec="$top_builddir/tools/perfring-record"
"$rec" --stat -e task-clock:u -- true 2>"$tmp/err" ||
	skip "perf_event_open is not usable here: $(cat "$tmp/err")"

hot_total() {
	t=0
	for f in hot_fn_0 hot_fn_1 hot_fn_2 hot_fn_3; do
		t=$(awk -v t="$t" -v a="$(share "$1" $f)" 'BEGIN { print t + a }')
	done
	echo "$t"
}

for mode in dump map; do
	d=$tmp/$mode
	mkdir -p "$d"
	arg=
	[ $mode = map ] && arg=--perf-map
	(cd "$d" && "$rec" -e cpu-clock -o out.data -- "$tinyjit" -n 256 -t 700 $arg) \
		>"$d/rec.out" 2>&1 || fail "$mode: perfring-record exited $?: $(cat "$d/rec.out")"
	grep -q '; 256 JIT functions resolved (1 ELF)' "$d/rec.out" ||
		fail "$mode: summary: $(cat "$d/rec.out")"
	ls "$d"/out.data.jit-*.so >/dev/null 2>&1 || fail "$mode: no ELF beside out.data"
	if [ $mode = map ]; then
		pid=$("$perf" script -i "$d/out.data" -F comm,pid 2>/dev/null |
			awk '$1 == "tinyjit" { print $2; exit }')
		[ -n "$pid" ] && [ -f "/tmp/perf-$pid.map" ] || fail "no /tmp/perf-$pid.map"
		rm -f "/tmp/perf-$pid.map"
	fi
	t=$(hot_total "$d/out.data")
	echo "$name: $mode: the hot functions have $t% of the samples"
	at_least "$t" 75 || fail "$mode: the hot functions have only $t%"
	no_warnings "$d/out.data"
done

d=$tmp/nojit
mkdir -p "$d"
(cd "$d" && "$rec" -e cpu-clock --no-jit -o out.data -- "$tinyjit" -n 16 -t 300) \
	>"$d/rec.out" 2>&1 || fail "--no-jit: perfring-record exited $?: $(cat "$d/rec.out")"
grep -q 'JIT functions' "$d/rec.out" && fail "--no-jit: summary: $(cat "$d/rec.out")"
ls "$d"/out.data.jit-*.so >/dev/null 2>&1 && fail "--no-jit wrote an ELF"
t=$(hot_total "$d/out.data")
at_least 1 "$t" || fail "--no-jit: the hot functions are named ($t%)"

[ $fails -eq 0 ] && echo "$name: ok"
[ $fails -eq 0 ]
