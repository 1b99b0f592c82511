#!/bin/sh
# perfring-record --switch-output and --switch-max-files (issue 29):
#  - a multi-process workload (two long-lived processes started before the
#    first switch, short ones forked all along) cut every second: each
#    chunk opens alone in perf, and every chunk resolves the same share of
#    its samples to a symbol as the first, within 1 point;
#  - nothing lost or doubled at a switch: the chunks' samples add up to the
#    summary line, no (tid, time) is in two chunks, and perfring-replay
#    merging the chunks gives back exactly their sample set, with as many
#    samples and the same profile as the workload recorded without
#    switching;
#    (a last chunk without samples, when the workload ends just after a
#    switch, is allowed)
#  - JIT code loaded before a chunk: tinyjit cut every second, every chunk
#    has its own ELF and names the hot functions; --switch-max-files
#    removes a chunk's ELF with it;
#  - by size: every chunk but the last holds the size asked for;
#  - SIGUSR2 switches on demand;
#  - --switch-max-files=2: never more than 2 chunks on disk, the oldest
#    removed first, each removal logged;
#  - a full filesystem during a switch (a tmpfs, when mount works): exit 1,
#    the error names the file, the chunks already written stay complete,
#    no temporary is left, and the samples not written are counted;
#  - bad values: usage errors.
# Skips (77) only without perf or perf_event_open.
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open

summary_samples() {	# ERR-FILE: N from "perfring-record: N samples, ..."
	sed -n 's/^perfring-record: \([0-9][0-9]*\) samples, .*/\1/p' "$1"
}
chunk_samples() {	# ERR-FILE: the sum of "chunk K complete: FILE, N samples, M MB"
	sed -n 's/^perfring-record: chunk [0-9]* complete: [^,]*, \([0-9]*\) samples, .*/\1/p' "$1" |
		awk '{ t += $1 } END { print t + 0 }'
}
chunks() {		# DIR: the chunk files, oldest first (the names sort by time)
	ls "$1" | grep -E '^perf\.data\.[0-9]{16}(-[0-9]+)?$' | sort
}
# resolved DATA: percent (one decimal) of the samples whose symbol perf resolves
resolved() {
	"$PERF" script -i "$1" -F ip,sym 2>/dev/null |
		awk '{ n++; if ($2 == "[unknown]" || NF < 2) u++ }
		     END { if (n) printf "%.1f\n", 100 * (n - u) / n; else print 0 }'
}
# WORK SECONDS: fixed work, about SECONDS on two idle CPUs: two wl-busy of
# SECONDS of CPU each, 8 x SECONDS short ones (0.05 s) forked meanwhile
work() {
	cat >"$W/work.sh" <<EOF
"$WL/wl-busy" $1 & "$WL/wl-busy" $1 &
i=0
while [ \$i -lt $(($1 * 8)) ]; do "$WL/wl-busy" 0.05; i=\$((i + 1)); done
wait
EOF
}

# 1. cut every second: each chunk alone, the same resolved share
mkdir "$W/a"
work 4
(cd "$W/a" && "$REC" -e cpu-clock -F 999 --switch-output=1s -- sh "$W/work.sh") 2>"$W/a.err"
rc=$?
cat "$W/a.err"
status "switch every 1s: exit status" 0 $rc
n=$(chunks "$W/a" | wc -l)
[ "$n" -ge 4 ] && ok "switch every 1s: $n chunks" || bad "switch every 1s: only $n chunks"
dir_is "no temporary left" "$W/a" "$(chunks "$W/a" | tr '\n' ' ')"
first=
worst=0
total=0
last=$(chunks "$W/a" | tail -n 1)
for c in $(chunks "$W/a"); do
	s=$("$PERF" script -i "$W/a/$c" -F ip 2>/dev/null | wc -l)
	# the workload may end just after a switch: a last chunk without samples
	if [ "$s" -eq 0 ] && [ "$c" = "$last" ]; then
		echo "# $c: no samples (the last chunk)"
		continue
	fi
	"$PERF" report -i "$W/a/$c" --stdio >/dev/null 2>"$W/rep.err"
	[ -s "$W/rep.err" ] && bad "$c: perf report warned: $(cat "$W/rep.err")"
	r=$(resolved "$W/a/$c")
	total=$((total + s))
	echo "# $c: $s samples, $r% resolved"
	if [ -z "$first" ]; then first=$r; continue; fi
	d=$(echo "$first $r" | awk '{ d = $1 - $2; if (d < 0) d = -d; printf "%.1f\n", d }')
	worst=$(echo "$worst $d" | awk '{ print ($2 > $1) ? $2 : $1 }')
