#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make bench`: every comparison of bench/RESULTS.md, one BENCH line each:
#   BENCH <name> <ours> <peer> ratio=<x> target=<y> <PASS|MISS>
# (INFO instead of PASS/MISS where a comparison has no target, SKIP when a
# tool or peer is missing).  Timings of programs are medians of
# BENCH_TOOL_REPS runs (default 3; a peer that takes longer than
# BENCH_SLOW seconds, default 20, is run once).  Sizes scale with
# BENCH_SCALE (default 1; 0.1 for a quick run).  Work files go to
# BENCH_WORK (default bench/work in the build directory) and are removed
# at the end unless BENCH_KEEP=1.  BENCH_ONLY="ring marks tools record switch
# memory" (any of them) runs only those parts; BENCH_RECORD_REPS (default 11) is
# the number of interleaved runs of each record comparison, BENCH_PAIR_REPS
# (default 7) that of each replay-*-vs-cp comparison.
set -u

B=${BENCH_BUILD:-$(pwd)}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${BENCH_SRC:-$(dirname "$HERE")}
SCALE=${BENCH_SCALE:-1}
TREPS=${BENCH_TOOL_REPS:-3}
SLOW=${BENCH_SLOW:-20}
W=${BENCH_WORK:-$B/bench/work}
export BENCH_SCALE=$SCALE
mkdir -p "$W" || exit 2
rm -f "$W"/*

# Run the real executables, not libtool's wrapper scripts: a wrapper adds a
# shell start to every timing.
LD_LIBRARY_PATH=$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
tool() {
	if test -x "$B/tools/.libs/$1"; then echo "$B/tools/.libs/$1"; else echo "$B/tools/$1"; fi
}
DUMP=$(tool perfring-dump)
REPLAY=$(tool perfring-replay)
RECORD=$(tool perfring-record)
EXPORT=$(tool perfring-export)
RUNSTAT=$B/bench/runstat
PERF=$(command -v perf || true)
T0=$(date +%s)

# part NAME: is part NAME of the bench to run (BENCH_ONLY)?
part() { case " ${BENCH_ONLY:-ring marks tools record switch memory} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

fcalc() { awk "BEGIN { printf \"%.4g\", $1 }"; }
fint() { awk "BEGIN { printf \"%.0f\", $1 }"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

# wall_median FILE: the median wall time of runstat's lines in FILE
wall_median() {
	sed 's/^wall=\([^ ]*\).*/\1/' "$1" | sort -g |
	awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# measure OUT CMD...: run CMD TREPS times (stdout to OUT); sets MED (median
# wall seconds), RSS (largest peak RSS, KiB), RC (largest exit status), N.
measure() {
	_out=$1; shift
	rm -f "$W/rs.txt"
	N=0
	while test $N -lt "$TREPS"; do
		# FRESH=FILE: the program writes FILE; remove it before each
		# run, so every run (ours and the peers') writes a new file.
		test -n "${FRESH:-}" && rm -f "$FRESH"
		"$RUNSTAT" -r "$W/rs.txt" -o "$_out" -e "$W/stderr.txt" -- "$@"
		N=$((N + 1))
		if test $N = 1 && awk -v s="$SLOW" '{ split($1, a, "="); exit !(a[2] > s) }' "$W/rs.txt"
		then break; fi
	done
	MED=$(wall_median "$W/rs.txt")
	RSS=$(sed 's/.*rss_kb=\([0-9]*\).*/\1/' "$W/rs.txt" | sort -n | tail -n 1)
	RC=$(sed 's/.*rc=\([0-9]*\).*/\1/' "$W/rs.txt" | sort -n | tail -n 1)
}

