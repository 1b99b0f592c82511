#!/bin/sh
# The second consumer: hotspot's perfparser (elfutils) names the JIT
# functions of perfring-replay --jit output, for a jitdump (ELF with code)
# and for a perf map (ELF with symbols only).  On perf inject --jit's
# per-function ELFs it names none here (printed, not asserted: that is
# perf's output).
# Skips (77) without perf, perf_event_open or hotspot-perfparser.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
pp=${HOTSPOT_PERFPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
[ -x "$pp" ] || skip "no hotspot-perfparser at $pp (Debian: apt-get install hotspot)"

# names DATA: the hot_fn_* names perfparser resolved in DATA (run in $(...):
# a failure of perfparser is said on stderr, and the caller's check of the
# names fails)
names() {
	timeout 120 "$pp" --input "$1" --output "$W/pp.out" >"$W/pp.err" 2>&1 ||
		echo "# perfparser on $1 failed: $(tail -n 3 "$W/pp.err")" >&2
	strings -n 5 "$W/pp.out" | grep -x 'hot_fn_[0-3]' | sort -u | tr '\n' ' '
}

for mode in dump map; do
	d=$W/$mode
	mkdir -p "$d"
	arg=
	[ $mode = map ] && arg=--perf-map
	(cd "$d" && "$PERF" record -k mono -e cpu-clock -q -o perf.data -- \
		"$TINYJIT" -n 64 -t 500 $arg) >"$d/rec.out" 2>&1 && ok "not: perf record tinyjit $arg" ||
		bad "perf record tinyjit $arg: $(tail -n 3 "$d/rec.out")"
	"$REPLAY" --jit -o "$d/out.data" "$d/perf.data" 2>"$W/replay.err" && ok "perfring-replay --jit ($mode) exited $?" ||
		bad "perfring-replay --jit ($mode) exited $?: $(cat "$W/replay.err")"
	if [ $mode = map ]; then
		pid=$("$PERF" script -i "$d/perf.data" -F comm,pid 2>/dev/null |
			awk '$1 == "tinyjit" { print $2; exit }')
		rm -f "/tmp/perf-$pid.map"	# perfparser would read it otherwise
	fi
	got=$(names "$d/out.data")
	echo "# $mode: perfparser names: $got"
	[ "$got" = "hot_fn_0 hot_fn_1 hot_fn_2 hot_fn_3 " ] && ok "not: $mode: perfparser resolved '$got', expected hot_fn_0..3" ||
		bad "$mode: perfparser resolved '$got', expected hot_fn_0..3"
	if [ $mode = dump ]; then
		(cd "$d" && "$PERF" inject --jit -i perf.data -o inj.data) 2>/dev/null &&
			echo "# on perf inject --jit's output perfparser names: '$(names "$d/inj.data")'"
	fi
done

finish
