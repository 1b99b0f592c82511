#!/bin/sh
# perfring-replay on damaged input: every record before and after the damage
# that can be found is written, each problem is reported as
# "perfring-replay: FILE: offset 0x...: what", and the exit status is 1.
#  - a record size below 8 (framing error: the library's reader stops, replay
#    resynchronises on the next plausible record);
#  - a record size that swallows the records after it (the record does not
#    decode: replay looks for records inside it);
#  - 100 zeroed bytes across two records;
#  - a data_head too far ahead (nothing can be trusted: exit 1, no record);
#  - a broken ring descriptor or an unknown magic: exit 2;
#  - a truncated perf.data: the records before the cut are written, exit 1.
. "$top_srcdir/tests/testlib.sh"
use_build_plugins

"$EMU" "$GUEST" "$W/g.ring" || exit 1
"$REPLAY" --json-out "$W/g.ring" | records >"$W/orig"
ring_records "$W/g.ring" >"$W/offsets"
[ $(wc -l <"$W/offsets") -eq 105 ] && ok "105 records in the ring" ||
	bad "$(wc -l <"$W/offsets") records in the ring"
at() { sed -n "$1p" "$W/offsets" | cut -d' ' -f1; }
hex() { printf '0x%x' "$1"; }
# recovered NAME FILE LINES-MISSING...: the output holds every other record
recovered() {
	name=$1 f=$2
	shift 2
	"$REPLAY" -o "$W/$name.data" "$f" 2>"$W/$name.err"
	status "$name" 1 $?
	"$REPLAY" --json-out "$W/$name.data" | records >"$W/$name.rec"
	del=$(printf '%sd;' "$@")
	sed "$del" "$W/orig" >"$W/$name.want"
	same "$name: every other record is written" "$W/$name.want" "$W/$name.rec"
}

cp "$W/g.ring" "$W/d1.ring"
o=$(at 10)
poke "$W/d1.ring" $((o + 6)) '\003\000'
recovered d1 "$W/d1.ring" 10
has "d1: the damage and its offset" "$W/d1.err" \
	"^perfring-replay: $W/d1.ring: offset $(hex $o): record size 3 below 8"
has "d1: where reading resumed" "$W/d1.err" \
	"^perfring-replay: $W/d1.ring: offset $(hex $(at 11)): resynchronised after 56 damaged bytes$"