# vs_cp OURS_OUT SRC CP_OUT FRESH CMD...: CMD (writing OURS_OUT) and
# "cp SRC CP_OUT" in turn, BENCH_PAIR_REPS times (default 7); FRESH=1
# removes both outputs before each pair, FRESH=0 has both write over the
# output of the run before.  Sets OURS_MED and CP_MED (median walls),
# PAIR_RATIO (the median of each pair's ratio: pairing keeps the ratio
# meaningful while the load of a shared machine drifts) and RC.
vs_cp() {
	_oo=$1 _src=$2 _co=$3 _fresh=$4; shift 4
	rm -f "$W/po.txt" "$W/pc.txt"
	if test "$_fresh" = 0; then	# something to write over
		"$@" >/dev/null 2>&1
		cp "$_src" "$_co"
	fi
	_i=0
	while test $_i -lt "${BENCH_PAIR_REPS:-7}"; do
		test "$_fresh" = 1 && rm -f "$_oo" "$_co"
		"$RUNSTAT" -r "$W/po.txt" -o /dev/null -e "$W/stderr.txt" -- "$@"
		"$RUNSTAT" -r "$W/pc.txt" -o /dev/null -e /dev/null -- cp "$_src" "$_co"
		_i=$((_i + 1))
	done
	OURS_MED=$(wall_median "$W/po.txt"); CP_MED=$(wall_median "$W/pc.txt")
	PAIR_RATIO=$(paste -d ' ' "$W/po.txt" "$W/pc.txt" |
		sed 's/^wall=\([^ ]*\).* wall=\([^ ]*\).*/\1 \2/' |
		awk '{ printf "%.6f\n", $1 / ($2 > 0 ? $2 : 1e-9) }' | sort -g |
		awk '{ a[NR] = $1 } END { printf "%.4g", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
	RC=$(sed 's/.*rc=\([0-9]*\).*/\1/' "$W/po.txt" | sort -n | tail -n 1)
}

# line NAME OURS PEER RATIO OP TARGET   (OP is >= or <=; TARGET "none": INFO)
line() {
	if test "$6" = none; then v=INFO
	elif awk -v r="$4" -v t="$6" -v op="$5" 'BEGIN { exit !(op == ">=" ? r + 0 >= t + 0 : r + 0 <= t + 0) }'
	then v=PASS; else v=MISS; fi
	if test "$6" = none; then
		echo "BENCH $1 $2 $3 ratio=$4 target=none $v"
	else
		echo "BENCH $1 $2 $3 ratio=$4 target=$5$6 $v"
	fi
}
skip() { echo "BENCH $1 - - ratio=- target=$2 SKIP ($3)"; }

echo "INFO date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "INFO machine: $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)," \
     "$(awk '/MemTotal/ { printf "%d MiB RAM", $2 / 1024 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "INFO perf: ${PERF:+$($PERF --version 2>&1)}; BENCH_SCALE=$SCALE BENCH_REPS=${BENCH_REPS:-5} BENCH_TOOL_REPS=$TREPS"

if part ring; then
# ---- ring-write, ring-read, nested-write --------------------------------
"$B/bench/ring-bench" || echo "BENCH ring-bench - - ratio=- target=- FAILED (exit $?)"

# ---- the freestanding core: its size, and its cost in the example kernel ----
# .text of lib/core built with CORE_CFLAGS (-O2 -ffreestanding ...): the
# writer (fs-ring.o) alone, and with the encoders (fs-records.o).
core_text() { size -A "$@" 2>/dev/null | awk '$1 ~ /^\.text/ { t += $2 } END { print t + 0 }'; }
if [ -f "$B/lib/core/fs-ring.o" ] && [ -f "$B/lib/core/fs-records.o" ]; then
	cw=$(core_text "$B/lib/core/fs-ring.o"); ce=$(core_text "$B/lib/core/fs-records.o")
	echo "INFO core-text writer=${cw}B writer+encoders=$((cw + ce))B" \
	     "($(uname -m), CORE_CFLAGS; target <= 16384 B together)"
fi
# Instructions per sampled tick in examples/kernel: QEMU's -icount shift=0
# advances the guest clock (and so its TSC) by 1 ns per instruction, and
# the kernel adds up the TSC spent in each tick's sampling (frame walk,
# SAMPLE encode, ring write) in its mailbox.
K=$B/examples/kernel/kernel.elf
if [ -f "$K" ] && command -v qemu-system-x86_64 >/dev/null 2>&1; then
	kt=$(mktemp -d)
	truncate -s 4M "$kt/ring"
	line=$(timeout 120 qemu-system-x86_64 -M pc -m 64 -display none -nodefaults -no-reboot \
		-icount shift=0 -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=4 \
		-object "memory-backend-file,id=shm,share=on,mem-path=$kt/ring,size=4M" \
		-device ivshmem-plain,memdev=shm -kernel "$K" -append "image=$K rounds=100" 2>/dev/null |
		grep 'kernel: done')
	rm -rf "$kt"
	n=$(echo "$line" | sed -n 's/.*, \([0-9]*\) TSC cycles per sample.*/\1/p')
	s=$(echo "$line" | sed -n 's/.*done, \([0-9]*\) samples.*/\1/p')
	[ -n "$n" ] && echo "INFO kernel-tick-instructions ${n} instructions per sampled tick" \
		"(examples/kernel under qemu -icount shift=0, $s samples: frame walk + SAMPLE encode + ring write)" ||
		echo "INFO kernel-tick-instructions - (the example kernel did not run under QEMU)"
else
	echo "INFO kernel-tick-instructions - (no examples/kernel/kernel.elf or no qemu-system-x86_64)"
fi

# ---- ring-write against LTTng-UST ---------------------------------------
# Built here, not by automake, so that nothing else depends on LTTng.
if pkg-config --exists lttng-ust 2>/dev/null && command -v lttng >/dev/null 2>&1; then
	${CC:-cc} -O2 -g -std=gnu11 -I"$HERE" -I"$SRC/include" -I"$B/include" \
		$(pkg-config --cflags glib-2.0 lttng-ust) -o "$B/bench/lttng-bench" \
		"$HERE/lttng-bench.c" -L"$B/lib/.libs" -lperfring \
		$(pkg-config --libs glib-2.0 lttng-ust) -ldl -pthread 2>"$W/lttng-cc.err" ||
		rm -f "$B/bench/lttng-bench"
fi
if test -x "$B/bench/lttng-bench" && command -v lttng >/dev/null 2>&1; then
	sh "$HERE/lttng-run.sh" "$B/bench/lttng-bench" "$W" ||
		{ skip ring-write-vs-lttng ">=15" "lttng session failed"
		  skip marker-vs-lttng ">=10" "lttng session failed"; }
else
	skip ring-write-vs-lttng ">=15" "LTTng-UST not installed: apt-get install liblttng-ust-dev lttng-tools"
	skip marker-vs-lttng ">=10" "LTTng-UST not installed: apt-get install liblttng-ust-dev lttng-tools"
fi
fi # part ring

if part marks; then
# ---- markers (include/perfring/marks.h) against a hand-made ring write and
# samply-style text lines ------------------------------------------------------
"$B/bench/marks-bench" || echo "BENCH marks-bench - - ratio=- target=- FAILED (exit $?)"
fi # part marks

if test -z "$PERF"; then
	echo "INFO perf not found: tool comparisons skipped"
	exit 0
fi

if part tools; then
# ---- a perf.data recorded with -g by perf record ------------------------
want=$(fint "100e6 * $SCALE")
secs=$(fcalc "6 * $SCALE + 1")
BIG=$W/perf-g.data
"$PERF" record -q -e cpu-clock -c 20000 -g -o "$BIG" -- "$B/bench/wl-bench" time "$secs" 2 \
	>/dev/null 2>"$W/rec.err"
size=$(stat -c %s "$BIG" 2>/dev/null || echo 0)
if test "$size" -lt "$want"; then
	secs=$(fcalc "$secs * 1.3 * $want / ($size + 1) + 1")
	"$PERF" record -q -e cpu-clock -c 20000 -g -o "$BIG" -- "$B/bench/wl-bench" time "$secs" 2 \
		>/dev/null 2>"$W/rec.err"
	size=$(stat -c %s "$BIG" 2>/dev/null || echo 0)
fi
echo "INFO perf.data: perf record -e cpu-clock -c 20000 -g, wl-bench 2 threads ${secs}s: $(mb "$size") MB"
# Written back before anything is timed: the kernel writes dirty pages back
# about 30 s later, and that writeback would take a CPU from whatever runs
# then (here it made perfring-dump --stats 30% slower in some runs).
sync "$BIG" 2>/dev/null || sync
cat "$BIG" > /dev/null

have_opt() { "$DUMP" --help 2>&1 | grep -q -- "$1"; }

# ---- dump-stats -----------------------------------------------------------
# Runs of 20-100 ms feel every hiccup of the machine: the three commands
# take turns, BENCH_STATS_REPS rounds (default 9), medians.
if have_opt --stats; then
	sreps=${BENCH_STATS_REPS:-9}
	rm -f "$W/st-ours.txt" "$W/st-perf.txt" "$W/st-cat.txt"
	i=0
	while test $i -lt "$sreps"; do
		"$RUNSTAT" -r "$W/st-ours.txt" -o /dev/null -e "$W/stderr.txt" -- "$DUMP" --stats "$BIG"
		"$RUNSTAT" -r "$W/st-perf.txt" -o /dev/null -e /dev/null -- "$PERF" report --stats -i "$BIG"
		"$RUNSTAT" -r "$W/st-cat.txt" -o /dev/null -e /dev/null -- cat "$BIG"
		i=$((i + 1))
	done
	ours=$(wall_median "$W/st-ours.txt"); peer=$(wall_median "$W/st-perf.txt")
	cat_t=$(wall_median "$W/st-cat.txt")
	ours_rc=$(sed 's/.*rc=\([0-9]*\).*/\1/' "$W/st-ours.txt" | sort -n | tail -n 1)
	echo "INFO dump-stats: $sreps rounds of perfring-dump --stats, perf report --stats, cat in turn; medians"
	test "$ours_rc" = 0 || echo "INFO perfring-dump --stats exit status $ours_rc"
	# Judged against the read limit (cat of the same file); perf report
	# --stats is itself only a few times cat here, so that ratio measures
	# perf and is printed as INFO.
	line dump-stats-vs-cat "${ours}s" "${cat_t}s(cat)" "$(fcalc "$ours / $cat_t")" "<=" 1.0
	line dump-stats-vs-perf-report "${ours}s" "${peer}s(perf-report--stats)" \
		"$(fcalc "$peer / $ours")" ">=" none
else
	skip dump-stats-vs-cat "<=1.0" "perfring-dump has no --stats yet"
fi

# ---- dump-text, dump-json ---------------------------------------------------
if have_opt --stats; then
	measure /dev/null "$DUMP" "$BIG"; ours=$MED; ours_rc=$RC
	measure /dev/null "$PERF" report -D -i "$BIG"; peer=$MED
	test "$ours_rc" = 0 || echo "INFO perfring-dump exit status $ours_rc"
	line dump-text-vs-perf-report-D "${ours}s" "${peer}s(perf-report-D)" \
		"$(fcalc "$peer / $ours")" ">=" 10
	if have_opt --json; then
		measure /dev/null "$DUMP" --json "$BIG"; ours=$MED
		line dump-json-vs-perf-report-D "${ours}s" "${peer}s(perf-report-D)" \
			"$(fcalc "$peer / $ours")" ">=" 5
	else
		skip dump-json-vs-perf-report-D ">=5" "perfring-dump has no --json yet"
	fi
else
	skip dump-text-vs-perf-report-D ">=10" "perfring-dump is not the full tool yet"
	skip dump-json-vs-perf-report-D ">=5" "perfring-dump is not the full tool yet"
fi

# ---- replay -----------------------------------------------------------------
RING=$W/in.ring
"$B/bench/mkring" "$RING" "$(fint "128 * 1048576 * $SCALE")" > "$W/mkring.out" || exit 2
rsize=$(stat -c %s "$RING")
sync "$RING" 2>/dev/null || sync
cat "$RING" > /dev/null
# Every timed run writes a new output file (FRESH): replacing an existing
# 134 MB file costs what the filesystem makes it cost (ext4 frees the old
# file's pages), for ours and the peers alike; the *-over-vs-cp-over lines
# give ours replacing its last output against cp replacing its last copy.
FRESH=$W/replay.data measure /dev/null "$REPLAY" -o "$W/replay.data" "$RING"; ours=$MED
if test "$RC" = 0; then
	FRESH=$W/inject.data measure /dev/null "$PERF" inject -i "$W/replay.data" -o "$W/inject.data"; peer=$MED
	# Against perf inject on the same input: both read the ring's replay
	# (a file-mode perf.data of the same records) and write a perf.data.
	FRESH=$W/replay2.data measure /dev/null "$REPLAY" -o "$W/replay2.data" "$W/replay.data"; same=$MED
	echo "INFO replay input: ring file $(mb "$rsize") MB ($(cat "$W/mkring.out")); perf inject and replay-vs-perf-inject read its replay ($(mb "$(stat -c %s "$W/replay.data")") MB)"
	line replay-vs-perf-inject "${same}s" "${peer}s(perf-inject)" "$(fcalc "$peer / $same")" ">=" 5
	line replay-ring-vs-perf-inject "${ours}s(ring)" "${peer}s(perf-inject)" "$(fcalc "$peer / $ours")" ">=" none
	# Against cp of the ring, in turn (vs_cp); then both over their last
	# output, as users rerun the same command.
	vs_cp "$W/replay.data" "$RING" "$W/copy.ring" 1 "$REPLAY" -o "$W/replay.data" "$RING"
	line replay-ring-vs-cp "${OURS_MED}s" "${CP_MED}s(cp)" "$PAIR_RATIO" "<=" 1.3
	vs_cp "$W/replay.data" "$RING" "$W/copy.ring" 0 "$REPLAY" -o "$W/replay.data" "$RING"
	line replay-ring-over-vs-cp-over "${OURS_MED}s" "${CP_MED}s(cp-over-existing)" \
		"$PAIR_RATIO" "<=" 1.3
else
	skip replay-vs-perf-inject ">=5" "perfring-replay exit status $RC"
fi
rm -f "$W/copy.ring" "$W"/replay.data* "$W"/replay2.data*
# A file-mode perf.data of the same order: the one perf recorded above.
FRESH=$W/replay.data measure /dev/null "$REPLAY" -o "$W/replay.data" "$BIG"; ours=$MED
if test "$RC" = 0; then
	echo "INFO replay input: perf.data (file mode) $(mb "$(stat -c %s "$BIG")") MB"
	vs_cp "$W/replay.data" "$BIG" "$W/copy.data" 1 "$REPLAY" -o "$W/replay.data" "$BIG"
	line replay-perfdata-vs-cp "${OURS_MED}s" "${CP_MED}s(cp)" "$PAIR_RATIO" "<=" 1.3
	vs_cp "$W/replay.data" "$BIG" "$W/copy.data" 0 "$REPLAY" -o "$W/replay.data" "$BIG"
	line replay-perfdata-over-vs-cp-over "${OURS_MED}s" "${CP_MED}s(cp-over-existing)" \
		"$PAIR_RATIO" "<=" 1.3
	# A filtered rewrite (issue 29): the middle half of the recording,
	# every side-band record kept; against cp of the whole file.
	vs_cp "$W/filter.data" "$BIG" "$W/copy.data" 1 \
		"$REPLAY" --time 25%-75% -o "$W/filter.data" "$BIG"
	fsize=$(stat -c %s "$W/filter.data" 2>/dev/null || echo 0)
	echo "INFO replay-filter: --time 25%-75% kept $(mb "$fsize") MB of $(mb "$(stat -c %s "$BIG")") MB (exit $RC)"
	line replay-filter-vs-cp "${OURS_MED}s" "${CP_MED}s(cp)" "$PAIR_RATIO" "<=" 1.3
	rm -f "$W/filter.data"
else
	skip replay-perfdata-vs-cp "<=1.3" "perfring-replay exit status $RC"
fi
rm -f "$W/copy.data"
rm -f "$W"/inject.data* "$W/copy.ring" "$W"/replay.data*

# ---- export: the -g perf.data as pprof, folded stacks, a flame graph --------
# Against perf report --stdio --no-children on the same file (what one
# reads a profile with without an exporter); peak RSS as the memory lines.
if test -x "$EXPORT"; then
	measure /dev/null "$PERF" report --stdio --no-children -i "$BIG"; peer=$MED
	for f in pprof folded svg; do
		FRESH=$W/export.out measure /dev/null "$EXPORT" -f $f -o "$W/export.out" "$BIG"
		test "$RC" = 0 || echo "INFO perfring-export -f $f exit status $RC"
		line export-$f-vs-perf-report "${MED}s" "${peer}s(perf-report--no-children)" \
			"$(fcalc "$MED / $peer")" "<=" 0.2
		line memory-export-$f "$((RSS / 1024))MB(${MED}s)" "$(mb "$size")MB(perf.data)" \
			"$((RSS / 1024))MB" "<=" 128
	done
	rm -f "$W/export.out"
else
	skip export-pprof-vs-perf-report "<=0.2" "no perfring-export"
fi
fi # part tools

if part record || part switch; then
# ---- record -----------------------------------------------------------------
iters=$(fint "300000 * $SCALE + 1000")
REC_OPTS="-e cpu-clock -F 20000 -g -m 8"
# Records lost: the sum of the counts in the LOST records (perf report
# --stats only counts the LOST records themselves; perf's closing
# LOST_SAMPLES record repeats the same drops, so it is not added).
lost_of() {
	"$DUMP" --check "$1" 2>/dev/null |
		sed -n 's/.* LOST records\{0,1\}: \([0-9]*\) records lost.*/\1/p' | awk '{ l += $1 } END { print l + 0 }'
}
# Interleaved runs (alone, perf record, perfring-record, alone, ...), so the
# load of the machine changes all three alike; the workload times itself.
med() { sort -g "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# At least 11 runs: a run's losses swing 0-2000 on a shared machine.
RREPS=${BENCH_RECORD_REPS:-11}
test "$RREPS" -ge "$TREPS" || RREPS=$TREPS
# record_cmp THREADS: the comparison with a workload of THREADS threads (2:
# every CPU busy, the profiler competes with the workload; 1: a CPU free
# for the profiler).
record_cmp() {
part record || return 0
thr=$1; sfx=${2:-}
rm -f "$W"/wl-*.txt "$W"/lost-*.txt "$W"/wall-*.txt "$W"/cpu-*.txt
i=0
while test $i -lt $RREPS; do
	WL_TIME_FILE="$W/wl-alone.txt" "$B/bench/wl-bench" work "$iters" $thr
	rm -f "$W/rs.txt"
	WL_TIME_FILE="$W/wl-perf.txt" "$RUNSTAT" -r "$W/rs.txt" -o /dev/null -e "$W/stderr.txt" -- \
		"$PERF" record -q $REC_OPTS -o "$W/rec-perf.data" -- "$B/bench/wl-bench" work "$iters" $thr
	sed 's/^wall=\([^ ]*\).*/\1/' "$W/rs.txt" >> "$W/wall-perf.txt"
	sed 's/.*cpu=//' "$W/rs.txt" >> "$W/cpu-perf.txt"
	lost_of "$W/rec-perf.data" >> "$W/lost-perf.txt"
	rm -f "$W/rs.txt"
	WL_TIME_FILE="$W/wl-ours.txt" "$RUNSTAT" -r "$W/rs.txt" -o /dev/null -e "$W/stderr.txt" -- \
		"$RECORD" $REC_OPTS -o "$W/rec-ours.data" -- "$B/bench/wl-bench" work "$iters" $thr
	sed 's/^wall=\([^ ]*\).*/\1/' "$W/rs.txt" >> "$W/wall-ours.txt"
	sed 's/.*cpu=//' "$W/rs.txt" >> "$W/cpu-ours.txt"
	ours_rc=$(sed 's/.*rc=\([0-9]*\).*/\1/' "$W/rs.txt")
	lost_of "$W/rec-ours.data" >> "$W/lost-ours.txt"
	i=$((i + 1))
done
alone=$(med "$W/wl-alone.txt")
peer=$(med "$W/wl-perf.txt"); peer_wall=$(med "$W/wall-perf.txt"); peer_lost=$(med "$W/lost-perf.txt")
ours=$(med "$W/wl-ours.txt"); ours_wall=$(med "$W/wall-ours.txt"); ours_lost=$(med "$W/lost-ours.txt")
echo "INFO record$sfx: $REC_OPTS, wl-bench work $iters $thr, $RREPS interleaved runs, medians (workload's own time): alone ${alone}s, under perf record ${peer}s (whole run ${peer_wall}s), under perfring-record ${ours}s (whole run ${ours_wall}s, exit $ours_rc)"
line record-slowdown$sfx "$(fcalc "$ours / $alone")x" "$(fcalc "$peer / $alone")x(perf-record)" \
	"$(fcalc "$ours / $peer")" "<=" 1.05
# CPU time of profiler + workload together: less sensitive to the load of
# a shared machine than the workload's wall time.
line record-cpu$sfx "$(med "$W/cpu-ours.txt")s" "$(med "$W/cpu-perf.txt")s(perf-record)" \
	"$(fcalc "$(med "$W/cpu-ours.txt") / $(med "$W/cpu-perf.txt")")" "<=" 1.05
line record-lost$sfx "${ours_lost}lost/run" "${peer_lost}lost/run(perf-record)" \
	"$(fcalc "($ours_lost + 1) / ($peer_lost + 1)")" "<=" 1
}
record_cmp 2
record_cmp 1 -1thread
# DWARF callchains: 8 KiB of stack per sample (32 MB/s per busy CPU at the
# default 4000 Hz) into the default rings, a third of the work.
REC_OPTS_SAVE=$REC_OPTS; ITERS_SAVE=$iters
REC_OPTS="-e cpu-clock --call-graph dwarf"; iters=$(fint "$iters / 3")
record_cmp 2 -dwarf
REC_OPTS=$REC_OPTS_SAVE; iters=$ITERS_SAVE

if part switch; then
# --switch-output (issue 29): the same recording cut into chunks every
# 0.25 s (4 or more switches a run: side-band table, new writer, JIT scan
# of each chunk) against one that is not cut; interleaved runs, medians.
rm -f "$W"/wl-*.txt "$W"/cpu-*.txt "$W"/lost-*.txt
rm -rf "$W/sw"
# the records the kernel lost, from perfring-record's summary line
sum_lost() { sed -n 's/^perfring-record: [0-9]* samples, [0-9]* records, \([0-9]*\) lost.*/\1/p' "$1"; }
i=0
while test $i -lt $RREPS; do
	rm -f "$W/rs.txt" "$W/plain.err" "$W/sw.err"
	WL_TIME_FILE="$W/wl-plain.txt" "$RUNSTAT" -r "$W/rs.txt" -o /dev/null -e "$W/plain.err" -- \
		"$RECORD" $REC_OPTS -o "$W/rec-plain.data" -- "$B/bench/wl-bench" work "$iters" 2
	sed 's/.*cpu=//' "$W/rs.txt" >> "$W/cpu-plain.txt"
	sum_lost "$W/plain.err" >> "$W/lost-plain.txt"
	mkdir "$W/sw"
	rm -f "$W/rs.txt"
	WL_TIME_FILE="$W/wl-switch.txt" "$RUNSTAT" -r "$W/rs.txt" -o /dev/null -e "$W/sw.err" -- \
		"$RECORD" $REC_OPTS --switch-output=0.25s -o "$W/sw/perf.data" -- \
		"$B/bench/wl-bench" work "$iters" 2
	sed 's/.*cpu=//' "$W/rs.txt" >> "$W/cpu-switch.txt"
	sw_rc=$(sed 's/.*rc=\([0-9]*\).*/\1/' "$W/rs.txt")
	sw_n=$(grep -c 'chunk [0-9]* complete' "$W/sw.err")
	sum_lost "$W/sw.err" >> "$W/lost-switch.txt"
	rm -rf "$W/sw"
	i=$((i + 1))
done
plain=$(med "$W/wl-plain.txt"); sw=$(med "$W/wl-switch.txt")
echo "INFO record-switch: $REC_OPTS, wl-bench work $iters 2, $RREPS interleaved runs, medians (workload's own time): under perfring-record ${plain}s, under perfring-record --switch-output=0.25s ${sw}s ($sw_n chunks in the last run, exit $sw_rc)"
line record-switch-slowdown "${sw}s" "${plain}s(no-switch)" "$(fcalc "$sw / $plain")" "<=" 1.05
line record-switch-cpu "$(med "$W/cpu-switch.txt")s" "$(med "$W/cpu-plain.txt")s(no-switch)" \
	"$(fcalc "$(med "$W/cpu-switch.txt") / $(med "$W/cpu-plain.txt")")" "<=" 1.05
sw_lost=$(med "$W/lost-switch.txt"); plain_lost=$(med "$W/lost-plain.txt")
# The kernel's losses swing from run to run with the scheduling of 2 busy
# threads and the reader on 2 CPUs: every run's count, to read the median by.
echo "INFO record-switch-lost: each run's lost records, sorted: no-switch" \
     "$(sort -n "$W/lost-plain.txt" | tr '\n' ' ')/ switch $(sort -n "$W/lost-switch.txt" | tr '\n' ' ')"
line record-switch-lost "${sw_lost}lost/run" "${plain_lost}lost/run(no-switch)" \
	"$(fcalc "($sw_lost + 1) / ($plain_lost + 1)")" "<=" 1
# Disk per hour of a fixed workload (wl-bench, 2 threads, -F 999 -g) cut
# every second: what it writes, and what --switch-max-files=3 keeps.
dsecs=$(fcalc "6 * $SCALE + 3")
mkdir "$W/sw"
"$RECORD" -e cpu-clock -F 999 -g --switch-output=1s --switch-max-files=3 -o "$W/sw/perf.data" \
	-- "$B/bench/wl-bench" time "$dsecs" 2 2>"$W/sw.err"
kept=$(cat "$W"/sw/perf.data.* 2>/dev/null | wc -c)
sed -n 's/^perfring-record: chunk [0-9]* complete: .*, \([0-9.]*\) MB$/\1/p' "$W/sw.err" >"$W/sw.sizes"
written=$(awk '{ t += $1 } END { print t + 0 }' "$W/sw.sizes")
most=$(awk '{ a[NR] = $1 } END { for (i = 3; i <= NR; i++) { s = a[i] + a[i - 1] + a[i - 2]; if (s > m) m = s } print m + 0 }' "$W/sw.sizes")
echo "INFO record-switch-disk: -e cpu-clock -F 999 -g, wl-bench time ${dsecs}s 2, --switch-output=1s: $(fcalc "$written / $dsecs * 3600") MB/hour written;" \
     "--switch-max-files=3 holds at most $(fcalc "$most") MB (3 chunks; $(mb "$kept") MB left at the end, $(grep -c 'removed the oldest' "$W/sw.err") removals logged)"
rm -rf "$W/sw"
fi # part switch

if part record; then
# Lost records under a side-band storm (fork + exit + exec mmap per
# iteration) into a small ring, same event, frequency and ring size.
storm_iters=$(fint "20000 * $SCALE + 500")
STORM_OPTS="-e cpu-clock -F 1000 -m 1"
rm -f "$W"/lost-*.txt
i=0
while test $i -lt $RREPS; do
	"$PERF" record -q $STORM_OPTS -o "$W/storm-perf.data" -- "$B/bench/wl-bench" storm "$storm_iters" \
		>/dev/null 2>&1
	lost_of "$W/storm-perf.data" >> "$W/lost-perf.txt"
	"$RECORD" $STORM_OPTS -o "$W/storm-ours.data" -- "$B/bench/wl-bench" storm "$storm_iters" \
		>/dev/null 2>&1
	lost_of "$W/storm-ours.data" >> "$W/lost-ours.txt"
	i=$((i + 1))
done
peer_lost=$(med "$W/lost-perf.txt"); ours_lost=$(med "$W/lost-ours.txt")
fork_n=$("$PERF" report --stats -i "$W/storm-ours.data" 2>/dev/null | awk '/^ *FORK events:/ { print $3 }')
echo "INFO record-storm: $STORM_OPTS, wl-bench storm $storm_iters (FORK+EXIT+MMAP2 each), $RREPS runs, median lost records; last run of ours kept ${fork_n:-?} FORK records"
line record-lost-storm "${ours_lost}lost/run" "${peer_lost}lost/run(perf-record)" \
	"$(fcalc "($ours_lost + 1) / ($peer_lost + 1)")" "<=" 1
TREPS_SAVE=$TREPS; TREPS=$((TREPS < 5 ? 5 : TREPS))
measure /dev/null "$RECORD" -o "$W/true-ours.data" -- true; ours=$MED
measure /dev/null "$PERF" record -q -o "$W/true-perf.data" -- true; peer=$MED
TREPS=$TREPS_SAVE
line record-true "$(fcalc "$ours * 1000")ms" "$(fcalc "$peer * 1000")ms(perf-record)" \
	"$(fcalc "$ours * 1000")ms" "<=" 50
fi
rm -f "$W"/rec-*.data* "$W"/true-*.data*
fi # part record, switch

if part memory; then
# ---- memory: peak RSS on a 1 GB input ----------------------------------------
TREPS_SAVE=$TREPS; TREPS=1
GRING=$W/big.ring
"$B/bench/mkring" "$GRING" "$(fint "1024 * 1048576 * $SCALE")" > "$W/mkring.out" || exit 2
echo "INFO memory input: ring $(mb "$(stat -c %s "$GRING")") MB; its replay is the perf.data input"
measure /dev/null "$REPLAY" -o "$W/big.data" "$GRING"; rep_rss=$RSS; rep_t=$MED
rm -f "$GRING"
dsize=$(stat -c %s "$W/big.data" 2>/dev/null || echo 0)
measure /dev/null "$PERF" report --stats -i "$W/big.data"; perf_rss=$RSS; perf_t=$MED
line memory-replay "$((rep_rss / 1024))MB(${rep_t}s)" "$((perf_rss / 1024))MB(perf-report--stats)" \
	"$((rep_rss / 1024))MB" "<" 64
if have_opt --stats; then
	measure /dev/null "$DUMP" --stats "$W/big.data"
	line memory-dump-stats "$((RSS / 1024))MB(${MED}s)" "$((perf_rss / 1024))MB(perf-report--stats)" \
		"$((RSS / 1024))MB" "<" 64
	measure /dev/null "$DUMP" "$W/big.data"
	line memory-dump-text "$((RSS / 1024))MB(${MED}s)" "$((perf_rss / 1024))MB(perf-report--stats)" \
		"$((RSS / 1024))MB" "<" 64
else
	skip memory-dump ">=64MB" "perfring-dump is not the full tool yet"
fi
echo "INFO memory: perf.data $(mb "$dsize") MB; perf report --stats ${perf_t}s"
TREPS=$TREPS_SAVE
fi # part memory

# JIT symbols: perfring-replay --jit against perf inject --jit
. "$SRC/bench/jit-bench.sh"

echo "INFO bench took $(( $(date +%s) - T0 ))s"
test "${BENCH_KEEP:-0}" = 1 || rm -rf "$W"
