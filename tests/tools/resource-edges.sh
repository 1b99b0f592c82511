#!/bin/sh
# Resource edges through the tools:
#  - MMAP2 filenames of PATH_MAX-1 (4095) bytes and a 65528-byte MMAP2
#    record (the largest a u16 size holds) through the whole chain: JSON ->
#    perfring-replay --ring (ring write) -> perfring-replay (ring read, the
#    perf.data writer) -> perfring-dump (perf.data reader), and again
#    perf.data -> perfring-replay -> perf.data;
#  - comm names of 15 bytes (kept), 16 and 100 bytes (refused by the JSON
#    encoder with a message; the kernel never writes more than 15), and a
#    100-byte comm spliced into a perf.data (displayed whole, copied);
#  - 10^6 COMMs and samples for distinct pids: replay and dump in bounded
#    time (timeout) and memory (max RSS < 200 MB, where /usr/bin/time
#    exists; 1 GiB in an ASan build).
#    HARDENING_PIDS=N sets the count (default: 10^6 times PERFRING_TEST_SCALE).
. "$top_srcdir/tests/testlib.sh"
use_build_plugins
ATTR='{"type":"ATTR","attr":{"type":1,"size":128,"config":1,"sample_period":1000,"sample_type":["IP","TID","TIME"],"mmap":true,"comm":true,"task":true,"sample_id_all":true,"mmap2":true},"ids":[7],"name":"task-clock"}'
# name N CHAR: a path of N bytes
name() { printf '/%s' "$(head -c $(($1 - 1)) /dev/zero | tr '\0' "$2")"; }
mmap2() {
	printf '{"type":"MMAP2","misc":2,"pid":5,"tid":5,"addr":"0x1000","len":"0x1000","pgoff":"0x0","maj":1,"min":0,"ino":3,"ino_generation":0,"prot":5,"flags":2,"filename":"%s","sample_id":{"pid":5,"tid":5,"time":%d}}\n' "$1" "$2"
}
comm() {
	printf '{"type":"COMM","misc":0,"pid":5,"tid":5,"comm":"%s","exec":false,"sample_id":{"pid":5,"tid":5,"time":%d}}\n' "$1" "$2"
}
pmax=$(name 4095 a)
# 72 bytes of MMAP2 fields, 16 of sample_id: 65440 for the padded name
huge=$(name 65439 b)
{ echo "$ATTR"; comm 123456789012345 1; mmap2 "$pmax" 2; mmap2 "$huge" 3; } > "$W/in.json"

"$REPLAY" --json-in "$W/in.json" --ring "$W/e.ring" 2>"$W/err"
status "JSON -> ring" 0 $?
timeout 30 "$REPLAY" -o "$W/e.data" "$W/e.ring" 2>"$W/err"
status "ring -> perf.data" 0 $?
timeout 30 "$REPLAY" -o "$W/e2.data" "$W/e.data" 2>"$W/err"
status "perf.data -> perf.data" 0 $?
for f in e.ring e.data e2.data; do
	timeout 30 "$DUMP" --json "$W/$f" > "$W/$f.json" 2>"$W/err"
	status "dump $f" 0 $?
	sed -n 's/.*"filename":"\([^"]*\)".*/\1/p' "$W/$f.json" | grep -v kallsyms > "$W/names"
	printf '%s\n%s\n' "$pmax" "$huge" | cmp -s - "$W/names" &&
		ok "$f: the 4095-byte and 65439-byte filenames intact" ||
		bad "$f: filenames: $(awk '{ print length($0) }' "$W/names" | tr '\n' ' ')"
	has "$f: the 15-byte comm" "$W/$f.json" '"comm":"123456789012345"'
done
# the record sizes, from the offsets of the text dump
"$DUMP" "$W/e.data" > "$W/e.txt"
printf '0x%x\n' $(( $(u64 "$W/e.data" 40) + $(u64 "$W/e.data" 48) )) >> "$W/e.txt"	# data end
sizes=$(awk '{ o = $1; sub(/^0x/, "", o); v = 0
	for (i = 1; i <= length(o); i++) v = v * 16 + index("0123456789abcdef", substr(o, i, 1)) - 1
	if (NR > 1) printf "%d ", v - prev; prev = v }' "$W/e.txt")
case " $sizes" in
*" 4184 65528"*) ok "record sizes $sizes: a 4184-byte and a 65528-byte MMAP2" ;;
*) bad "record sizes: $sizes (expected 4184 then 65528)" ;;
esac
# one byte more does not fit a record: a clear message
{ echo "$ATTR"; mmap2 "$(name 65447 c)" 4; } > "$W/over.json"
"$REPLAY" --json-in "$W/over.json" -o "$W/over.data" 2>"$W/err"
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 124 ] && ok "a 65536-byte MMAP2: exit $rc" || bad "a 65536-byte MMAP2: exit $rc"
has "a 65536-byte MMAP2: says why" "$W/err" "^perfring-replay: $W/over.json: line 2: "

# comm names: 16 and 100 bytes are refused with a message naming the line
{ echo "$ATTR"; comm 1234567890123456 1; comm "$(head -c 100 /dev/zero | tr '\0' c)" 2; comm ok 3; } > "$W/c.json"
"$REPLAY" --json-in "$W/c.json" -o "$W/c.data" 2>"$W/err"
status "16- and 100-byte comms" 1 $?
has "16-byte comm: line 2" "$W/err" 'line 2: field "comm": expected at most 15 bytes'
has "100-byte comm: line 3" "$W/err" 'line 3: field "comm": expected at most 15 bytes'
"$DUMP" "$W/c.data" > "$W/c.txt"
has "the valid comm after them is written" "$W/c.txt" "COMM ok:5/5"

