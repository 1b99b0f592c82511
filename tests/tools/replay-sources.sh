#!/bin/sh
# perfring-replay reads its inputs through the library's sources:
#  - a byte-swapped (big-endian) file-mode perf.data replays: the real perf
#    script prints the same events for it as for the native file it was
#    swapped from (tests/pd-swap, an independent swapper);
#  - a directory is refused: exit 2, a message naming it, no output;
#  - a ring record of a type perf 6.1 does not know is no damage: the
#    writer drops it with a warning and its count, or keeps it with
#    --keep-unknown;
#  - a FIFO holding pipe-mode perf.data is read as it comes (opened once:
#    its writer sees no reader come and go before the real one).
. "$top_srcdir/tests/testlib.sh"
need_perf
use_build_plugins
SWAP="$B/tests/tools/pd-swap"
F=$FX

for fx in pd-file pd-callchain pd-two; do
	"$SWAP" "$F/$fx.data" "$W/$fx.be" 2>"$W/$fx.swap.err"
	status "$fx: swapped" 0 $?
	od -An -c -N 8 "$W/$fx.be" | tr -d ' \n' >"$W/$fx.magic"
	echo >>"$W/$fx.magic"
	has "$fx: big-endian magic" "$W/$fx.magic" "^2ELIFREP$"
	"$REPLAY" --kernel-map=none -o "$W/$fx.native.data" "$F/$fx.data" 2>"$W/$fx.n.err"
	status "$fx: native replay" 0 $?
	"$REPLAY" --kernel-map=none -o "$W/$fx.swapped.data" "$W/$fx.be" 2>"$W/$fx.s.err"
	status "$fx: swapped replay" 0 $?
	empty "$fx: swapped replay says nothing" "$W/$fx.s.err"
	"$REPLAY" --json-out "$W/$fx.native.data" | records >"$W/$fx.n.rec"
	"$REPLAY" --json-out "$W/$fx.swapped.data" | records >"$W/$fx.s.rec"
	[ -s "$W/$fx.n.rec" ] && ok "$fx: records written" || bad "$fx: no record written"
	same "$fx: the same records from both byte orders" "$W/$fx.n.rec" "$W/$fx.s.rec"
	for v in native swapped; do
		"$PERF" script -i "$W/$fx.$v.data" -F comm,tid,time,event,ip \
			>"$W/$fx.$v.script" 2>"$W/$fx.$v.script.err"
		status "$fx: perf script reads the $v replay" 0 $?
	done
	[ -s "$W/$fx.native.script" ] && ok "$fx: perf script prints events" ||
		bad "$fx: perf script printed nothing"
	same "$fx: perf script: the same events" "$W/$fx.native.script" \
		"$W/$fx.swapped.script"
done

mkdir "$W/dir.data"
"$REPLAY" -o "$W/dir.out" "$W/dir.data" 2>"$W/dir.err"
status "a directory" 2 $?
has "a directory: named, and why" "$W/dir.err" "^perfring-replay: $W/dir.data: .*is a directory"
[ ! -e "$W/dir.out" ] && ok "a directory: no output" || bad "a directory: output written"

"$EMU" "$GUEST" "$W/g.ring" >/dev/null || exit 1
"$REPLAY" --json-out "$W/g.ring" >"$W/u.json"
echo '{"type":30,"misc":0,"raw":"0102030405060708"}' >>"$W/u.json"
"$REPLAY" --json-in "$W/u.json" --ring "$W/u.ring" || exit 1
"$REPLAY" -o "$W/u.data" "$W/u.ring" 2>"$W/u.err"
status "a ring with an unknown type" 0 $?
has "unknown type: dropped, counted" "$W/u.err" "^perfring-replay: warning: .*dropped 1 record of type 30"
"$REPLAY" -o "$W/k.data" --keep-unknown "$W/u.ring" 2>"$W/k.err"
status "a ring with an unknown type, --keep-unknown" 0 $?
empty "--keep-unknown: nothing said" "$W/k.err"
"$REPLAY" --json-out "$W/k.data" >"$W/k.out"
has "--keep-unknown: kept, bytes and all" "$W/k.out" '^\{"type":30,"misc":0,"raw":"0102030405060708"\}$'

if mkfifo "$W/fifo" 2>/dev/null; then
	cat "$F/pd-pipe.data" >"$W/fifo" &
	writer=$!
	"$REPLAY" --kernel-map=none -o "$W/fifo.data" "$W/fifo" 2>"$W/fifo.err"
	status "a FIFO" 0 $?
	wait $writer
	status "a FIFO: its writer" 0 $?
	"$REPLAY" --kernel-map=none -o "$W/file.data" "$F/pd-pipe.data" 2>/dev/null
	"$REPLAY" --json-out "$W/file.data" | records >"$W/file.rec"
	"$REPLAY" --json-out "$W/fifo.data" | records >"$W/fifo.rec"
	[ -s "$W/fifo.rec" ] && ok "a FIFO: records written" || bad "a FIFO: no record written"
	same "a FIFO: the records of the file" "$W/file.rec" "$W/fifo.rec"
else
	bad "mkfifo failed in $W"
fi

finish
