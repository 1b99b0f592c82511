#!/bin/sh
# End-to-end: perf.data files written by the perfring writer (through
# tests/lib/writer-gen) read by the real perf, in file and pipe mode.
#  - a real ELF compiled here, mapped by MMAP2 at its executable PT_LOAD
#    (p_vaddr / p_offset from readelf), samples at its functions (nm):
#    perf report attributes them to those functions with no warning;
#  - perf script shows the COMM / MMAP2 / FORK / EXIT records as written;
#  - perf report --header-only shows the features;
#  - two sources merged by time: samples in time order, no out-of-order
#    warning (and the same records unmerged do get the warning);
#  - unknown record types dropped with counted warnings, or kept;
#  - no readable kallsyms: exclude_kernel is set and perf does not warn.
. "$top_srcdir/tests/testlib.sh"
need_perf
CC=${CC:-cc}
if ! command -v "$CC" >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1 ||
   ! command -v nm >/dev/null 2>&1; then
	skip "no C compiler / readelf / nm to build the test ELF"
fi
GEN="$top_builddir/tests/lib/writer-gen"

cat > "$W/app.c" <<'EOF'
__attribute__((noinline)) int hot_func(int x)
{
	int i, s = 0;

	for (i = 0; i < x; i++)
		s += i * x;
	return s;
}
__attribute__((noinline)) int cold_func(int x) { return x * 3 + hot_func(x / 2); }
int main(int argc, char **argv) { (void)argv; return hot_func(argc) + cold_func(argc) > 0 ? 0 : 1; }
EOF
if ! "$CC" -O0 -fno-pie -no-pie -o "$W/wapp" "$W/app.c" 2>"$W/cc.err"; then
	skip "cannot build a non-PIE test ELF: $(head -n 3 "$W/cc.err")"
fi
ELF="$W/wapp"
# executable PT_LOAD: Offset VirtAddr PhysAddr FileSiz MemSiz Flg(R E) Align
set -- $(readelf -lW "$ELF" | awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
[ $# -eq 3 ] || die "no executable PT_LOAD in $ELF"
off=$(($1)); vaddr=$(($2)); memsz=$(($3))
start=$((vaddr & ~4095)); pgoff=$((off & ~4095))
len=$(( ((vaddr + memsz + 4095) & ~4095) - start ))
F1=$(nm "$ELF" | awk '$3 == "hot_func" { print $1 }')
F2=$(nm "$ELF" | awk '$3 == "cold_func" { print $1 }')
[ -n "$F1" ] && [ -n "$F2" ] || die "nm found no symbols"
START=$(printf '%x' $start); LEN=$(printf '%x' $len); PGOFF=$(printf '%x' $pgoff)
echo "# ELF $ELF: map 0x$START len 0x$LEN pgoff 0x$PGOFF hot_func 0x$F1 cold_func 0x$F2"
A="--elf $ELF --start $START --len $LEN --pgoff $PGOFF --f1 $F1 --f2 $F2"

KTEXT=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms 2>/dev/null)
case "$KTEXT" in ''|0000000000000000) KTEXT= ;; esac

# perf reading file $1 (mode file|pipe) with the remaining arguments
perf_in() {
	f=$1; mode=$2; shift 2
	if [ "$mode" = pipe ]; then "$PERF" "$@" -i - < "$f"; else "$PERF" "$@" -i "$f"; fi
}

