#!/bin/sh
# perfring-replay --jit against perf inject --jit on `perf record -k mono`
# recordings of examples/jit/tinyjit (code written with the library's
# jitdump writer):
#  - the four hot functions' shares agree with inject's within 3 points
#    and cover most samples; perf report has nothing on stderr;
#  - one ELF beside the output, no other file, ~/.debug untouched;
#  - CODE_MOVE: the moved functions resolve at their new addresses;
#  - one address reused for two functions one after the other (with an
#    mprotect cycle between, so the kernel reports the region again as
#    //anon): each function gets its own half, where a perf map listing
#    both (perf's own lookup, no time) gives nearly all to one name;
#  - a dump cut mid-record (a runtime still writing) is read up to its last
#    whole record; a damaged record is reported with the dump's name and
#    offset, exit 1, and the functions before it still resolve.
# Skips (77) only without perf or perf_event_open.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling

# record DIR ARGS...: perf record -k mono of tinyjit ARGS in DIR
record() {
	d=$1; shift
	mkdir -p "$d"
	(cd "$d" && "$PERF" record -k mono -e cpu-clock -q -o perf.data -- "$TINYJIT" "$@") \
		>"$d/rec.out" 2>&1 && ok "not: perf record tinyjit $*" || bad "perf record tinyjit $*: $(tail -n 3 "$d/rec.out")"
}

# --- shares against inject ----------------------------------------------------
d=$W/hot
record "$d" -n 2000 -t 1200
ls "$d" >"$W/before"
ls -R "$HOME" >"$W/home-before"
"$REPLAY" --jit -o "$d/out.data" "$d/perf.data" 2>"$W/replay.err" && ok "perfring-replay --jit exited $?" ||
	bad "perfring-replay --jit exited $?: $(cat "$W/replay.err")"
grep -q -- '--jit: 2000 JIT functions resolved from 1 jitdump' "$W/replay.err" && ok "not: summary" ||
	bad "summary: $(cat "$W/replay.err")"
ls -R "$HOME" >"$W/home-after"
cmp -s "$W/home-before" "$W/home-after" && ok "not: perfring-replay --jit changed ~/.debug" || bad "perfring-replay --jit changed ~/.debug"
ls "$d" >"$W/after"
new=$(comm -13 "$W/before" "$W/after" | tr '\n' ' ')
case $new in
"out.data out.data.jit-"*".so ") ;;
*) bad "new files: $new (expected out.data and one ELF)" ;;
esac
no_warnings "$d/out.data"
(cd "$d" && "$PERF" inject --jit -i perf.data -o inj.data) 2>"$d/inj.err" && ok "not: perf inject --jit failed" ||
	bad "perf inject --jit failed: $(cat "$d/inj.err")"
total=0
for f in hot_fn_0 hot_fn_1 hot_fn_2 hot_fn_3; do
	a=$(share "$d/out.data" $f)
	b=$(share "$d/inj.data" $f)
	echo "# $f: perfring-replay --jit $a%, perf inject --jit $b%"
	within "$a" "$b" 3 && ok "not: $f: $a% vs inject's $b%'" || bad "$f: $a% vs inject's $b%"
	total=$(awk -v t="$total" -v a="$a" 'BEGIN { print t + a }')
done
at_least "$total" 80 && ok "not: the hot functions have only $total% of the samples" || bad "the hot functions have only $total% of the samples"
# their order by weight (1:2:3:4)
at_least "$(share "$d/out.data" hot_fn_3)" "$(share "$d/out.data" hot_fn_1)" && ok "not: hot_fn_3 below hot_fn_1" ||
	bad "hot_fn_3 below hot_fn_1"
# perf annotate reads the code bytes
"$PERF" annotate -i "$d/out.data" --stdio hot_fn_3 2>/dev/null | grep -q 'dec  *%ecx' && ok "not: perf annotate shows no code for hot_fn_3" ||
	bad "perf annotate shows no code for hot_fn_3"

# --- CODE_MOVE -------------------------------------------------------------------
d=$W/move
record "$d" -n 16 -t 600 --move
"$REPLAY" --jit -o "$d/out.data" "$d/perf.data" 2>"$d/replay.err" && ok "--jit on the move recording exited $?" ||
	bad "--jit on the move recording exited $?: $(cat "$d/replay.err")"
grep -q '(4 for moves)' "$d/replay.err" && ok "not: move summary" || bad "move summary: $(cat "$d/replay.err")"
total=0
for f in hot_fn_0 hot_fn_1 hot_fn_2 hot_fn_3; do
	total=$(awk -v t="$total" -v a="$(share "$d/out.data" $f)" 'BEGIN { print t + a }')
done
at_least "$total" 80 && ok "not: moved functions have only $total% of the samples" || bad "moved functions have only $total% of the samples"
no_warnings "$d/out.data"