# a 100-byte comm as no kernel writes it, spliced into a pipe-mode perf.data
# in place of a 15-byte one: still decoded and displayed, and copied by replay
{ echo "$ATTR"; comm abcdefghijklmno 1
  echo '{"type":"SAMPLE","misc":2,"ip":"0x401000","pid":5,"tid":5,"time":2}'; } > "$W/p.json"
"$REPLAY" --json-in "$W/p.json" -o - > "$W/p.data"
off=$(( $("$DUMP" "$W/p.data" | grep " COMM " | cut -d" " -f1) ))
c100=$(head -c 100 /dev/zero | tr '\0' c)
{ head -c $off "$W/p.data"
  printf '\003\000\000\000\000\000\210\000'		# COMM, 136 bytes
  tail -c +$((off + 9)) "$W/p.data" | head -c 8		# pid, tid
  printf '%s\000\000\000\000' "$c100"
  tail -c +$((off + 33)) "$W/p.data" | head -c 16	# sample_id
  tail -c +$((off + 49)) "$W/p.data"; } > "$W/p100.data"
"$DUMP" "$W/p100.data" > "$W/p100.txt" 2>"$W/err"
status "a 100-byte comm: dump" 0 $?
has "a 100-byte comm: displayed whole" "$W/p100.txt" "COMM $c100:5/5\$"
has "a 100-byte comm: the sample after it" "$W/p100.txt" "SAMPLE ip 0x401000"
"$REPLAY" -o "$W/r100.data" "$W/p100.data" 2>"$W/err"
status "a 100-byte comm: replay" 0 $?
"$DUMP" "$W/r100.data" > "$W/r100.txt"
has "a 100-byte comm: copied by replay" "$W/r100.txt" "COMM $c100:5/5\$"

# 10^6 distinct pids, from a pipe: time and memory bounded
N=${HARDENING_PIDS:-$(scaled 1000000)}
TIMEV=
/usr/bin/time -f %M true 2>/dev/null && TIMEV="/usr/bin/time -o $W/rss -f %M"
gen() {
	echo "$ATTR"
	awk -v n="$N" 'BEGIN { for (p = 1; p <= n; p++) {
		printf "{\"type\":\"COMM\",\"misc\":0,\"pid\":%d,\"tid\":%d,\"comm\":\"t%d\",\"exec\":false,\"sample_id\":{\"pid\":%d,\"tid\":%d,\"time\":%d}}\n", p, p, p, p, p, 2 * p
		printf "{\"type\":\"SAMPLE\",\"misc\":2,\"ip\":\"0x401000\",\"pid\":%d,\"tid\":%d,\"time\":%d}\n", p, p, 2 * p + 1 } }'
}
# ASan keeps freed memory in quarantine (256 MB by default) and adds shadow
# memory: a sanitizer build gets 1 GiB instead of 200 MB.
limit=204800
grep -qa __asan_init "$B/lib/.libs/libperfring.so" 2>/dev/null && limit=1048576
rss() {	# DESCRIPTION: max RSS below the limit
	[ -n "$TIMEV" ] || return 0
	kb=$(tail -n 1 "$W/rss")
	[ "$kb" -lt $limit ] && ok "$1: max RSS $((kb / 1024)) MB" || bad "$1: max RSS $((kb / 1024)) MB"
}
t0=$(date +%s)
gen | timeout 300 $TIMEV "$REPLAY" --json-in - -o "$W/m.data" 2>"$W/err"
status "$N pids: replay ($(($(date +%s) - t0)) s)" 0 $?
rss "$N pids: replay"
t0=$(date +%s)
timeout 300 $TIMEV "$DUMP" --stats "$W/m.data" > "$W/m.stats" 2>"$W/err"
status "$N pids: dump --stats ($(($(date +%s) - t0)) s)" 0 $?
has "$N pids: every COMM" "$W/m.stats" "^COMM $N\$"
has "$N pids: every SAMPLE" "$W/m.stats" "^SAMPLE $N\$"
t0=$(date +%s)
timeout 300 $TIMEV "$DUMP" "$W/m.data" > "$W/m.txt" 2>"$W/err"
status "$N pids: dump ($(($(date +%s) - t0)) s)" 0 $?
rss "$N pids: dump"
has "$N pids: the last pid's comm" "$W/m.txt" "COMM t$N:$N/$N"
rm -f "$W/m.txt"
t0=$(date +%s)
timeout 300 $TIMEV "$REPLAY" -o "$W/m2.data" "$W/m.data" 2>"$W/err"
status "$N pids: perf.data -> perf.data ($(($(date +%s) - t0)) s)" 0 $?
rss "$N pids: replay of the perf.data"
"$DUMP" --stats "$W/m2.data" > "$W/m2.stats" 2>"$W/err"
grep -E '^(COMM|SAMPLE) ' "$W/m.stats" > "$W/m.cs"
grep -E '^(COMM|SAMPLE) ' "$W/m2.stats" > "$W/m2.cs"
same "$N pids: the copy has every COMM and SAMPLE" "$W/m.cs" "$W/m2.cs"
finish