for mode in file pipe; do
	F="$W/basic-$mode.data"
	popt=; [ $mode = pipe ] && popt=--pipe
	if ! "$GEN" -o "$F" $popt --name wgen-clock $A > "$W/gen.out" 2> "$W/gen.err"; then
		bad "$mode: writer-gen failed"; cat "$W/gen.err"; continue
	fi
	empty "$mode: writer-gen wrote without warnings" "$W/gen.err"
	[ "$mode" = pipe ] && has "$mode: stream starts with the 16-byte pipe header" \
		"$W/gen.out" '^pipe_mode=1$'

	perf_in "$F" $mode report --stdio --sort comm,dso,sym > "$W/rep" 2> "$W/rep.err"
	empty "$mode: perf report prints no warning" "$W/rep.err"
	has "$mode: samples in hot_func of the binary (75%)" "$W/rep" \
		'^ +75\.00% +wgen-app +wapp +\[\.\] hot_func'
	has "$mode: samples in cold_func of the binary (25%)" "$W/rep" \
		'^ +25\.00% +wgen-app +wapp +\[\.\] cold_func'
	has "$mode: 400 samples of the named event" "$W/rep" "Samples: 400 +of event 'wgen-clock'"

	perf_in "$F" $mode script --show-task-events --show-mmap-events > "$W/scr" 2> "$W/scr.err"
	empty "$mode: perf script prints no warning" "$W/scr.err"
	has "$mode: COMM exec" "$W/scr" 'PERF_RECORD_COMM exec: wgen-app:4242/4242'
	has "$mode: MMAP2 with the written fields" "$W/scr" \
		"PERF_RECORD_MMAP2 4242/4242: \[0x$START\(0x$LEN\) @ 0x$PGOFF 08:01 12345 0\]: r-xp $ELF"
	has "$mode: FORK" "$W/scr" 'PERF_RECORD_FORK\(4243:4243\):\(4242:4242\)'
	has "$mode: EXIT of the child" "$W/scr" 'PERF_RECORD_EXIT\(4243:4243\):\(4242:4242\)'
	has "$mode: EXIT of the parent" "$W/scr" 'PERF_RECORD_EXIT\(4242:4242\):\(4242:4242\)'
	has "$mode: samples symbolised by perf script" "$W/scr" \
		"wgen-app +4243 .*cold_func\+0x4 \($ELF\)"
	if [ -n "$KTEXT" ]; then
		has "$mode: kernel map synthesised from kallsyms" "$W/scr" \
			"PERF_RECORD_MMAP -1/0: \[0x$KTEXT\(0x[0-9a-f]+\) @ 0x$KTEXT\]: x \[kernel.kallsyms\]_text"
	fi

	perf_in "$F" $mode report --header-only > "$W/hdr" 2> "$W/hdr.err"
	has "$mode: header hostname" "$W/hdr" "^# hostname : $(uname -n)\$"
	has "$mode: header os release" "$W/hdr" "^# os release : $(uname -r)\$"
	has "$mode: header version" "$W/hdr" '^# perf version : libperfring [0-9]'
	has "$mode: header arch" "$W/hdr" "^# arch : $(uname -m)\$"
	has "$mode: header nrcpus online" "$W/hdr" "^# nrcpus online : $(getconf _NPROCESSORS_ONLN)\$"
	has "$mode: header nrcpus avail" "$W/hdr" '^# nrcpus avail : [1-9]'
	has "$mode: header cmdline" "$W/hdr" "^# cmdline : .*writer-gen -o $F"
	has "$mode: header total memory" "$W/hdr" \
		"^# total memory : $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) kB\$"
	has "$mode: header event name and id" "$W/hdr" '^# event : name = wgen-clock, .*id = \{ 1 \}'
	if [ $mode = file ]; then
		has "$mode: header sample time" "$W/hdr" '^# time of first sample : 1\.000001$'
		hasnt "$mode: hostname not missing" "$W/hdr" 'missing features:.* HOSTNAME'
	fi
done

