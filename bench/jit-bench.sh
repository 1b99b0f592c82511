# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by run-bench.sh: perfring-replay --jit against perf inject --jit
# on one `perf record -k mono` recording of examples/jit/tinyjit with N
# 64-byte functions (N = 20,000 and 100,000, times BENCH_SCALE).  Both run
# with HOME in the work folder so that ~/.debug can be counted.
#   jit-speed-N    wall time, median of BENCH_TOOL_REPS (inject: once when slow)
#   jit-files-N    new files and ~/.debug entries of ours (target <= 3)
#   jit-memory-N   our peak RSS (target <= 64 MB)
#   jit-shares-N   hot_fn_3's share, ours and inject's (INFO)
TINYJIT=$B/examples/jit/tinyjit
test -x "$B/examples/jit/.libs/tinyjit" && TINYJIT=$B/examples/jit/.libs/tinyjit
# count_entries DIR: files and folders under DIR (0 if absent)
count_entries() { if test -d "$1"; then find "$1" | wc -l; else echo 0; fi; }
jit_share() {
	"$PERF" report -i "$1" --stdio --sort sym -q 2>/dev/null |
		awk '$3 == "hot_fn_3" { sub("%", "", $1); print $1; exit }'
}
for n0 in 20000 100000; do
	n=$(fint "$n0 * $SCALE")
	target=50
	test "$n0" = 100000 && target=100
	if test -z "$PERF" || ! test -x "$TINYJIT"; then
		skip "jit-speed-$n" ">=$target" "no perf or tinyjit"
		continue
	fi
	J=$W/jit-$n
	mkdir -p "$J/home"
	if ! (cd "$J" && HOME=$J/home "$PERF" record -k mono -e cpu-clock -q -o perf.data -- \
		"$TINYJIT" -n "$n" -t 300 >/dev/null 2>&1); then
		skip "jit-speed-$n" ">=$target" "perf record -k mono failed"
		continue
	fi
	before=$(ls "$J" | wc -l)
	dbg0=$(count_entries "$J/home/.debug")
	HOME_SAVE=$HOME
	HOME=$J/home
	export HOME
	measure /dev/null "$REPLAY" --jit -o "$J/out.data" "$J/perf.data"
	ours_t=$MED ours_rss=$RSS ours_rc=$RC
	files=$(( $(ls "$J" | wc -l) - before ))
	dbg=$(( $(count_entries "$J/home/.debug") - dbg0 ))
	TREPS_JIT=$TREPS
	TREPS=1
	(cd "$J" && measure /dev/null "$PERF" inject --jit -i perf.data -o inj.data
	 echo "$MED $(ls "$J" | grep -c '^jitted-')" >"$J/inj.txt")
	TREPS=$TREPS_JIT
	HOME=$HOME_SAVE
	read -r inj_t inj_files <"$J/inj.txt"
	inj_dbg=$(( $(count_entries "$J/home/.debug") - dbg0 - dbg ))
	if test "$ours_rc" != 0; then
		skip "jit-speed-$n" ">=$target" "perfring-replay --jit exited $ours_rc"
		continue
	fi
	line "jit-speed-$n" "${ours_t}s" "${inj_t}s(perf-inject--jit)" \
		"$(fcalc "$inj_t / $ours_t")" ">=" "$target"
	line "jit-files-$n" "$((files + dbg))files" "$((inj_files + inj_dbg))files(perf-inject--jit)" \
		"$((files + dbg))" "<=" 3
	line "jit-memory-$n" "$((ours_rss / 1024))MB" "-" "$((ours_rss / 1024))MB" "<=" 64
	line "jit-shares-$n" "$(jit_share "$J/out.data")%" "$(jit_share "$J/inj.data")%(perf-inject--jit)" \
		"-" "" none
	echo "INFO jit-$n: ours: $files new files, $dbg ~/.debug entries; inject: $inj_files" \
	     "jitted-*.so, $inj_dbg ~/.debug entries; ELF $(mb "$(stat -c %s "$J"/out.data.jit-*.so)") MB"
	rm -rf "$J"
done
