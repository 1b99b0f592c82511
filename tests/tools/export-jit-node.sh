#!/bin/sh
# perfring-export on a Node JIT recording, read by go tool pprof:
# node 20 --perf-prof under `perf record -k mono -g`, the jitdump baked
# into ELF files by perfring-replay --jit.  On the baked file:
#  - go tool pprof -top names the same top functions as perf report
#    --no-children (the five largest of perf's, with spaces in their
#    names as V8 gives them: "JS:*fib /path/fib.js:1:13"), each within
#    1 point;
#  - -top -cum gives the two JS functions perf report --children's share
#    within 2 points.
# Skips (77) without perf sampling, go or node.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
command -v node >/dev/null || skip "node is not installed (Debian: apt-get install nodejs)"
. "$top_srcdir/tests/tools/export-lib.sh"

cat >fib.js <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sq(n) { let t = 0; for (let i = 0; i < n; i++) t += Math.sqrt(i); return t; }
let s = 0;
const end = Date.now() + 1500;
while (Date.now() < end) { s += fib(22); s += sq(20000); }
console.log(s > 0 ? "ok" : "none");
JS
"$PERF" record -k mono -e cpu-clock -g -q -o prof.data -- node --perf-prof fib.js >rec.out 2>&1 ||
	die "perf record node --perf-prof: $(tail -n 3 rec.out)"
"$REPLAY" --jit -o jit.data prof.data 2>replay.err || die "perfring-replay --jit: $(cat replay.err)"
"$EXP" -o jit.pb.gz jit.data 2>exp.err
status "perfring-export" 0 $?
empty "perfring-export: nothing on stderr" exp.err

# go tool pprof -top as "PERCENT<TAB>NAME" (flat: fields 2, cum: 5)
top() {	# PROFILE COLUMN [-cum]
	go tool pprof -top ${3:-} -nodefraction=0 -nodecount=60 "$1" 2>/dev/null |
		awk -v c="$2" 'f && NF >= 6 { p = $c; sub(/%$/, "", p); n = $0
			for (i = 0; i < 5; i++) sub(/^ *[^ ]+/, "", n); sub(/^ +/, "", n); print p "\t" n }
			/flat%/ { f = 1 }'
}
top jit.pb.gz 2 >flat.top
top jit.pb.gz 5 -cum >cum.top
report jit.data | head -n 5 >perf.top
[ "$(wc -l <perf.top)" -ge 2 ] || die "perf report shows fewer than 2 functions: $(cat perf.top) $(head -5 "$W/report.err")"
for name in "JS:*fib $W/fib.js:1:13" "JS:*sq $W/fib.js:2:12"; do
	grep -qF "	$name" perf.top && ok "perf report's top has '$name'" ||
		bad "perf report's top lacks '$name': $(cat perf.top)"
done
while IFS='	' read -r b name; do
	a=$(awk -F '\t' -v s="$name" '$2 == s { print $1; f = 1; exit } END { if (!f) print 0 }' flat.top)
	within "$a" "$b" 1 && ok "flat: '$name' $a% vs perf $b%" ||
		{ bad "flat: '$name' $a% vs perf report --no-children $b%"; sed 's/^/#  /' flat.top | head; }
done <perf.top
for name in "JS:*fib $W/fib.js:1:13" "JS:*sq $W/fib.js:2:12"; do
	a=$(awk -F '\t' -v s="$name" '$2 == s { print $1; f = 1; exit } END { if (!f) print 0 }' cum.top)
	b=$("$PERF" report -i jit.data --stdio --children --sort sym -g none -q 2>/dev/null |
		awk -v s="$name" '{ n = $0; sub(/^ *[0-9.]+% +[0-9.]+% +\[[^]]*\] /, "", n); sub(/ *$/, "", n) }
			n == s { sub(/%/, "", $1); print $1; f = 1; exit } END { if (!f) print 0 }')
	within "$a" "$b" 2 && ok "cum: '$name' $a% vs perf $b%" ||
		bad "cum: '$name' $a% vs perf report --children $b%"
done
rm -f jitted-*.so jit-*.dump
finish