if [ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
	"$PERF" report -i "$W/d1.data" --stdio --sort sym >"$W/d1.rep" 2>"$W/d1.rep.err"
	empty "d1: perf report reads the output without a warning" "$W/d1.rep.err"
	has "d1: 99 samples" "$W/d1.rep" "^# Samples: 99 "
fi

cp "$W/g.ring" "$W/d2.ring"
o=$(at 20)
poke "$W/d2.ring" $((o + 6)) '\000\002'		# 512 bytes: swallows 8 records
recovered d2 "$W/d2.ring" 20
has "d2: the damaged record and its offset" "$W/d2.err" \
	"^perfring-replay: $W/d2.ring: offset $(hex $o): SAMPLE: .*left over"

cp "$W/g.ring" "$W/d3.ring"
o=$(at 30)
dd if=/dev/zero of="$W/d3.ring" bs=1 seek=$o count=100 conv=notrunc 2>/dev/null
recovered d3 "$W/d3.ring" 30 31
has "d3: the damage and its offset" "$W/d3.err" \
	"^perfring-replay: $W/d3.ring: offset $(hex $o): record size 0 below 8"
has "d3: where reading resumed" "$W/d3.err" "offset $(hex $(at 32)): resynchronised"

# The last record damaged: nothing after it, reported as such.
cp "$W/g.ring" "$W/d4.ring"
o=$(at 105)
poke "$W/d4.ring" $((o + 6)) '\001\000'
recovered d4 "$W/d4.ring" 105
has "d4: no record after the damage" "$W/d4.err" "offset $(hex $o): no valid record"

# data_head more than data_size ahead of data_tail.
cp "$W/g.ring" "$W/d5.ring"
desc=$(od -An -t u8 -j 24 -N 8 "$W/g.ring" | tr -d ' ')
poke "$W/d5.ring" $((desc + 1024 + 6)) '\377'
"$REPLAY" -o "$W/d5.data" "$W/d5.ring" 2>"$W/d5.err"
status "a damaged data_head" 1 $?
has "d5: the head is named" "$W/d5.err" "^perfring-replay: $W/d5.ring: offset 0x[0-9a-f]+: data_head"

# The descriptor: a wrong format version, then a wrong magic.
cp "$W/g.ring" "$W/d6.ring"
poke "$W/d6.ring" 8 '\077'
"$REPLAY" -o "$W/d6.data" "$W/d6.ring" 2>"$W/d6.err"
status "a broken ring descriptor" 2 $?
has "d6: named with its offset" "$W/d6.err" "^perfring-replay: $W/d6.ring: offset 0x8: "
[ ! -e "$W/d6.data" ] && ok "d6: no output left behind" || bad "d6: output left behind"
poke "$W/d6.ring" 0 'XRFRING'
"$REPLAY" -o "$W/d6.data" "$W/d6.ring" 2>"$W/d6.err"
status "an unknown magic" 2 $?
has "d6: unknown magic" "$W/d6.err" \
	"^perfring-replay: $W/d6.ring: offset 0x0: unknown magic .*: neither a perf.data .*nor a perfring ring file"

# Random damage (fixed seeds): never a crash, a hang or a sanitizer report;
# exit 0 or 1, and with 1 a message with an offset.  (Damage inside a body,
# an ip say, cannot be seen; a damaged type is an unknown type, dropped
# with a warning.)
data=$(($(od -An -t u8 -j 24 -N 8 "$W/g.ring" | tr -d ' ') + 4096))
used=$(awk '{ s += $2 } END { print s }' "$W/offsets")
crashes=0
found=0
for seed in $(seq 1 30); do
	cp "$W/g.ring" "$W/r.ring"
	awk -v seed=$seed -v data=$data -v used=$used 'BEGIN {
		srand(seed); n = 2 + int(rand() * 10)
		for (i = 0; i < n; i++) {
			printf "%d", data + int(rand() * used)
			for (k = 0; k < 1 + int(rand() * 8); k++) printf " %o", int(rand() * 256)
			printf "\n"
		}
	}' | while read -r off bytes; do
		esc=$(for b in $bytes; do printf '\\%s' "$b"; done)
		poke "$W/r.ring" "$off" "$esc"
	done
	timeout 60 "$REPLAY" -o "$W/r.data" "$W/r.ring" 2>"$W/r.err"
	rc=$?
	# (a damaged type is an unknown type: dropped with a warning, exit 0)
	[ -s "$W/r.err" ] && found=$((found + 1))
	if [ $rc -gt 1 ] || grep -Eq 'Sanitizer|runtime error' "$W/r.err" ||
	   { [ $rc -eq 1 ] && ! grep -q 'offset 0x' "$W/r.err"; }; then
		crashes=$((crashes + 1))
		echo "# seed $seed: exit $rc"; sed 's/^/#   /' "$W/r.err" | head -5
	fi
done
[ $crashes -eq 0 ] && ok "30 randomly damaged rings: exit 0 or 1, no crash" ||
	bad "$crashes randomly damaged rings went wrong"
[ $found -ge 10 ] && ok "$found of them said something" || bad "only $found said something"

# A pipe-mode perf.data cut in the middle of a record.
f="$top_srcdir/tests/fixtures/pd-pipe.data"
size=$(wc -c <"$f")
head -c $((size / 2 + 3)) "$f" >"$W/cut.data"
"$REPLAY" -o "$W/cut.out" --kernel-map=none "$W/cut.data" 2>"$W/cut.err"
status "a truncated perf.data" 1 $?
has "cut: the damage and its offset" "$W/cut.err" "^perfring-replay: $W/cut.data: offset 0x[0-9a-f]+: "
"$REPLAY" --json-out "$f" | records >"$W/cut.all"
"$REPLAY" --json-out "$W/cut.out" | records >"$W/cut.got"
k=$(wc -l <"$W/cut.got")
head -n "$k" "$W/cut.all" >"$W/cut.want"
if [ "$k" -gt 10 ] && cmp -s "$W/cut.want" "$W/cut.got"; then
	ok "cut: the $k records before the cut are written"
else
	bad "cut: $k records written"
fi

finish