done
echo "# first chunk $first% resolved; the others differ by at most $worst points"
awk -v w="$worst" -v f="$first" 'BEGIN { exit !(w <= 1 && f >= 80) }' &&
	ok "every chunk resolves as the first ($first%, within $worst points)" ||
	bad "chunks resolve differently: first $first%, worst difference $worst points"

# 2. nothing lost or doubled
sum=$(summary_samples "$W/a.err")
logged=$(chunk_samples "$W/a.err")
[ "$sum" = "$logged" ] && [ "$sum" = "$total" ] &&
	ok "the chunks' samples add up to the summary ($sum)" ||
	bad "summary $sum samples, chunks logged $logged, perf script read $total"
for c in $(chunks "$W/a"); do
	"$PERF" script -i "$W/a/$c" -F tid,time,ip 2>/dev/null
done | sort >"$W/a.samples"
dups=$(uniq -d "$W/a.samples" | wc -l)
[ "$dups" -eq 0 ] && ok "no sample in two chunks" || bad "$dups samples in two chunks"
set -- $(chunks "$W/a")
(cd "$W/a" && "$REPLAY" -o "$W/merged.data" "$@") 2>"$W/m.err"
status "perfring-replay merges the chunks" 0 $?
"$PERF" script -i "$W/merged.data" -F tid,time,ip 2>/dev/null | sort >"$W/m.samples"
same "the merged chunks are the chunks' sample set" "$W/a.samples" "$W/m.samples"
# against the same workload (fixed work) recorded without switching
(cd "$W" && "$REC" -e cpu-clock -F 999 -o plain.data -- sh "$W/work.sh") 2>"$W/p.err"
np=$(summary_samples "$W/p.err")
hm=$(share "$W/merged.data" hot_function); hp=$(share "$W/plain.data" hot_function)
echo "# merged chunks: $sum samples, hot_function $hm%; without switching: $np samples, $hp%"
awk -v a="$sum" -v b="$np" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05 * b) }' &&
	ok "as many samples as without switching (within 5%)" ||
	bad "merged chunks $sum samples, without switching $np"
# (kernel time moves a few points with the load of the machine)
within "$hm" "$hp" 5 && ok "the same profile as without switching (hot_function within 5 points)" || {
	bad "hot_function: merged chunks $hm%, without switching $hp%"
	for f in merged plain; do
		"$PERF" report -i "$W/$f.data" --stdio --sort comm,dso,sym -q 2>/dev/null | head -n 8
	done
}

# 2b. JIT code loaded in the first chunk, resolved in every chunk
mkdir "$W/j"
(cd "$W/j" && "$REC" -e cpu-clock -F 999 --switch-output=1s --switch-max-files=3 \
	-- "$TINYJIT" -n 256 -t 3500) 2>"$W/j.err"
status "JIT: exit status" 0 $?
n=0
for c in $(chunks "$W/j"); do
	[ -f "$W/j/$c.jit-"*.so ] || bad "JIT: $c has no ELF"
	t=0
	for f in hot_fn_0 hot_fn_1 hot_fn_2 hot_fn_3; do
		t=$(awk -v t="$t" -v a="$(share "$W/j/$c" $f)" 'BEGIN { print t + a }')
	done
	echo "# $c: the hot functions have $t% of the samples"
	at_least "$t" 75 && n=$((n + 1)) || bad "JIT: $c: the hot functions have only $t%"
done
[ "$n" -eq 3 ] && ok "JIT: the 3 chunks kept resolve the hot functions" ||
	bad "JIT: $n chunks resolve: $(ls "$W/j")"
[ "$(ls "$W/j" | grep -c '\.jit-.*\.so$')" -eq 3 ] &&
	ok "JIT: the removed chunks' ELFs are gone" || bad "JIT: ELFs left: $(ls "$W/j")"

