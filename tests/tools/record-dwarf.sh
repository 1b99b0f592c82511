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
name=record-dwarf.sh
. "$top_srcdir/tests/record-lib.sh"

# reach_main DATA: "WITH_MAIN LEAF_SAMPLES": samples whose first frame is
# leaf_compare, and how many of them have main in their callchain.
reach_main() {
	"$perf" script -i "$1" -F ip,sym 2>"$tmp/script.err" | awk '
		function done_one() { if (leaf) { n++; if (m) c++ } leaf = 0; m = 0; first = 1 }
		BEGIN { first = 1 }
		NF == 0 { done_one(); next }
		first { first = 0; if ($2 == "leaf_compare") leaf = 1 }
		$2 == "main" { m = 1 }
		END { done_one(); print c + 0, n + 0 }'
}

# 1. dwarf through libc.
"$rec" -e cpu-clock -F 999 --call-graph dwarf -o "$tmp/d.data" -- "$wl/wl-nofp" 0.5 2>"$tmp/rec.err"
rc=$?
cat "$tmp/rec.err"
[ $rc -eq 0 ] || fail "--call-graph dwarf: exit $rc"
set -- $(reach_main "$tmp/d.data")
echo "dwarf: $1 of $2 leaf_compare samples reach main"
[ "$2" -gt 100 ] || fail "dwarf: only $2 samples in leaf_compare"
[ $(($1 * 100)) -ge $(($2 * 90)) ] || fail "dwarf: only $1 of $2 leaf samples reach main"
[ -s "$tmp/script.err" ] && fail "dwarf: perf script warned: $(cat "$tmp/script.err")"
"$perf" report -i "$tmp/d.data" --stdio --children --sort sym -g none -q 2>"$tmp/rep.err" >"$tmp/rep.txt"
[ -s "$tmp/rep.err" ] && fail "dwarf: perf report warned: $(cat "$tmp/rep.err")"
# perf report --children: main's "Children" share covers the leaf's.
awk '$NF == "main" { sub("%", "", $1); print int($1) }' "$tmp/rep.txt" | head -n 1 >"$tmp/main.pct"
echo "dwarf: perf report: main $(cat "$tmp/main.pct")% with children"
[ "$(cat "$tmp/main.pct")" -ge 90 ] 2>/dev/null ||
	fail "dwarf: perf report gives main $(cat "$tmp/main.pct")% with children: $(head -5 "$tmp/rep.txt")"
"$perf" evlist -v -i "$tmp/d.data" >"$tmp/evlist" 2>&1
for want in "REGS_USER" "STACK_USER" "sample_stack_user: 8192" "exclude_callchain_user: 1" \
	    "mmap_data: 1"; do
	grep -q "$want" "$tmp/evlist" || fail "dwarf: perf evlist lacks '$want': $(cat "$tmp/evlist")"
done
case $(uname -m) in
x86_64) grep -q "sample_regs_user: 0xff0fff" "$tmp/evlist" ||
		fail "dwarf: not perf's register mask: $(cat "$tmp/evlist")" ;;
esac

# 2. Frame pointers cannot get out of libc: the test above depends on dwarf.
for opt in -g "--call-graph fp"; do
	"$rec" -e cpu-clock -F 999 $opt -o "$tmp/g.data" -- "$wl/wl-nofp" 0.3 2>"$tmp/rec.err" ||
		fail "$opt: exit $?: $(cat "$tmp/rec.err")"
	set -- $(reach_main "$tmp/g.data")
	echo "$opt: $1 of $2 leaf_compare samples reach main"
	[ "$2" -gt 50 ] && [ $(($1 * 100)) -lt $(($2 * 90)) ] ||
		fail "$opt: $1 of $2 leaf samples reach main: the workload has frame pointers?"
	"$perf" evlist -v -i "$tmp/g.data" 2>&1 | grep -q "CALLCHAIN" || fail "$opt: no CALLCHAIN"
	"$perf" evlist -v -i "$tmp/g.data" 2>&1 | grep -q "STACK_USER" && fail "$opt: STACK_USER set"
