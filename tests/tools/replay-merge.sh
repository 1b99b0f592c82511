#!/bin/sh
# perfring-replay with several inputs and writer options:
#  - two rings and a pipe-mode perf.data merged by time into one perf.data
#    (one writer source each; identical events shared);
#  - ids claimed by different events of two inputs: refused, exit 2;
#  - record types perf 6.1 refuses: dropped with a counted warning, or kept
#    with --keep-unknown;
#  - --kernel-map: auto writes the kernel map (or sets exclude_kernel) for
#    events that do not exclude the kernel, none leaves them as they are.
. "$top_srcdir/tests/testlib.sh"
use_build_plugins

"$EMU" "$GUEST" "$W/a.ring" || exit 1
"$EMU" "$GUEST" "$W/b.ring" || exit 1
"$EMU" "$GUEST" "$W/c.ring" || exit 1
"$REPLAY" -o - "$W/c.ring" >"$W/c.pipe" 2>/dev/null
"$REPLAY" -o "$W/m.data" "$W/a.ring" "$W/c.pipe" -- "$W/b.ring" 2>"$W/m.err"
status "merge two rings and a pipe-mode perf.data" 0 $?
empty "merge: no message" "$W/m.err"
"$REPLAY" --json-out "$W/m.data" | records >"$W/m.json"
[ $(wc -l <"$W/m.json") -eq 315 ] && ok "merge: 315 records" ||
	bad "merge: $(wc -l <"$W/m.json") records"
"$REPLAY" --json-out "$W/m.data" | grep -c '"type":"ATTR"' >"$W/m.nattr"
has "merge: one shared event" "$W/m.nattr" '^1$'
# every record's time (sample or trailer) in order
sed -n 's/.*"time":\([0-9]*\).*/\1/p' "$W/m.json" >"$W/m.times"
if sort -n -c "$W/m.times" 2>/dev/null; then ok "merge: records in time order"
else bad "merge: records out of time order"; fi
for f in a b; do
	"$REPLAY" --json-out "$W/$f.ring" | records
done >"$W/ab.json"
"$REPLAY" --json-out "$W/c.pipe" | records >>"$W/ab.json"
sort "$W/ab.json" >"$W/ab.sorted"
sort "$W/m.json" >"$W/m.sorted"
same "merge: exactly the inputs' records" "$W/ab.sorted" "$W/m.sorted"

# Two perf record files of the same event: one event with the ids of both.
F="$top_srcdir/tests/fixtures"
"$REPLAY" -o "$W/pp.data" "$F/pd-file.data" "$F/pd-zstd.data" 2>"$W/pp.err"
status "merge two perf.data of one event" 0 $?
empty "merge perf.data: no message" "$W/pp.err"
"$REPLAY" --json-out "$W/pp.data" >"$W/pp.json"
ids=$(sed -n 's/.*"type":"ATTR".*"ids":\[\([0-9,]*\)\].*/\1/p' "$W/pp.json")
want=$( ("$REPLAY" --json-out "$F/pd-file.data"; "$REPLAY" --json-out "$F/pd-zstd.data") |
	sed -n 's/.*"type":"ATTR".*"ids":\[\([0-9,]*\)\].*/\1/p' | paste -sd, -)
[ "$(grep -c '"type":"ATTR"' "$W/pp.json")" -eq 1 ] && [ "$ids" = "$want" ] &&
	ok "merge perf.data: one event, ids $ids" || bad "merge perf.data: ids '$ids', want '$want'"
records "$W/pp.json" | sort >"$W/pp.got"
("$REPLAY" --json-out "$F/pd-file.data"; "$REPLAY" --json-out "$F/pd-zstd.data") | records |
	sort >"$W/pp.want"