# 2c. by size: every 16 KiB of records
mkdir "$W/z"
(cd "$W/z" && "$REC" -e cpu-clock -F 999 --switch-output=16K -- "$WL/wl-busy" 1.5) 2>"$W/z.err"
status "--switch-output=16K: exit status" 0 $?
set -- $(chunks "$W/z")
n=$#
small=0
while [ $# -gt 1 ]; do
	[ "$(stat -c %s "$W/z/$1")" -ge 16384 ] || small=$((small + 1))
	shift
done
[ "$n" -ge 3 ] && [ "$small" -eq 0 ] && ok "--switch-output=16K: $n chunks, each but the last above 16 KiB" ||
	bad "--switch-output=16K: $n chunks, $small of them below 16 KiB: $(ls -l "$W/z")"

# 3. SIGUSR2: two switches on demand (the default mode: signal only)
mkdir "$W/u"
(cd "$W/u" && exec "$REC" -e cpu-clock -F 999 --switch-output -- "$WL/wl-busy" 2) 2>"$W/u.err" &
bg=$!
for i in 1 2; do
	sleep 0.5
	kill -USR2 $bg
done
wait $bg
status "SIGUSR2: exit status" 0 $?
bg=
n=$(chunks "$W/u" | wc -l)
[ "$n" -eq 3 ] && ok "SIGUSR2 twice: 3 chunks" || bad "SIGUSR2 twice: $n chunks: $(cat "$W/u.err")"

# 4. --switch-max-files=2, watched while it runs
mkdir "$W/m"
work 2
(cd "$W/m" && exec "$REC" -e cpu-clock -F 999 --switch-output=0.5s --switch-max-files=2 \
	-- sh "$W/work.sh") 2>"$W/mx.err" &
bg=$!
most=0
while kill -0 $bg 2>/dev/null; do
	k=$(ls "$W/m" | grep -c '^perf\.data\.')	# temporaries count too
	[ "$k" -gt "$most" ] && most=$k
	sleep 0.05
done
wait $bg
status "--switch-max-files: exit status" 0 $?
bg=
cat "$W/mx.err"
[ "$most" -le 2 ] && ok "at most 2 chunks on disk at any time (seen $most)" ||
	bad "$most chunks on disk at once"
[ "$(chunks "$W/m" | wc -l)" -eq 2 ] && ok "2 chunks left" || bad "left: $(ls "$W/m")"
made=$(grep -c "chunk [0-9]* complete" "$W/mx.err")
gone=$(grep -c "^perfring-record: removed the oldest chunk" "$W/mx.err")
[ "$gone" -eq $((made - 2)) ] && ok "$gone removals logged for $made chunks" ||
	bad "$gone removals logged for $made chunks"
sed -n 's/^perfring-record: chunk [0-9]* complete: \([^,]*\),.*/\1/p' "$W/mx.err" | head -n "$gone" >"$W/made"
sed -n 's/^perfring-record: removed the oldest chunk \([^ ]*\) .*/\1/p' "$W/mx.err" >"$W/gone"
same "the oldest removed first" "$W/made" "$W/gone"

# 5. a full filesystem at a switch
M="$W/small"
mkdir "$M"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=200k tmpfs "$M" 2>/dev/null; then
	umount_at_exit=$M
	(cd "$M" && exec timeout 60 "$REC" -e cpu-clock -F 999 --switch-output=1s \
		-- "$WL/wl-busy" 6) 2>"$W/f.err"
	rc=$?
	cat "$W/f.err"
	[ $rc -eq 1 ] && ok "full filesystem: exit 1" || bad "full filesystem: exit $rc"
	has "full filesystem: the error names the file" "$W/f.err" \
		"^perfring-record: perf\.data\.[0-9]{16}.*: .*No space left on device"
	has "full filesystem: the samples not written are counted" "$W/f.err" \
		"^perfring-record: warning: [1-9][0-9]* of the [0-9]* samples were not written"
	dir_is "full filesystem: complete chunks only, no temporary" "$M" \
		"$(chunks "$M" | tr '\n' ' ')"
	n=0
	for c in $(chunks "$M"); do
		want=$(sed -n "s/^perfring-record: chunk [0-9]* complete: $c, \([0-9]*\) samples, .*/\1/p" "$W/f.err")
		got=$("$PERF" script -i "$M/$c" -F ip 2>"$W/s.err" | wc -l)
		[ "$want" = "$got" ] && [ ! -s "$W/s.err" ] && n=$((n + 1)) ||
			bad "full filesystem: $c: $got samples read, $want written: $(cat "$W/s.err")"
	done
	[ "$n" -ge 1 ] && ok "full filesystem: the $n chunks written read back whole" ||
		bad "full filesystem: no chunk was written before the disk filled"
else
	echo "# full filesystem case not run: cannot mount a tmpfs (needs root)"
fi

# 6. usage
for v in "=bogus" "=10" "=5x" "=0s" "=1K"; do
	"$REC" --switch-output$v -- true 2>"$W/e.err"
	status "--switch-output$v: usage error" 2 $?
done
has "--switch-output=bogus: the value is named" "$W/e.err" "1K|switch-output"
"$REC" --switch-max-files=3 -- true 2>"$W/e.err"
status "--switch-max-files without --switch-output" 2 $?
"$REC" --switch-output --stat -- true 2>"$W/e.err"
status "--switch-output with --stat" 2 $?
"$REC" --switch-output -o - -- true >/dev/null 2>"$W/e.err"
status "--switch-output with a pipe" 2 $?
finish
