#!/bin/sh
# perfring-dump on ring files: the emulator example's ring (COMM, MMAP2,
# FORK, EXIT and SAMPLEs written through the plugins), rings whose records
# wrap around the data area and a flight-recorder ring (tests/tools/replay-mkring),
# a flight-recorder ring of perfring-record --ring, a ring on standard
# input, and damaged rings (a record of size 0, a truncated file).
. "$top_srcdir/tests/testlib.sh"
MKRING="$B/tests/tools/replay-mkring"
use_build_plugins

# --- the emulator's ring: 2 COMM, 1 MMAP2, 1 FORK, 1 EXIT, 100 SAMPLEs
"$EMU" "$GUEST" "$W/g.ring" 2>"$W/emu.err" || { cat "$W/emu.err"; echo "emulator failed"; exit 1; }
"$DUMP" --stats "$W/g.ring" > "$W/g.stats" 2>&1
status "emulator ring: --stats" 0 $?
printf 'COMM 2\nEXIT 1\nFORK 1\nSAMPLE 100\nMMAP2 1\nTOTAL 105\n' > "$W/g.want"
same "emulator ring: counts of what the emulator wrote" "$W/g.want" "$W/g.stats"
"$DUMP" "$W/g.ring" > "$W/g.txt" 2>&1
status "emulator ring: dump" 0 $?
[ "$(wc -l < "$W/g.txt")" -eq 105 ] && ok "emulator ring: 105 lines" || bad "emulator ring: $(wc -l < "$W/g.txt") lines"
has "COMM exec with its trailer's time, cpu, pid/tid" "$W/g.txt" '^0x00002000 [0-9]+\.[0-9]{9} 0 4242/4242 COMM exec: guest:4242/4242$'
has "MMAP2 with addr, len, pgoff, prot and file" "$W/g.txt" " MMAP2 4242/4242: \[0x555555[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+ .*\]: r-xp /.*/guest$"
has "FORK" "$W/g.txt" " FORK \(4243:4243\):\(4242:4242\)$"
has "SAMPLE with ip and period" "$W/g.txt" " 4242/4242 SAMPLE ip 0x555555[0-9a-f]+ period [0-9]+ user$"
"$DUMP" --check "$W/g.ring" > "$W/g.check" 2>&1
status "emulator ring: --check" 0 $?
has "emulator ring: clean" "$W/g.check" "^$W/g.ring: 105 records, 0 problems$"
"$DUMP" --json "$W/g.ring" > "$W/g.json" 2>&1
status "emulator ring: --json" 0 $?
[ "$(head -n 1 "$W/g.json" | grep -c '^{"type":"ATTR","attr"')" -eq 1 ] &&
[ "$(wc -l < "$W/g.json")" -eq 106 ] && ok "emulator ring: --json: ATTR line, then 105 records" ||
	bad "emulator ring: --json: $(wc -l < "$W/g.json") lines"
"$DUMP" --header "$W/g.ring" > "$W/g.hdr" 2>&1
status "emulator ring: --header" 0 $?
has "header: the event and its ids" "$W/g.hdr" '^  ids \(1\): [0-9]+'
# --json is what perfring-replay --json-in reads: back into a ring, the
# same records (offsets aside)
if "$B/tools/perfring-replay" --json-in "$W/g.json" --ring "$W/g2.ring" 2>"$W/rp.err"; then
	"$DUMP" "$W/g2.ring" | cut -d' ' -f2- > "$W/g2.txt"
	cut -d' ' -f2- "$W/g.txt" > "$W/g1.txt"
	same "--json | perfring-replay --json-in --ring: the same records" "$W/g1.txt" "$W/g2.txt"
else
	bad "perfring-replay --json-in refused our --json:"; sed 's/^/#   /' "$W/rp.err" | head -5
fi
# the same ring on standard input (a redirected file)
"$DUMP" --stats - < "$W/g.ring" > "$W/g.stdin" 2>&1
same "emulator ring on standard input" "$W/g.want" "$W/g.stdin"

# --- damaged: the 10th record's size set to 0, then a truncated file
off=$(awk 'NR == 10 { print $1 }' "$W/g.txt")
cp "$W/g.ring" "$W/z.ring"; poke "$W/z.ring" $((off + 6)) '\000\000'
timeout 5 "$DUMP" "$W/z.ring" > "$W/z.txt" 2>"$W/z.err"
status "ring with a record of size 0" 2 $?
has "size 0: offset of the record" "$W/z.err" "^perfring-dump: $W/z.ring: offset $(printf '0x%x' $((off))): record size 0"
head -n 9 "$W/g.txt" > "$W/g9.txt"
same "size 0: the 9 records before it" "$W/g9.txt" "$W/z.txt"
timeout 5 "$DUMP" --check "$W/z.ring" > "$W/z.check" 2>/dev/null
status "--check on it" 2 $?
has "--check names the damage" "$W/z.check" "offset $(printf '0x%x' $((off))): record size 0"
head -c 9000 "$W/g.ring" > "$W/t.ring"
timeout 5 "$DUMP" "$W/t.ring" > /dev/null 2>"$W/t.err"
status "truncated ring file" 2 $?
has "truncated ring: message" "$W/t.err" "^perfring-dump: $W/t.ring: "

# --- wrapping records and a flight-recorder ring
for kind in wrap overwrite; do
	"$MKRING" $kind "$W/$kind.ring" > "$W/$kind.where" || { bad "replay-mkring $kind"; continue; }
	"$DUMP" "$W/$kind.ring" > "$W/$kind.txt" 2>&1
	status "$kind ring: dump" 0 $?
	awk '{ printf "0x%08x\n", $1 }' "$W/$kind.where" > "$W/$kind.want"
	cut -d' ' -f1 "$W/$kind.txt" > "$W/$kind.got"
	same "$kind ring: every record, oldest first, at its offset" "$W/$kind.want" "$W/$kind.got"
	"$DUMP" --check "$W/$kind.ring" > "$W/$kind.check" 2>&1
	status "$kind ring: --check" 0 $?
done

# --- perfring-record --ring (needs perf_event_open for cpu-clock)
if [ -x "$REC" ] && "$REC" --ring "$W/fr.ring" --size 1M -e cpu-clock -- \
	"$B/tests/workloads/wl-threads" 0.2 > /dev/null 2>"$W/fr.err"; then
	"$DUMP" --stats "$W/fr.ring" > "$W/fr.stats" 2>&1
	status "perfring-record --ring: --stats" 0 $?
	has "perfring-record --ring: samples" "$W/fr.stats" '^SAMPLE [1-9][0-9]*$'
	"$DUMP" --check "$W/fr.ring" > "$W/fr.check" 2>&1
	status "perfring-record --ring: --check" 0 $?
	[ "$(wc -l < "$W/fr.check")" -eq 1 ] && ok "perfring-record --ring: only the summary" ||
		{ bad "perfring-record --ring: --check said:"; sed 's/^/#   /' "$W/fr.check" | head; }
	"$DUMP" "$W/fr.ring" > "$W/fr.txt" 2>&1
	status "perfring-record --ring: dump" 0 $?
	has "perfring-record --ring: comm of the workload" "$W/fr.txt" ' COMM exec: wl-threads:'
	"$DUMP" --header "$W/fr.ring" > "$W/fr.hdr" 2>&1
	has "perfring-record --ring: a flight-recorder ring" "$W/fr.hdr" '^mode: overwrite'
else
	echo "# perfring-record --ring not tested: $(head -2 "$W/fr.err" 2>/dev/null)"
fi
finish
