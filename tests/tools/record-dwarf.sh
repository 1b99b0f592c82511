#!/bin/sh
# perfring-record --call-graph, read back by the real perf:
#  - dwarf on a program built with -fomit-frame-pointer whose leaf is
#    called from inside libc (qsort): perf script unwinds at least 90% of
#    the leaf's samples to main, perf report shows main above the leaf
#    without warnings; frame pointers (-g, --call-graph fp) cannot (so the
#    workload really needs DWARF);
#  - the attrs as perf record writes them for dwarf (REGS_USER mask,
#    STACK_USER size, rounded up to 8 as perf does) and for dwarf,SIZE;
#  - -p with dwarf: the synthesised maps include the data mappings;
#  - the default ring for dwarf and -m sizes: perf record -v's "mmap size"
#    for the same options;
#  - bad --call-graph values are usage errors.
# Skips (77) only without perf or perf_event_open.
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open
cd "$W" || exit 1

# reach_main DATA: "WITH_MAIN LEAF_SAMPLES": samples whose first frame is
# leaf_compare, and how many of them have main in their callchain.
reach_main() {
	"$PERF" script -i "$1" -F ip,sym 2>"$W/script.err" | awk '
		function done_one() { if (leaf) { n++; if (m) c++ } leaf = 0; m = 0; first = 1 }
		BEGIN { first = 1 }
		NF == 0 { done_one(); next }
		first { first = 0; if ($2 == "leaf_compare") leaf = 1 }
		$2 == "main" { m = 1 }
		END { done_one(); print c + 0, n + 0 }'
}

# 1. dwarf through libc.
"$REC" -e cpu-clock -F 999 --call-graph dwarf -o "$W/d.data" -- "$WL/wl-nofp" 0.5 2>"$W/rec.err"
rc=$?
cat "$W/rec.err"
[ $rc -eq 0 ] && ok "--call-graph dwarf: exit $rc" || bad "--call-graph dwarf: exit $rc"
set -- $(reach_main "$W/d.data")
echo "dwarf: $1 of $2 leaf_compare samples reach main"
[ "$2" -gt 100 ] && ok "not: dwarf: only $2 samples in leaf_compare" || bad "dwarf: only $2 samples in leaf_compare"
[ $(($1 * 100)) -ge $(($2 * 90)) ] && ok "not: dwarf: only $1 of $2 leaf samples reach main" || bad "dwarf: only $1 of $2 leaf samples reach main"
[ -s "$W/script.err" ] && bad "dwarf: perf script warned: $(cat "$W/script.err")" || ok "not: dwarf: perf script warned"
"$PERF" report -i "$W/d.data" --stdio --children --sort sym -g none -q 2>"$W/rep.err" >"$W/rep.txt"
[ -s "$W/rep.err" ] && bad "dwarf: perf report warned: $(cat "$W/rep.err")" || ok "not: dwarf: perf report warned"
# perf report --children: main's "Children" share covers the leaf's.
awk '$NF == "main" { sub("%", "", $1); print int($1) }' "$W/rep.txt" | head -n 1 >"$W/main.pct"
echo "dwarf: perf report: main $(cat "$W/main.pct")% with children"
[ "$(cat "$W/main.pct")" -ge 90 ] 2>/dev/null && ok "not: dwarf: perf report gives main" ||
	bad "dwarf: perf report gives main $(cat "$W/main.pct")% with children: $(head -5 "$W/rep.txt")"
"$PERF" evlist -v -i "$W/d.data" >"$W/evlist" 2>&1
for want in "REGS_USER" "STACK_USER" "sample_stack_user: 8192" "exclude_callchain_user: 1" \
	    "mmap_data: 1"; do
	grep -q "$want" "$W/evlist" && ok "not: dwarf: perf evlist lacks '$want'" || bad "dwarf: perf evlist lacks '$want': $(cat "$W/evlist")"
done
case $(uname -m) in
x86_64) grep -q "sample_regs_user: 0xff0fff" "$W/evlist" ||
		bad "dwarf: not perf's register mask: $(cat "$W/evlist")" ;;
esac

# 2. Frame pointers cannot get out of libc: the test above depends on dwarf.
for opt in -g "--call-graph fp"; do
	"$REC" -e cpu-clock -F 999 $opt -o "$W/g.data" -- "$WL/wl-nofp" 0.3 2>"$W/rec.err" && ok "$opt: exit $?" ||
		bad "$opt: exit $?: $(cat "$W/rec.err")"
	set -- $(reach_main "$W/g.data")
	echo "$opt: $1 of $2 leaf_compare samples reach main"
	[ "$2" -gt 50 ] && [ $(($1 * 100)) -lt $(($2 * 90)) ] && ok "not: $opt: $1 of $2 leaf samples reach main: the workload has frame pointers?" ||
		bad "$opt: $1 of $2 leaf samples reach main: the workload has frame pointers?"
	"$PERF" evlist -v -i "$W/g.data" 2>&1 | grep -q "CALLCHAIN" && ok "not: $opt: no CALLCHAIN" || bad "$opt: no CALLCHAIN"
	"$PERF" evlist -v -i "$W/g.data" 2>&1 | grep -q "STACK_USER" && bad "$opt: STACK_USER set" || ok "not: $opt: STACK_USER set"
