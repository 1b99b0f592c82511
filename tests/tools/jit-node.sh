#!/bin/sh
# perfring-replay --jit on real V8 output (node 20), recorded with
# `perf record -k mono`:
#  - node --perf-prof (a jitdump in the cwd, found through its marker map):
#    the share of the hot JS function agrees with perf inject --jit's
#    within 3 points, and perf report has nothing on stderr;
#  - node --perf-basic-prof --interpreted-frames-native-stack (only
#    /tmp/perf-PID.map): the share agrees with perf report reading the map
#    itself within 3 points, and stays once the map is gone, while the
#    unbaked recording then shows raw addresses.
# Skips (77) without perf, perf_event_open or node.
name=jit-node.sh
. "$top_srcdir/tests/jit-lib.sh"
command -v node >/dev/null || skip "node is not installed (Debian: apt-get install nodejs)"

d=$tmp/node
mkdir -p "$d"
cat >"$d/fib.js" <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0;
const end = Date.now() + 1200;
while (Date.now() < end) s += fib(25);
console.log(s > 0 ? "ok" : "none");
JS
sym="JS:*fib $d/fib.js:1:13"

# --- --perf-prof: jitdump ----------------------------------------------------------
(cd "$d" && "$perf" record -k mono -e cpu-clock -q -o prof.data -- node --perf-prof fib.js) \
	>"$d/rec.out" 2>&1 || fail "perf record node --perf-prof: $(tail -n 3 "$d/rec.out")"
"$rep" --jit -o "$d/out.data" "$d/prof.data" 2>"$tmp/replay.err" ||
	fail "perfring-replay --jit exited $?: $(cat "$tmp/replay.err")"
grep -q 'JIT functions resolved from 1 jitdump' "$tmp/replay.err" ||
	fail "summary: $(cat "$tmp/replay.err")"
(cd "$d" && "$perf" inject --jit -i prof.data -o inj.data) 2>"$tmp/inj.err" ||
	fail "perf inject --jit: $(cat "$tmp/inj.err")"
a=$(share "$d/out.data" "$sym")
b=$(share "$d/inj.data" "$sym")
echo "$name: --perf-prof: '$sym': perfring-replay --jit $a%, perf inject --jit $b%"
within "$a" "$b" 3 || fail "--perf-prof: $a% vs inject's $b%"
at_least "$a" 50 || fail "--perf-prof: the hot function has only $a%"
no_warnings "$d/out.data"
rm -f "$d"/jitted-*.so

# --- --perf-basic-prof: perf map ------------------------------------------------------
(cd "$d" && exec "$perf" record -k mono -e cpu-clock -q -o basic.data -- \
	node --perf-basic-prof --interpreted-frames-native-stack fib.js) \
	>"$d/rec.out" 2>&1 || fail "perf record node --perf-basic-prof: $(tail -n 3 "$d/rec.out")"
pid=$("$perf" script -i "$d/basic.data" -F comm,pid 2>/dev/null | awk '$1 == "node" { print $2; exit }')
map=/tmp/perf-$pid.map
[ -n "$pid" ] && [ -f "$map" ] || fail "node left no $map"
"$rep" --jit -o "$d/bout.data" "$d/basic.data" 2>"$tmp/replay.err" ||
	fail "perfring-replay --jit (map) exited $?: $(cat "$tmp/replay.err")"
grep -q 'from 0 jitdump(s) and 1 perf map' "$tmp/replay.err" ||
	fail "map summary: $(cat "$tmp/replay.err")"
b=$(share "$d/basic.data" "$sym")
mv "$map" "$d/saved.map" 2>/dev/null
a=$(share "$d/bout.data" "$sym")
c=$(share "$d/basic.data" "$sym")
echo "$name: --perf-basic-prof: '$sym': baked $a%, perf with the map $b%, without it $c%"
within "$a" "$b" 3 || fail "--perf-basic-prof: $a% vs perf's $b% with the map"
at_least "$a" 50 || fail "--perf-basic-prof: the hot function has only $a%"
at_least 1 "$c" || fail "without the map perf still named it ($c%): the check proves nothing"
no_warnings "$d/bout.data"
rm -f "$d/saved.map"

[ $fails -eq 0 ] && echo "$name: ok"
[ $fails -eq 0 ]
