#!/bin/sh
# JSON lines round trips: for every perf.data fixture recorded by the real
# perf (file and pipe mode, compressed, callchains, DWARF regs and stack,
# RAW, groups with READ, LOST, cgroups...) and for a perf.data recorded here
# and now: encode -> perfring-replay --json-in -> encode gives the same
# records, through a file-mode and a pipe-mode perf.data.  A ring goes
# JSON -> ring -> JSON unchanged, ATTR lines included.  Bad lines are
# reported with their line number and field, and the others are kept.
# The encoder is driven through perfring-replay's hidden --json-out (the
# same code perfring-dump --json is to call).
. "$top_srcdir/tests/testlib.sh"
use_build_plugins

# A fresh recording, if this machine lets perf record.
fresh=
if [ -n "$PERF" ] && "$PERF" record -q -e cpu-clock -c 20000 -o "$W/fresh.data" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done' >/dev/null 2>&1; then
	fresh="$W/fresh.data"
	ok "perf record made a fresh perf.data"
else
	echo "# perf record is not available here: fixtures only"
fi

for f in "$top_srcdir"/tests/fixtures/*.data $fresh; do
	b=$(basename "$f")
	"$REPLAY" --json-out "$f" >"$W/a.json" 2>"$W/a.err"
	status "$b: encode" 0 $?
	if grep -q '"body":' "$W/a.json"; then
		bad "$b: records left undecoded"; grep '"body":' "$W/a.json" | head -3 | cut -c1-200
	fi
	for mode in file pipe; do
		if [ $mode = pipe ]; then
			"$REPLAY" --json-in "$W/a.json" -o - --kernel-map=none >"$W/b.data" 2>"$W/b.err"
		else
			"$REPLAY" --json-in "$W/a.json" -o "$W/b.data" --kernel-map=none 2>"$W/b.err"
		fi
		rc=$?
		status "$b: --json-in to $mode mode" 0 $rc
		[ $rc -eq 0 ] || sed 's/^/#   /' "$W/b.err" | head -5
		"$REPLAY" --json-out "$W/b.data" >"$W/b.json" 2>/dev/null
		records "$W/a.json" >"$W/a.rec"
		records "$W/b.json" >"$W/b.rec"
		if [ -s "$W/a.rec" ] && cmp -s "$W/a.rec" "$W/b.rec"; then
			ok "$b: $mode mode: same $(wc -l <"$W/a.rec") records"
		else
			bad "$b: $mode mode: records differ"
			diff "$W/a.rec" "$W/b.rec" | head -6 | cut -c1-300 | sed 's/^/#   /'
		fi
		# attrs: the same apart from attr.size, which the writer picks
		grep '"type":"ATTR"' "$W/a.json" | sed 's/"size":[0-9]*,//' >"$W/a.attr"
		grep '"type":"ATTR"' "$W/b.json" | sed 's/"size":[0-9]*,//' >"$W/b.attr"
		same "$b: $mode mode: same events" "$W/a.attr" "$W/b.attr"
	done
done

# The same through perfring-dump --json (the encoder's other caller):
# dump -> replay -> dump gives the same records (offsets aside).
nodump=0
for f in "$top_srcdir"/tests/fixtures/*.data $fresh; do
	"$DUMP" --json "$f" >"$W/d1.json" 2>/dev/null &&
	"$REPLAY" --json-in "$W/d1.json" -o "$W/d.data" --kernel-map=none 2>/dev/null &&
	"$DUMP" --json "$W/d.data" >"$W/d2.json" 2>/dev/null || {
		nodump=$((nodump + 1)); echo "# $(basename "$f"): dump/replay failed"; continue; }
	records "$W/d1.json" | sed 's/,"offset":[0-9]*//' >"$W/d1.rec"
	records "$W/d2.json" | sed 's/,"offset":[0-9]*//' >"$W/d2.rec"
	cmp -s "$W/d1.rec" "$W/d2.rec" && [ -s "$W/d1.rec" ] ||
		{ nodump=$((nodump + 1)); echo "# $(basename "$f"): records differ"; }
done
[ $nodump -eq 0 ] && ok "perfring-dump --json -> replay -> dump: same records, every file" ||
	bad "perfring-dump --json round trip: $nodump files went wrong"