done

# 3. dwarf,SIZE: rounded up to 8 as perf does; the kernel's limit.
"$REC" -e cpu-clock -F 999 --call-graph dwarf,1001 -o "$W/s.data" -- "$WL/wl-nofp" 0.1 \
	2>"$W/rec.err" && ok "dwarf,1001: exit $?" || bad "dwarf,1001: exit $?: $(cat "$W/rec.err")"
"$PERF" record -q -e cpu-clock -F 999 --call-graph dwarf,1001 -o "$W/ps.data" -- true \
	>/dev/null 2>&1 && ok "not: perf record --call-graph dwarf,1001 failed" || bad "perf record --call-graph dwarf,1001 failed"
ours=$("$PERF" evlist -v -i "$W/s.data" 2>/dev/null | sed -n 's/.*sample_stack_user: \([0-9]*\).*/\1/p')
theirs=$("$PERF" evlist -v -i "$W/ps.data" 2>/dev/null | sed -n 's/.*sample_stack_user: \([0-9]*\).*/\1/p')
echo "dwarf,1001: sample_stack_user $ours (perf record: $theirs)"
[ -n "$ours" ] && [ "$ours" = "$theirs" ] && ok "not: dwarf,1001: stack size $ours, perf record's $theirs'" || bad "dwarf,1001: stack size $ours, perf record's $theirs"
"$REC" -e cpu-clock -F 999 --call-graph dwarf,65528 -o "$W/s.data" -- true 2>"$W/rec.err" && ok "dwarf,65528 (the kernel's largest): exit $?" ||
	bad "dwarf,65528 (the kernel's largest): exit $?: $(cat "$W/rec.err")"
for bad in dwarf,0 dwarf,65529 dwarf,x "dwarf," lbr fpx ""; do
	"$REC" --call-graph "$bad" -o "$W/bad.data" -- true 2>"$W/rec.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "--call-graph" "$W/rec.err" && ok "not: --call-graph '$bad': exit $rc, want 2 with a message" ||
		bad "--call-graph '$bad': exit $rc, want 2 with a message: $(cat "$W/rec.err")"
done

# 4. -p with dwarf: the running process's maps, data mappings included.
"$WL/wl-nofp" 4 &
bg=$!
sleep 0.3
"$REC" -e cpu-clock -F 999 --call-graph dwarf -p "$bg" --duration 0.5 -o "$W/p.data" \
	2>"$W/rec.err" && ok "-p dwarf: exit $?" || bad "-p dwarf: exit $?: $(cat "$W/rec.err")"
kill "$bg"; wait "$bg" 2>/dev/null; bg=
set -- $(reach_main "$W/p.data")
echo "-p dwarf: $1 of $2 leaf_compare samples reach main"
[ "$2" -gt 20 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ] && ok "not: -p dwarf: $1 of $2 reach main" || bad "-p dwarf: $1 of $2 reach main"

# 5. Ring sizes: the default (fp and dwarf) and -m as perf record -v says.
perf_mmap() {
	"$PERF" record -v "$@" -e cpu-clock -o "$W/pm.data" -- true 2>&1 |
		sed -n 's/^mmap size \([0-9]*\)B$/\1/p' | head -n 1
}
our_mmap() {
	"$REC" -v "$@" -e cpu-clock -o "$W/om.data" -- true 2>&1 |
		sed -n 's/.*; mmap size \([0-9]*\)B$/\1/p' | head -n 1
}
for o in "" "--call-graph dwarf" "-m 4M" "-m 8" "-m 5" "-m 3K" "-m 64K --call-graph dwarf"; do
	ours=$(our_mmap $o); theirs=$(perf_mmap $o)
	echo "ring with '$o': mmap size $ours (perf record: $theirs)"
	[ -n "$ours" ] && [ "$ours" = "$theirs" ] && ok "not: '$o': mmap size $ours, perf record's $theirs'" || bad "'$o': mmap size $ours, perf record's $theirs"
done
for bad in 4X 4MM -1 M 1048577 99999999999G ""; do
	"$REC" -m "$bad" -o "$W/bad.data" -- true 2>"$W/rec.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "-m" "$W/rec.err" && ok "not: -m '$bad': exit $rc, want 2 with a message" ||
		bad "-m '$bad': exit $rc, want 2 with a message: $(cat "$W/rec.err")"
done

finish
