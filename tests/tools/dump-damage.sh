#!/bin/sh
# perfring-dump on damaged perf.data files derived from real perf record
# output (tests/fixtures/pd-*.data: file and pipe mode, with and without
# zstd): truncation at many offsets, a record size of 0, a size past the
# end, a bad attr size, a wrong magic, garbage.  Each must give exit 2
# within a second (timeout 5 catches hangs), a message
# "perfring-dump: FILE: offset 0x…: what" on stderr, and on stdout the
# records before the damage: a prefix of the undamaged dump holding every
# record that ends before the damage.
. "$top_srcdir/tests/testlib.sh"
MSG='^perfring-dump: [^ ]+: offset 0x[0-9a-f]+: .+'

# u16le FILE OFFSET: read a little-endian u16

# damaged NAME FILE FULL-DUMP [MIN-LINES]: the checks every damaged input
# gets (the dump, then --stats and --check)
damaged() {
	timeout 5 "$DUMP" "$2" > "$W/d.out" 2> "$W/d.err"
	rc=$?
	if [ $rc -ne 2 ]; then
		bad "$1: exit $rc, expected 2"; sed 's/^/#   /' "$W/d.err" | head -3; return
	fi
	if ! grep -Eq "$MSG" "$W/d.err" || [ "$(wc -l < "$W/d.err")" -ne 1 ]; then
		bad "$1: stderr is not one 'perfring-dump: FILE: offset 0x…: what' line:"
		sed 's/^/#   /' "$W/d.err" | head -5; return
	fi
	got=$(wc -l < "$W/d.out")
	# offsets and types (event names may come from a feature cut away)
	cut -d' ' -f1,5 "$W/d.out" > "$W/d.out.ft"
	if ! head -n "$got" "$3" | cut -d' ' -f1,5 | cmp -s - "$W/d.out.ft"; then
		bad "$1: the records printed are not those of the undamaged file"; return
	fi
	if [ "$got" -lt "${4:-0}" ]; then
		bad "$1: $got records printed, at least $4 end before the damage"; return
	fi
	# the other modes read the same records: exit 2 and the same message
	for mode in --stats --check; do
		timeout 5 "$DUMP" $mode "$2" > /dev/null 2> "$W/d.err2"
		rc=$?
		if [ $rc -ne 2 ] || ! cmp -s "$W/d.err" "$W/d.err2"; then
			bad "$1: $mode: exit $rc:"; sed 's/^/#   /' "$W/d.err2" | head -3; return
		fi
	done
	ok "$1 ($got records, $(cut -d: -f4- "$W/d.err" | cut -c1-70))"
}

# complete FULL-DUMP CUT: records of the dump that end at or before CUT
# (a record ends where the next begins; uncompressed files only)
complete() {
	awk -v cut="$2" '{ o = strtonum($1) } NR > 1 && o <= cut { n = NR - 1 } END { print n + 0 }' "$1" 2>/dev/null ||
	echo 0
}
# mawk has no strtonum: fall back to printf
if ! awk 'BEGIN { strtonum("0x10") }' 2>/dev/null; then
	complete() {
		n=0; i=0
		while read -r off rest; do
			i=$((i + 1))
			[ $i -gt 1 ] && [ $((off)) -le "$2" ] && n=$((i - 1))
		done < "$1"
		echo $n
	}
fi

for f in pd-file pd-pipe pd-zstd pd-pipe-zstd pd-callchain pd-two; do
	src="$FX/$f.data"
	"$DUMP" "$src" > "$W/$f.full" 2>"$W/$f.err"
	status "$f: undamaged dump" 0 $?
	size=$(stat -c %s "$src")
	case $f in *zstd*) exact=false ;; *) exact=true ;; esac
	# truncation: the header, every 8th of the file, odd offsets
	for cut in 0 1 7 8 15 16 17 40 103 104 200 \
		   $((size / 8)) $((size / 4)) $((size * 3 / 8)) $((size / 2)) \
		   $((size * 5 / 8)) $((size * 3 / 4)) $((size * 7 / 8)) \
		   $((size / 3 + 5)) $((size / 2 + 3)) $((size - 9)) $((size - 1)); do
		[ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$src" > "$W/cut.data"
		min=0
		$exact && min=$(complete "$W/$f.full" "$cut")
		case $f in *pipe*)
			# a pipe stream has no end marker: cut at a record
			# boundary, it is a shorter stream
			if [ $cut -ge 16 ] && cut -d' ' -f1 "$W/$f.full" |
			   grep -qx "$(printf '0x%08x' $cut)"; then
				timeout 5 "$DUMP" "$W/cut.data" > "$W/d.out" 2>&1
				status "$f cut at record boundary $cut" 0 $?
				continue
			fi
			[ $cut -eq 16 ] && { timeout 5 "$DUMP" "$W/cut.data" >/dev/null 2>&1
				status "$f: only the stream header" 0 $?; continue; }
		esac
		damaged "$f cut at $cut" "$W/cut.data" "$W/$f.full" "$min"
	done
done