# Pipe to file mode and back by replaying perf.data directly.
f="$top_srcdir/tests/fixtures/pd-pipe.data"
"$REPLAY" -o "$W/file.data" --kernel-map=none "$f" 2>"$W/c.err"
status "pipe-mode perf.data to file mode" 0 $?
"$REPLAY" -o - --kernel-map=none "$W/file.data" >"$W/pipe.data" 2>>"$W/c.err"
status "and back to pipe mode" 0 $?
"$REPLAY" --json-out "$f" | records >"$W/c1"
"$REPLAY" --json-out "$W/pipe.data" | records >"$W/c2"
same "pipe -> file -> pipe keeps the records" "$W/c1" "$W/c2"
[ "$(head -c 8 "$W/file.data")" = PERFILE2 ] && [ "$(od -An -t u8 -j 8 -N 8 "$W/file.data" | tr -d ' ')" = 104 ] &&
	ok "file mode header" || bad "file mode header"
[ "$(od -An -t u8 -j 8 -N 8 "$W/pipe.data" | tr -d ' ')" = 16 ] && ok "pipe mode header" ||
	bad "pipe mode header"

# perf.data on standard input: a pipe, a redirected file; file mode cannot
# come through a pipe.
cat "$f" | "$REPLAY" -o "$W/in1.data" --kernel-map=none - 2>"$W/in.err"
status "pipe-mode perf.data from a pipe" 0 $?
"$REPLAY" -o "$W/in2.data" --kernel-map=none - <"$f" 2>>"$W/in.err"
status "pipe-mode perf.data from a redirected file" 0 $?
"$REPLAY" --json-out "$W/in1.data" | records >"$W/c3"
"$REPLAY" --json-out "$W/in2.data" | records >"$W/c4"
same "from a pipe: the same records" "$W/c1" "$W/c3"
same "from a redirected file: the same records" "$W/c1" "$W/c4"
"$REPLAY" -o "$W/in3.data" - <"$W/file.data" 2>>"$W/in.err"
status "file-mode perf.data from a redirected file" 0 $?
cat "$W/file.data" | "$REPLAY" -o "$W/in4.data" - 2>"$W/in4.err"
status "file-mode perf.data from a pipe" 2 $?
has "file mode from a pipe: said" "$W/in4.err" "^perfring-replay: -: "
empty "stdin: no other message" "$W/in.err"

# A ring: JSON -> ring -> JSON, everything identical (the ring keeps attr.size).
"$EMU" "$GUEST" "$W/g.ring" || exit 1
"$REPLAY" --json-out "$W/g.ring" >"$W/r1.json"
"$REPLAY" --json-in "$W/r1.json" --ring "$W/r2.ring" 2>"$W/r.err"
status "--json-in to a ring" 0 $?
"$REPLAY" --json-out "$W/r2.ring" >"$W/r2.json"
same "ring -> JSON -> ring -> JSON" "$W/r1.json" "$W/r2.json"
[ $(wc -l <"$W/r1.json") -eq 106 ] &&
	ok "106 lines (1 ATTR + 105 records)" || bad "$(wc -l <"$W/r1.json") lines"

# From stdin, into stdout.
"$REPLAY" --json-in - -o - --kernel-map=exclude <"$W/r1.json" >"$W/s.data" 2>"$W/s.err"
status "--json-in - -o -" 0 $?
"$REPLAY" --json-out "$W/s.data" | grep -c '"SAMPLE"' >"$W/s.count"
has "100 samples through stdin and stdout" "$W/s.count" '^100$'

# Bad lines: each reported with its line and field; the other lines kept.
{
	head -n 3 "$W/r1.json"
	echo '{"type":"MMAP2","misc":2,"pid":1,"tid":1,"addr":"0x1000","len":"0x1000","pgoff":4096,"filename":"/x"}'
	echo '{"type":"SAMPLE","misc":2,"identifier":7,"ip":"0x10","pid":1,"tid":1,"time":1.5}'
	echo '{"type":"NOSUCH","misc":0}'
	echo '{"type":"SAMPLE","misc":2,"identifier":7,"ip":"0x10","colour":"red"}'
	echo '{"type":"SAMPLE","misc":2,"identifier":7,"ip":"0x10",'
	echo '{"type":"COMM","misc":0,"pid":1,"tid":1,"comm":"a-name-of-20-bytes!!"}'
	echo '{"type":"SAMPLE","misc":2,"identifier":7,"ip":"0x10","time":18446744073709551616}'
	echo ''
	tail -n +4 "$W/r1.json"
} >"$W/bad.json"
"$REPLAY" --json-in "$W/bad.json" -o "$W/bad.data" 2>"$W/bad.err"
status "bad lines" 1 $?
has "pgoff as an integer" "$W/bad.err" \
	"^perfring-replay: $W/bad.json: line 4: field \"pgoff\": expected a \"0x…\" string$"