# the same program built as PIE, mapped at a typical load base
if "$CC" -O0 -fpie -pie -o "$W/wapp-pie" "$W/app.c" 2>/dev/null; then
	base=$((0x555555554000))
	set -- $(readelf -lW "$W/wapp-pie" | awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
	poff=$(($1)); pvaddr=$(($2)); pmemsz=$(($3))
	pstart=$((base + (pvaddr & ~4095))); ppgoff=$((poff & ~4095))
	plen=$(( ((pvaddr + pmemsz + 4095) & ~4095) - (pvaddr & ~4095) ))
	pf1=$(( base + 0x$(nm "$W/wapp-pie" | awk '$3 == "hot_func" { print $1 }') ))
	pf2=$(( base + 0x$(nm "$W/wapp-pie" | awk '$3 == "cold_func" { print $1 }') ))
	"$GEN" -o "$W/pie.data" --elf "$W/wapp-pie" --start $(printf %x $pstart) \
		--len $(printf %x $plen) --pgoff $(printf %x $ppgoff) \
		--f1 $(printf %x $pf1) --f2 $(printf %x $pf2) > "$W/gen.out" 2> "$W/gen.err"
	"$PERF" report --stdio --sort comm,dso,sym -i "$W/pie.data" > "$W/rep" 2> "$W/rep.err"
	empty "pie: perf report prints no warning" "$W/rep.err"
	has "pie: samples in hot_func" "$W/rep" '^ +75\.00% +wgen-app +wapp-pie +\[\.\] hot_func'
	has "pie: samples in cold_func" "$W/rep" '^ +25\.00% +wgen-app +wapp-pie +\[\.\] cold_func'
else
	echo "# PIE case not run: $CC cannot build a PIE"
fi

# through a real pipe: writer-gen -o - | perf report -i -
"$GEN" -o - $A 2> "$W/gen.err" | "$PERF" report --stdio --sort comm,dso,sym -i - \
	> "$W/rep" 2> "$W/rep.err"
empty "real pipe: perf report prints no warning" "$W/rep.err"
has "real pipe: samples in hot_func" "$W/rep" '^ +75\.00% +wgen-app +wapp +\[\.\] hot_func'
has "real pipe: stats went to stderr" "$W/gen.err" '^pipe_mode=1$'

# /dev/stdout: file mode into a redirected file, pipe mode into a pipe
"$GEN" -o /dev/stdout $A > "$W/stdout.data" 2> "$W/gen.err"
"$PERF" report --stdio --sort comm,dso,sym -i "$W/stdout.data" > "$W/rep" 2> "$W/rep.err"
empty "/dev/stdout to a file: perf report prints no warning" "$W/rep.err"
has "/dev/stdout to a file: file mode, symbols" "$W/rep" '^ +75\.00% +wgen-app +wapp +\[\.\] hot_func'
"$GEN" -o /dev/stdout $A 2> "$W/gen.err" | "$PERF" report --stdio --sort comm,dso,sym -i - \
	> "$W/rep" 2> "$W/rep.err"
empty "/dev/stdout to a pipe: perf report prints no warning" "$W/rep.err"
has "/dev/stdout to a pipe: pipe mode, symbols" "$W/rep" '^ +75\.00% +wgen-app +wapp +\[\.\] hot_func'
has "/dev/stdout to a pipe: pipe mode chosen" "$W/gen.err" '^pipe_mode=1$'

# build_ids: the BUILD_ID feature carries the ELF's GNU build id
BID=$(readelf -n "$ELF" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
if [ -n "$BID" ]; then
	"$GEN" -o "$W/bid.data" --build-ids $A > "$W/gen.out" 2> "$W/gen.err"
	"$PERF" buildid-list -i "$W/bid.data" > "$W/bid" 2>&1
	has "build ids: perf buildid-list shows the ELF's id" "$W/bid" "^$BID $ELF\$"
	"$PERF" report --stdio --sort comm,dso,sym -i "$W/bid.data" > "$W/rep" 2> "$W/rep.err"
	empty "build ids: perf report prints no warning" "$W/rep.err"
	has "build ids: symbols resolved" "$W/rep" '^ +75\.00% +wgen-app +wapp +\[\.\] hot_func'
else
	echo "# build-id case not run: the test ELF has no GNU build id"
fi

# use_clockid: CLOCKID and CLOCK_DATA features
"$GEN" -o "$W/clk.data" --clockid 1 $A > "$W/gen.out" 2> "$W/gen.err"
"$PERF" report --header-only -i "$W/clk.data" > "$W/hdr" 2> "$W/hdr.err"
has "clockid: frequency from the clock resolution" "$W/hdr" '^# clockid frequency: [1-9][0-9]* MHz$'
has "clockid: CLOCK_DATA" "$W/hdr" '^# clockid: monotonic \(1\)$'
has "clockid: reference time" "$W/hdr" \
	"^# reference time: $(date +%Y-)[0-9-]+ [0-9:.]+ = [0-9]+\.[0-9]{6} \(TOD\) = [0-9]+\.[0-9]{9} \(monotonic\)"

# negative control for the "no warning" checks: no kernel map, no exclude_kernel
"$GEN" -o "$W/nokmap.data" --no-kmap $A > "$W/gen.out" 2> "$W/gen.err"
"$PERF" report --stdio -i "$W/nokmap.data" > "$W/rep" 2> "$W/rep.err"
has "control: without kernel map nor exclude_kernel perf report warns" "$W/rep.err" \
	'Kernel address maps'

# two sources, two events, rounds every record: merged by time
for mode in file pipe; do
	F="$W/merge-$mode.data"
	popt=; [ $mode = pipe ] && popt=--pipe
	"$GEN" -o "$F" $popt --sources 2 --events 2 --round 8 $A > "$W/gen.out" 2> "$W/gen.err" ||
		{ bad "$mode merge: writer-gen failed"; cat "$W/gen.err"; continue; }
	has "$mode merge: FINISHED_ROUNDs written" "$W/gen.out" '^rounds=[1-9][0-9][0-9]'
	has "$mode merge: nothing late" "$W/gen.out" '^late=0$'
	perf_in "$F" $mode script -F comm,tid,time,event,ip,sym > "$W/scr" 2> "$W/scr.err"
	empty "$mode merge: no out-of-order warning" "$W/scr.err"
	nout=$(awk '{ t = $3 + 0; if (NR > 1 && t < prev) bad++; prev = t } END { print bad + 0 }' "$W/scr")
	nl=$(wc -l < "$W/scr")
	if [ "$nout" -eq 0 ] && [ "$nl" -eq 400 ]; then ok "$mode merge: 400 samples in time order"
	else bad "$mode merge: $nl samples, $nout out of time order"; fi
	has "$mode merge: both events present" "$W/scr" 'task-clock'
	perf_in "$F" $mode report --stdio --sort comm,dso,sym > "$W/rep" 2> "$W/rep.err"
	empty "$mode merge: perf report prints no warning" "$W/rep.err"
done
# negative control: the same batches without the merge are out of order
"$GEN" -o "$W/naive.data" --sources 2 --naive --round 8 $A > "$W/gen.out" 2> "$W/gen.err"
has "unmerged control: the writer counts late records" "$W/gen.out" '^late=[1-9]'
has "unmerged control: the writer warns" "$W/gen.err" 'older than perf.s round limit'
"$PERF" script -i "$W/naive.data" > /dev/null 2> "$W/scr.err"
has "unmerged control: perf warns about out-of-order events" "$W/scr.err" 'out of order events'

# unknown record types (22 once, 200 twice)
"$GEN" -o "$W/unk.data" --unknown $A > "$W/gen.out" 2> "$W/gen.err"
has "unknown: counted warning for type 22" "$W/gen.err" 'dropped 1 record of type 22,'
has "unknown: counted warning for type 200" "$W/gen.err" 'dropped 2 records of type 200,'
has "unknown: stats" "$W/gen.out" '^dropped_unknown=3$'
"$PERF" report --stdio -i "$W/unk.data" > "$W/rep" 2> "$W/rep.err"
empty "unknown: perf report accepts the file" "$W/rep.err"
"$GEN" -o "$W/keep.data" --unknown --keep-unknown $A > "$W/gen.out" 2> "$W/gen.err"
has "keep_unknown: nothing dropped" "$W/gen.out" '^dropped_unknown=0$'
"$PERF" report -D -i "$W/keep.data" > "$W/rep" 2> "$W/rep.err"
has "keep_unknown: the records are in the file (perf 6.1 refuses them)" "$W/rep.err" \
	'failed to process type: (22|200)'

# no readable kallsyms: exclude_kernel set, said so, no perf warning
"$GEN" -o "$W/nok.data" --kallsyms "$W/nonexistent" $A > "$W/gen.out" 2> "$W/gen.err"
has "no kallsyms: the writer says exclude_kernel was set" "$W/gen.err" 'exclude_kernel set'
has "no kallsyms: stats" "$W/gen.out" '^exclude_kernel_set=1$'
"$PERF" evlist -v -i "$W/nok.data" > "$W/ev" 2>&1
has "no kallsyms: written attr has exclude_kernel" "$W/ev" 'exclude_kernel: 1'
"$PERF" report --stdio -i "$W/nok.data" > "$W/rep" 2> "$W/rep.err"
empty "no kallsyms: perf report prints no warning" "$W/rep.err"
"$PERF" script --show-mmap-events -i "$W/nok.data" > "$W/scr" 2>&1
hasnt "no kallsyms: no kernel MMAP" "$W/scr" 'kernel.kallsyms'

finish