same "merge perf.data: every record of both" "$W/pp.want" "$W/pp.got"
if [ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
	"$PERF" report -i "$W/pp.data" --stdio --sort comm >"$W/pp.rep" 2>"$W/pp.rep.err"
	# The kernel's build id is the recording machine's: perf says what it
	# says of the input (no kallsyms with that id here), nothing more.
	"$PERF" report -i "$F/pd-file.data" --stdio --sort comm >/dev/null 2>"$W/pp.in.err"
	same "merge perf.data: perf report says what it says of the first input" \
		"$W/pp.in.err" "$W/pp.rep.err"
	s1=$("$PERF" report -i "$F/pd-file.data" --stdio 2>/dev/null | sed -n 's/^# Samples: \([0-9]*\) .*/\1/p')
	s2=$("$PERF" report -i "$F/pd-zstd.data" --stdio 2>/dev/null | sed -n 's/^# Samples: \([0-9]*\) .*/\1/p')
	has "merge perf.data: perf counts the samples of both" "$W/pp.rep" "^# Samples: $((s1 + s2)) "
fi

# Ids of different events.
"$REPLAY" --json-out "$W/a.ring" | sed 's/"sample_period":100000/"sample_period":5/' >"$W/x.json"
"$REPLAY" --json-in "$W/x.json" --ring "$W/x.ring" || exit 1
"$REPLAY" -o "$W/x.data" "$W/a.ring" "$W/x.ring" 2>"$W/x.err"
status "colliding ids" 2 $?
has "colliding ids: said" "$W/x.err" "^perfring-replay: $W/x.ring: event id 7 is used by a different event"
[ ! -e "$W/x.data" ] && ok "colliding ids: no output left behind" || bad "output left behind"

# Unknown record types.
"$REPLAY" --json-out "$W/a.ring" >"$W/u.json"
echo '{"type":200,"misc":0,"raw":"0102030405060708"}' >>"$W/u.json"
echo '{"type":200,"misc":0,"raw":""}' >>"$W/u.json"
"$REPLAY" --json-in "$W/u.json" -o "$W/u.data" 2>"$W/u.err"
status "unknown types dropped" 0 $?
has "unknown types: a warning with the count" "$W/u.err" \
	"^perfring-replay: warning: .*dropped 2 records of type 200"
"$REPLAY" --json-out "$W/u.data" >"$W/u.out"
if grep -q '"type":200' "$W/u.out"; then bad "unknown types: written"; else ok "unknown types: not written"; fi
"$REPLAY" --json-in "$W/u.json" -o "$W/k.data" --keep-unknown 2>"$W/k.err"
status "--keep-unknown" 0 $?
empty "--keep-unknown: no warning" "$W/k.err"
"$REPLAY" --json-out "$W/k.data" >"$W/k.out"
has "--keep-unknown: kept, bytes and all" "$W/k.out" '^\{"type":200,"misc":0,"raw":"0102030405060708"\}$'

# Kernel maps for an event that does not exclude the kernel.
sed 's/"exclude_kernel":true,//' "$W/u.json" | grep -v '"type":200' >"$W/kk.json"
"$REPLAY" --json-in "$W/kk.json" -o "$W/kk.data" 2>"$W/kk.err"
status "--kernel-map=auto (default)" 0 $?
"$REPLAY" --json-out "$W/kk.data" >"$W/kk.out"
if grep -q '"filename":"\[kernel.kallsyms\]_text"' "$W/kk.out" ||
   grep -q '"type":"ATTR".*"exclude_kernel":true' "$W/kk.out"; then
	ok "auto: a kernel map, or exclude_kernel"
else
	bad "auto: neither a kernel map nor exclude_kernel"
fi
"$REPLAY" --json-in "$W/kk.json" -o "$W/kn.data" --kernel-map=none 2>"$W/kn.err"
status "--kernel-map=none" 0 $?
"$REPLAY" --json-out "$W/kn.data" >"$W/kn.out"
if grep -q 'kernel.kallsyms' "$W/kn.out" || grep -q '"type":"ATTR".*"exclude_kernel"' "$W/kn.out"; then
	bad "none: the events were changed"
else
	ok "none: events and records as given"
fi
"$REPLAY" --json-in "$W/kk.json" -o "$W/ke.data" --kernel-map=exclude 2>/dev/null
"$REPLAY" --json-out "$W/ke.data" >"$W/ke.out"
has "exclude: exclude_kernel set" "$W/ke.out" '"type":"ATTR".*"exclude_kernel":true'

finish