has "a fraction" "$W/bad.err" "^perfring-replay: $W/bad.json: line 5: at column [0-9]+: only integers"
has "an unknown type" "$W/bad.err" "line 6: field \"type\": unknown record type name \"NOSUCH\""
has "an unknown field" "$W/bad.err" "line 7: field \"colour\": not expected here"
has "broken JSON" "$W/bad.err" "line 8: at column [0-9]+: "
has "a COMM name too long" "$W/bad.err" "line 9: field \"comm\": expected at most 15 bytes"
has "beyond 64 bits" "$W/bad.err" "line 10: at column [0-9]+: integer out of the 64-bit range"
[ $(wc -l <"$W/bad.err") -eq 7 ] && ok "seven messages" || bad "$(wc -l <"$W/bad.err") messages"
"$REPLAY" --json-out "$W/bad.data" | grep -c '"SAMPLE"' >"$W/bad.count"
has "the 100 good samples are written" "$W/bad.count" '^100$'

# Records of odd sizes (raw ones) lie back to back in memory: writing them
# into a ring must not read a header at an unaligned address (UBSan in the
# sanitizer build; fuzz/corpus/json/edge-lines.json holds such records).
edge="$top_srcdir/fuzz/corpus/json/edge-lines.json"
if [ -f "$edge" ]; then
	"$REPLAY" --json-in "$edge" --ring "$W/edge.ring" >/dev/null 2>"$W/edge.err"
	rc=$?
	[ $rc -le 1 ] && ! grep -q "runtime error" "$W/edge.err" &&
		ok "odd-sized records into a ring (exit $rc)" ||
		bad "odd-sized records into a ring: exit $rc: $(head -5 "$W/edge.err")"
fi

# A record's fields name its event only through their id.  Here the second
# event's layout has no id, and its SAMPLE belongs to it by the first
# event's rule (the word where the first has IDENTIFIER is 4096, the second
# event's id): written as fields it would decode as the first event, so it
# must stay hex, and JSON -> ring -> JSON keeps every byte.
cat >"$W/two.json" <<'EOF'
{"type":"ATTR","attr":{"type":1,"config":9,"sample_type":["IDENTIFIER","IP","TID"]},"ids":[7],"name":"first"}
{"type":"ATTR","attr":{"type":1,"config":9,"sample_type":["IP","TID"]},"ids":[4096],"name":"second"}
{"type":"SAMPLE","misc":2,"identifier":7,"ip":"0x10","pid":1,"tid":1}
{"type":"SAMPLE","misc":2,"body":"00100000000000000100000001000000"}
EOF
"$REPLAY" --json-in "$W/two.json" --ring "$W/two.ring" 2>"$W/two.err"
status "two events, one without an id: into a ring" 0 $?
"$REPLAY" --json-out "$W/two.ring" >"$W/two1.json"
"$REPLAY" --json-in "$W/two1.json" --ring "$W/two2.ring" 2>>"$W/two.err"
"$REPLAY" --json-out "$W/two2.ring" >"$W/two2.json"
same "a record of an event without an id: JSON -> ring -> JSON" "$W/two1.json" "$W/two2.json"
has "it stays hex" "$W/two1.json" '^\{"type":"SAMPLE","misc":2,"body":"00100000000000000100000001000000"\}$'
has "the first event's sample is written as fields" "$W/two1.json" '"identifier":7,"ip":"0x10"'
"$DUMP" --json "$W/two.ring" | sed 's/"offset":[0-9]*,//' >"$W/two3.json"
same "perfring-dump --json prints the same" "$W/two1.json" "$W/two3.json"
empty "two events: no message" "$W/two.err"

finish
