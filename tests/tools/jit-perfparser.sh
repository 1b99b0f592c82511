#!/bin/sh
# The second consumer: hotspot's perfparser (elfutils) names the JIT
# functions of perfring-replay --jit output, for a jitdump (ELF with code)
# and for a perf map (ELF with symbols only).  On perf inject --jit's
# per-function ELFs it names none here (printed, not asserted: that is
# perf's output).
# Skips (77) without perf, perf_event_open or hotspot-perfparser.
name=jit-perfparser.sh
. "$top_srcdir/tests/jit-lib.sh"
pp=${HOTSPOT_PERFPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
[ -x "$pp" ] || skip "no hotspot-perfparser at $pp (Debian: apt-get install hotspot)"

# names DATA: the hot_fn_* names perfparser resolved in DATA
names() {
	timeout 120 "$pp" --input "$1" --output "$tmp/pp.out" >"$tmp/pp.err" 2>&1 ||
		fail "perfparser on $1 failed: $(tail -n 3 "$tmp/pp.err")"
	strings -n 5 "$tmp/pp.out" | grep -x 'hot_fn_[0-3]' | sort -u | tr '\n' ' '
}

for mode in dump map; do
	d=$tmp/$mode
	mkdir -p "$d"
	arg=
	[ $mode = map ] && arg=--perf-map
	(cd "$d" && "$perf" record -k mono -e cpu-clock -q -o perf.data -- \
		"$tinyjit" -n 64 -t 500 $arg) >"$d/rec.out" 2>&1 ||
		fail "perf record tinyjit $arg: $(tail -n 3 "$d/rec.out")"
	"$rep" --jit -o "$d/out.data" "$d/perf.data" 2>"$tmp/replay.err" ||
		fail "perfring-replay --jit ($mode) exited $?: $(cat "$tmp/replay.err")"
	if [ $mode = map ]; then
		pid=$("$perf" script -i "$d/perf.data" -F comm,pid 2>/dev/null |
			awk '$1 == "tinyjit" { print $2; exit }')
		rm -f "/tmp/perf-$pid.map"	# perfparser would read it otherwise
	fi
	got=$(names "$d/out.data")
	echo "$name: $mode: perfparser names: $got"
	[ "$got" = "hot_fn_0 hot_fn_1 hot_fn_2 hot_fn_3 " ] ||
		fail "$mode: perfparser resolved '$got', expected hot_fn_0..3"
	if [ $mode = dump ]; then
		(cd "$d" && "$perf" inject --jit -i perf.data -o inj.data) 2>/dev/null &&
			echo "$name: on perf inject --jit's output perfparser names: '$(names "$d/inj.data")'"
	fi
done

[ $fails -eq 0 ] && echo "$name: ok"
[ $fails -eq 0 ]