# --- one address, two functions ------------------------------------------------
d=$W/reuse
record "$d" --reuse -t 700
"$REPLAY" --jit -o "$d/out.data" "$d/perf.data" 2>"$d/replay.err" && ok "--jit on the reuse recording exited $?" ||
	bad "--jit on the reuse recording exited $?: $(cat "$d/replay.err")"
a=$(share "$d/out.data" reuse_first)
b=$(share "$d/out.data" reuse_second)
echo "# reused address: reuse_first $a%, reuse_second $b%"
at_least "$a" 35 && ok "not: reuse_first has $a% (expected about half)" || bad "reuse_first has $a% (expected about half)"
at_least "$b" 35 && ok "not: reuse_second has $b% (expected about half)" || bad "reuse_second has $b% (expected about half)"
grep -q 'anonymous exec maps' "$d/replay.err" && ok "not: reuse summary" || bad "reuse summary: $(cat "$d/replay.err")"
no_warnings "$d/out.data"
# What a perf map (no time) does with the same recording: one name for all.
pid=$("$PERF" script -i "$d/perf.data" -F comm,pid 2>/dev/null |
	awk '$1 == "tinyjit" { print $2; exit }')
addr=$(python3 - "$d/jit-$pid.dump" <<'PY' 2>/dev/null
import struct, sys
b = open(sys.argv[1], 'rb').read()
off = 40
while off + 16 <= len(b):
    rid, size = struct.unpack_from('<II', b, off)
    if rid == 0:
        print('%x %x' % struct.unpack_from('<QQ', b, off + 32))
        break
    off += size
PY
)
if [ -n "$pid" ] && [ -n "$addr" ]; then
	printf '%s reuse_first\n%s reuse_second\n' "$addr" "$addr" >"/tmp/perf-$pid.map"
	a=$(share "$d/perf.data" reuse_first)
	b=$(share "$d/perf.data" reuse_second)
	rm -f "/tmp/perf-$pid.map"
	echo "# the same address through a perf map: reuse_first $a%, reuse_second $b%"
	at_least "$(awk -v a="$a" -v b="$b" 'BEGIN { print (a > b ? a : b) }')" 85 && ok "not: perf map: expected one name for nearly all samples, got $a% and $b%" ||
		bad "perf map: expected one name for nearly all samples, got $a% and $b%"
else
	bad "reuse: no pid or load address found (python3 missing?)"
fi

# --- a dump still being written, a damaged dump ---------------------------------
d=$W/hot
dump=$(ls "$d"/jit-*.dump)
cp "$dump" "$d/dump.orig"
size=$(wc -c <"$dump")
head -c $((size - 100)) "$d/dump.orig" >"$dump"
"$REPLAY" --jit -o "$d/cut.data" "$d/perf.data" 2>"$d/cut.err" && ok "--jit on a cut dump exited $?" ||
	bad "--jit on a cut dump exited $?: $(cat "$d/cut.err")"
grep -q 'incomplete record' "$d/cut.err" && ok "not: no word of the cut" || bad "no word of the cut: $(cat "$d/cut.err")"
at_least "$(share "$d/cut.data" hot_fn_3)" 20 && ok "not: cut dump: hot_fn_3 lost" || bad "cut dump: hot_fn_3 lost"
# damage the 1000th CODE_LOAD's code_size (the hot ones come first)
off=$(python3 - "$d/dump.orig" <<'PY' 2>/dev/null
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, n = 40, 0
while off + 16 <= len(b):
    rid, size = struct.unpack_from('<II', b, off)
    if rid == 0:
        n += 1
        if n == 1000:
            print(off)
            break
    off += size
PY
)
if [ -z "$off" ]; then
	bad "cannot find the 1000th CODE_LOAD (python3 missing?)"
else
	cp "$d/dump.orig" "$dump"
	printf '\377\377\377\377' | dd of="$dump" bs=1 seek=$((off + 40)) conv=notrunc 2>/dev/null
	"$REPLAY" --jit -o "$d/bad.data" "$d/perf.data" 2>"$d/bad.err"
	st=$?
	[ $st -eq 1 ] && ok "not: damaged dump: exit $st, expected 1" || bad "damaged dump: exit $st, expected 1"
	hex=$(printf '%x' "$off")
	grep -q "$(basename "$dump"): offset 0x$hex: CODE_LOAD: code_size" "$d/bad.err" && ok "not: damage not reported at 0x$hex" ||
		bad "damage not reported at 0x$hex: $(cat "$d/bad.err")"
	grep -q -- '--jit: 999 JIT functions' "$d/bad.err" && ok "not: the 999 functions before the damage" ||
		bad "the 999 functions before the damage: $(cat "$d/bad.err")"
	at_least "$(share "$d/bad.data" hot_fn_3)" 20 && ok "not: damaged dump: hot_fn_3 lost" || bad "damaged dump: hot_fn_3 lost"
fi
cp "$d/dump.orig" "$dump"

finish