# a record size of 0, and a size past the end: the 6th record of pd-file
src="$FX/pd-file.data"
off=$(printf '0x%x' $(awk 'NR == 6 { print $1 }' "$W/pd-file.full"))
cp "$src" "$W/z.data"; poke "$W/z.data" $((off + 6)) '\000\000'
damaged "pd-file: record size 0 at $off" "$W/z.data" "$W/pd-file.full" 5
has "pd-file: size 0 reported at its offset" "$W/d.err" "offset $off: .*size 0"
cp "$src" "$W/big.data"; poke "$W/big.data" $((off + 6)) '\370\377'
damaged "pd-file: record size past the end at $off" "$W/big.data" "$W/pd-file.full" 5
has "pd-file: size past the end reported at its offset" "$W/d.err" "offset $off: .*past the end"
# pipe mode: the last record claims 0xfff8 bytes
src="$FX/pd-pipe.data"
off=$(printf '0x%x' $(tail -n 1 "$W/pd-pipe.full" | cut -d' ' -f1))
lines=$(wc -l < "$W/pd-pipe.full")
cp "$src" "$W/pbig.data"; poke "$W/pbig.data" $((off + 6)) '\370\377'
damaged "pd-pipe: last record size past the end" "$W/pbig.data" "$W/pd-pipe.full" $((lines - 1))
cp "$src" "$W/pz.data"; poke "$W/pz.data" $((off + 6)) '\000\000'
damaged "pd-pipe: last record size 0" "$W/pz.data" "$W/pd-pipe.full" $((lines - 1))
# an odd size in a pipe: the reader goes on at a wrong offset and must stop
cp "$src" "$W/podd.data"; poke "$W/podd.data" $((off + 6)) '\011\000'
timeout 5 "$DUMP" "$W/podd.data" > /dev/null 2>"$W/d.err"
rc=$?
[ $rc -le 2 ] && ok "pd-pipe: last record size 9: exit $rc, no crash or hang" ||
	bad "pd-pipe: last record size 9: exit $rc"

# bad attr size: file mode (attr.size in the attr section), pipe mode
# (attr.size of the HEADER_ATTR record at 16)
src="$FX/pd-file.data"
aoff=$(u64 "$src" 24)
for v in '\003\000\000\000' '\000\020\000\000' '\377\377\377\377'; do
	cp "$src" "$W/a.data"; poke "$W/a.data" $((aoff + 4)) "$v"
	damaged "pd-file: attr.size $(od -An -t u4 -j $((aoff + 4)) -N 4 "$W/a.data" | tr -d ' ')" "$W/a.data" "$W/pd-file.full"
done
cp "$src" "$W/a.data"; poke "$W/a.data" 16 '\007\000\000\000\000\000\000\000'
damaged "pd-file: header attr_size 7" "$W/a.data" "$W/pd-file.full"
src="$FX/pd-pipe.data"
for v in '\003\000\000\000' '\000\001\000\000'; do
	cp "$src" "$W/pa.data"; poke "$W/pa.data" $((16 + 8 + 4)) "$v"
	damaged "pd-pipe: HEADER_ATTR attr.size $(od -An -t u4 -j 28 -N 4 "$W/pa.data" | tr -d ' ')" "$W/pa.data" "$W/pd-pipe.full"
done

# wrong magic, garbage, empty
cp "$FX/pd-file.data" "$W/m.data"; poke "$W/m.data" 0 'X'
damaged "wrong magic" "$W/m.data" "$W/pd-file.full"
has "wrong magic: says so" "$W/d.err" "offset 0x0: unknown magic"
head -c 20000 /dev/urandom > "$W/garbage.data"
damaged "garbage" "$W/garbage.data" "$W/pd-file.full"
: > "$W/empty.data"
damaged "empty file" "$W/empty.data" "$W/pd-file.full"
# a valid pipe header followed by garbage, a few times, also through a pipe
for i in 1 2 3 4 5; do
	{ printf 'PERFILE2\020\000\000\000\000\000\000\000'; head -c 5000 /dev/urandom; } > "$W/pg.data"
	timeout 5 "$DUMP" - < "$W/pg.data" > /dev/null 2>"$W/d.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -Eq '^perfring-dump: -: offset 0x' "$W/d.err"; then
		ok "pipe header + garbage ($i) on standard input: exit 2 with an offset"
	else
		bad "pipe header + garbage ($i): exit $rc:"; sed 's/^/#   /' "$W/d.err" | head -3
	fi
done
# mutations: two bytes overwritten at spread offsets (record sizes, attr
# fields, compressed data...): every mode ends by itself with 0, 1 or 2
for f in pd-file pd-pipe pd-zstd pd-pipe-zstd; do
	src="$FX/$f.data"
	size=$(stat -c %s "$src")
	worst=0
	for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
		off=$(( (seed * 7919 + seed * seed * 104729) % size ))
		cp "$src" "$W/mut.data"
		case $((seed % 4)) in
		0) v='\000\000' ;; 1) v='\377\377' ;; 2) v='\011\000' ;; *) v='\370\377' ;;
		esac
		poke "$W/mut.data" "$off" "$v"
		for mode in "" --json --stats --check --header; do
			timeout 5 "$DUMP" $mode "$W/mut.data" > /dev/null 2>"$W/mut.err"
			rc=$?
			if [ $rc -gt 2 ]; then
				worst=$rc
				echo "# $f: $v at $off, $mode: exit $rc"; head -3 "$W/mut.err" | sed 's/^/#   /'
			fi
		done
	done
	[ $worst -eq 0 ] && ok "$f: 12 mutations x 5 modes: no crash, no hang" ||
		bad "$f: mutations: a crash or a hang"
done

# the damaged modes: --stats, --json and --check also exit 2
for mode in --stats --json --check --header; do
	timeout 5 "$DUMP" $mode "$W/z.data" > /dev/null 2>"$W/d.err"
	status "$mode on a record of size 0" 2 $?
done
finish