done

# 3. dwarf,SIZE: rounded up to 8 as perf does; the kernel's limit.
"$rec" -e cpu-clock -F 999 --call-graph dwarf,1001 -o "$tmp/s.data" -- "$wl/wl-nofp" 0.1 \
	2>"$tmp/rec.err" || fail "dwarf,1001: exit $?: $(cat "$tmp/rec.err")"
"$perf" record -q -e cpu-clock -F 999 --call-graph dwarf,1001 -o "$tmp/ps.data" -- true \
	>/dev/null 2>&1 || fail "perf record --call-graph dwarf,1001 failed"
ours=$("$perf" evlist -v -i "$tmp/s.data" 2>/dev/null | sed -n 's/.*sample_stack_user: \([0-9]*\).*/\1/p')
theirs=$("$perf" evlist -v -i "$tmp/ps.data" 2>/dev/null | sed -n 's/.*sample_stack_user: \([0-9]*\).*/\1/p')
echo "dwarf,1001: sample_stack_user $ours (perf record: $theirs)"
[ -n "$ours" ] && [ "$ours" = "$theirs" ] || fail "dwarf,1001: stack size $ours, perf record's $theirs"
"$rec" -e cpu-clock -F 999 --call-graph dwarf,65528 -o "$tmp/s.data" -- true 2>"$tmp/rec.err" ||
	fail "dwarf,65528 (the kernel's largest): exit $?: $(cat "$tmp/rec.err")"
for bad in dwarf,0 dwarf,65529 dwarf,x "dwarf," lbr fpx ""; do
	"$rec" --call-graph "$bad" -o "$tmp/bad.data" -- true 2>"$tmp/rec.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "--call-graph" "$tmp/rec.err" ||
		fail "--call-graph '$bad': exit $rc, want 2 with a message: $(cat "$tmp/rec.err")"
done

# 4. -p with dwarf: the running process's maps, data mappings included.
"$wl/wl-nofp" 4 &
bg=$!
sleep 0.3
"$rec" -e cpu-clock -F 999 --call-graph dwarf -p "$bg" --duration 0.5 -o "$tmp/p.data" \
	2>"$tmp/rec.err" || fail "-p dwarf: exit $?: $(cat "$tmp/rec.err")"
kill "$bg"; wait "$bg" 2>/dev/null; bg=
set -- $(reach_main "$tmp/p.data")
echo "-p dwarf: $1 of $2 leaf_compare samples reach main"
[ "$2" -gt 20 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ] || fail "-p dwarf: $1 of $2 reach main"

# 5. Ring sizes: the default (fp and dwarf) and -m as perf record -v says.
perf_mmap() {
	"$perf" record -v "$@" -e cpu-clock -o "$tmp/pm.data" -- true 2>&1 |
		sed -n 's/^mmap size \([0-9]*\)B$/\1/p' | head -n 1
}
our_mmap() {
	"$rec" -v "$@" -e cpu-clock -o "$tmp/om.data" -- true 2>&1 |
		sed -n 's/.*; mmap size \([0-9]*\)B$/\1/p' | head -n 1
}
for o in "" "--call-graph dwarf" "-m 4M" "-m 8" "-m 5" "-m 3K" "-m 64K --call-graph dwarf"; do
	ours=$(our_mmap $o); theirs=$(perf_mmap $o)
	echo "ring with '$o': mmap size $ours (perf record: $theirs)"
	[ -n "$ours" ] && [ "$ours" = "$theirs" ] || fail "'$o': mmap size $ours, perf record's $theirs"
done
for bad in 4X 4MM -1 M 1048577 99999999999G ""; do
	"$rec" -m "$bad" -o "$tmp/bad.data" -- true 2>"$tmp/rec.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "-m" "$tmp/rec.err" ||
		fail "-m '$bad': exit $rc, want 2 with a message: $(cat "$tmp/rec.err")"
done

finish
