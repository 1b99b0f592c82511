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
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
command -v node >/dev/null || skip "node is not installed (Debian: apt-get install nodejs)"

d=$W/node
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
(cd "$d" && "$PERF" record -k mono -e cpu-clock -q -o prof.data -- node --perf-prof fib.js) \
	>"$d/rec.out" 2>&1 && ok "not: perf record node --perf-prof" || bad "perf record node --perf-prof: $(tail -n 3 "$d/rec.out")"
"$REPLAY" --jit -o "$d/out.data" "$d/prof.data" 2>"$W/replay.err" && ok "perfring-replay --jit exited $?" ||
	bad "perfring-replay --jit exited $?: $(cat "$W/replay.err")"
grep -q 'JIT functions resolved from 1 jitdump' "$W/replay.err" && ok "not: summary" ||
	bad "summary: $(cat "$W/replay.err")"
(cd "$d" && "$PERF" inject --jit -i prof.data -o inj.data) 2>"$W/inj.err" && ok "not: perf inject --jit" ||
	bad "perf inject --jit: $(cat "$W/inj.err")"
a=$(share "$d/out.data" "$sym")
b=$(share "$d/inj.data" "$sym")
echo "# --perf-prof: '$sym': perfring-replay --jit $a%, perf inject --jit $b%"
within "$a" "$b" 3 && ok "not: --perf-prof: $a% vs inject's $b%'" || bad "--perf-prof: $a% vs inject's $b%"
at_least "$a" 50 && ok "not: --perf-prof: the hot function has only $a%" || bad "--perf-prof: the hot function has only $a%"
no_warnings "$d/out.data"
rm -f "$d"/jitted-*.so

# --- --perf-basic-prof: perf map ------------------------------------------------------
(cd "$d" && exec "$PERF" record -k mono -e cpu-clock -q -o basic.data -- \
	node --perf-basic-prof --interpreted-frames-native-stack fib.js) \
	>"$d/rec.out" 2>&1 && ok "not: perf record node --perf-basic-prof" || bad "perf record node --perf-basic-prof: $(tail -n 3 "$d/rec.out")"
pid=$("$PERF" script -i "$d/basic.data" -F comm,pid 2>/dev/null | awk '$1 == "node" { print $2; exit }')
map=/tmp/perf-$pid.map
[ -n "$pid" ] && [ -f "$map" ] && ok "not: node left no $map" || bad "node left no $map"
"$REPLAY" --jit -o "$d/bout.data" "$d/basic.data" 2>"$W/replay.err" && ok "perfring-replay --jit (map) exited $?" ||
	bad "perfring-replay --jit (map) exited $?: $(cat "$W/replay.err")"
grep -q 'from 0 jitdump(s) and 1 perf map' "$W/replay.err" && ok "not: map summary" ||
	bad "map summary: $(cat "$W/replay.err")"
b=$(share "$d/basic.data" "$sym")
mv "$map" "$d/saved.map" 2>/dev/null
a=$(share "$d/bout.data" "$sym")
c=$(share "$d/basic.data" "$sym")
echo "# --perf-basic-prof: '$sym': baked $a%, perf with the map $b%, without it $c%"
within "$a" "$b" 3 && ok "not: --perf-basic-prof: $a% vs perf's $b% with the map'" || bad "--perf-basic-prof: $a% vs perf's $b% with the map"
at_least "$a" 50 && ok "not: --perf-basic-prof: the hot function has only $a%" || bad "--perf-basic-prof: the hot function has only $a%"
at_least 1 "$c" && ok "not: without the map perf still named it ($c%): the check proves nothing" || bad "without the map perf still named it ($c%): the check proves nothing"
no_warnings "$d/bout.data"
rm -f "$d/saved.map"

finish
