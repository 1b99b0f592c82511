#!/bin/sh
# perfring-record --stat against perf stat on the same command: page-faults
# within_pct 10%, task-clock within_pct 30% (run-to-run spread); a group; an event
# the machine lacks shown as <not supported> as perf stat shows it.
# Skips (77) only without perf or perf_event_open.
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open

value() {
	awk -v n="$2" '$2 == "msec" && $3 == n { print $1; exit }
		       $2 == n { print $1; exit }' "$1"
}

# within_pct A B PERCENT: |A - B| <= PERCENT% of B.
within_pct() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'
}

"$REC" --stat -e task-clock,page-faults -- "$WL/wl-faults" 5000 2>"$W/ours" && ok "--stat: exit $?" ||
	bad "--stat: exit $?: $(cat "$W/ours")"
"$PERF" stat -e task-clock,page-faults -- "$WL/wl-faults" 5000 2>"$W/theirs" >/dev/null && ok "not: perf stat failed" ||
	bad "perf stat failed: $(cat "$W/theirs")"
cat "$W/ours"
for ev in page-faults:10 task-clock:30; do
	name=${ev%%:*} pct=${ev#*:}
	a=$(value "$W/ours" "$name")
	b=$(value "$W/theirs" "$name")
	echo "$name: perfring-record $a, perf stat $b (tolerance $pct%)"
	[ -n "$a" ] && [ -n "$b" ] && ok "$name: both counted" || { bad "$name missing: '$a' '$b'"; continue; }
	within_pct "$a" "$b" "$pct" && ok "not: $name: $a vs perf stat $b differ by more than $pct%" || bad "$name: $a vs perf stat $b differ by more than $pct%"
done
grep -q "task-clock.*(100.00%)" "$W/ours" && ok "not: no enabled/running percentage printed" || bad "no enabled/running percentage printed"
grep -q "Performance counter stats for '.*wl-faults 5000'" "$W/ours" && ok "not: no header line" || bad "no header line"

# A group is read in one go; members share the enabled time.
"$REC" --stat -e '{task-clock,page-faults,minor-faults}' -- "$WL/wl-faults" 2000 2>"$W/g" && ok "group: exit $?" ||
	bad "group: exit $?: $(cat "$W/g")"
a=$(value "$W/g" page-faults)
b=$(value "$W/g" minor-faults)
[ -n "$a" ] && [ "$a" -ge 2000 ] && [ "$a" = "$b" ] && ok "not: group: page-faults $a, minor-faults $b" || bad "group: page-faults $a, minor-faults $b"

# An event this machine lacks: <not supported>, as perf stat prints it.
"$PERF" stat -e cycles -- true 2>"$W/pc" >/dev/null
if grep -q "<not supported>" "$W/pc"; then
	"$REC" --stat -e cycles,task-clock -- true 2>"$W/c"
	rc=$?
	[ $rc -eq 0 ] && ok "--stat with cycles unsupported: exit $rc" || bad "--stat with cycles unsupported: exit $rc"
	grep -q "<not supported>.*cycles" "$W/c" && ok "not: no <not supported> line for cycles" || bad "no <not supported> line for cycles: $(cat "$W/c")"
	grep -q "cycles: not supported here" "$W/c" && ok "not: no warning for cycles" || bad "no warning for cycles"
else
	echo "cycles is supported here: <not supported> line not tested"
fi

finish
