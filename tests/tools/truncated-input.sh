#!/bin/sh
# Truncation sweep: real perf.data files (tests/fixtures: a
# file-mode recording of perf record and a pipe-mode one) cut at every record
# boundary and every distance 1..7 either side (rec-plain: all 24 records; pd-pipe:
# every 4th record, varied distances), and at 180 random offsets.
# perfring-dump and perfring-replay must end by themselves (timeout 5) with a
# non-zero exit and a "TOOL: FILE: ..." message, never by a signal, and
# recover every record that ends before the cut: the dump's records are a
# prefix of the undamaged dump, replay's JSON records a prefix of the
# undamaged file's.  A pipe stream cut exactly at a record boundary is a
# shorter valid stream (exit 0).  HARDENING_RANDOM=N sets the count of
# random offsets per file (default 60 times PERFRING_TEST_SCALE).
. "$top_srcdir/tests/testlib.sh"
use_build_plugins
SKIP_TYPES='ATTR|HEADER_ATTR|FINISHED_ROUND|FEATURE|COMPRESSED|TRACING_DATA|HEADER_FEATURE|HEADER_BUILD_ID|HEADER_EVENT_TYPE|HEADER_TRACING_DATA'
jtypes() { sed -n 's/^{"type":"\([A-Z_0-9]*\)".*/\1/p' | grep -Evx "$SKIP_TYPES"; }

cuts=0 fails0=0
# sweep NAME FILE CUT...: the checks at each cut
sweep() {
	name=$1 src=$2; shift 2
	bad_here=0
	i=0
	for cut in "$@"; do
		i=$((i + 1))
		[ "$cut" -ge 0 ] && [ "$cut" -lt "$size" ] || continue
		cuts=$((cuts + 1))
		head -c "$cut" "$src" > "$W/cut.data"
		# records that end at or before the cut
		min=$(awk -v c="$cut" '$1 + 0 <= c { n = NR } END { print n + 0 }' "$W/ends")
		boundary=false
		$pipe && [ $cut -ge 16 ] && grep -qx "$cut" "$W/starts" && boundary=true
		$pipe && [ $cut -eq 16 ] && boundary=true
		want=2; $boundary && want=0
		timeout 5 "$DUMP" "$W/cut.data" > "$W/d.out" 2> "$W/d.err"
		rc=$?
		got=$(wc -l < "$W/d.out")
		if [ $rc -ne $want ]; then
			bad "$name cut at $cut: perfring-dump exit $rc, expected $want"
			sed 's/^/#   /' "$W/d.err" | head -3; bad_here=1; continue
		fi
		if [ $want -ne 0 ] && ! grep -Eq '^perfring-dump: [^ ]+: offset 0x[0-9a-f]+: .+' "$W/d.err"; then
			bad "$name cut at $cut: perfring-dump: no message"; bad_here=1; continue
		fi
		if ! head -n "$got" "$W/full.dump" | cut -d' ' -f1,5 | cmp -s - "$W/d.out.ft" 2>/dev/null &&
		   ! { cut -d' ' -f1,5 "$W/d.out" > "$W/d.out.ft";
		       head -n "$got" "$W/full.dump" | cut -d' ' -f1,5 | cmp -s - "$W/d.out.ft"; }; then
			bad "$name cut at $cut: perfring-dump printed records not in the undamaged dump"; bad_here=1; continue
		fi
		if [ "$got" -lt "$min" ]; then
			bad "$name cut at $cut: perfring-dump printed $got records, $min end before the cut"; bad_here=1; continue
		fi
		# replay: the records as JSON lines, and to a perf.data
		timeout 5 "$REPLAY" --json-out "$W/cut.data" > "$W/r.out" 2> "$W/r.err"
		rc=$?
		rwant=1; $boundary && [ $cut -gt 16 ] && rwant=0
		if [ $rc -ne $rwant ] && { [ $rwant -eq 0 ] || [ $rc -eq 0 ] || [ $rc -ge 124 ]; }; then
			bad "$name cut at $cut: perfring-replay exit $rc, expected $rwant"
			sed 's/^/#   /' "$W/r.err" | head -3; bad_here=1; continue
		fi
		if [ $rwant -ne 0 ] && ! grep -q "^perfring-replay: $W/cut.data: " "$W/r.err"; then
			bad "$name cut at $cut: perfring-replay: no message naming the file"
			sed 's/^/#   /' "$W/r.err" | head -3; bad_here=1; continue
		fi
		jtypes < "$W/r.out" > "$W/r.types"
		rgot=$(wc -l < "$W/r.types")
		rmin=$(head -n "$min" "$W/full.dump" | cut -d' ' -f5 | grep -Evxc "$SKIP_TYPES")
		if ! head -n "$rgot" "$W/full.types" | cmp -s - "$W/r.types" || [ "$rgot" -lt "$rmin" ]; then
			bad "$name cut at $cut: perfring-replay recovered $rgot records (at least $rmin expected, a prefix)"
			bad_here=1; continue
		fi
		[ $((i % 5)) -eq 0 ] || continue	# -o on every 5th cut
		timeout 5 "$REPLAY" -o "$W/out.data" "$W/cut.data" > /dev/null 2> "$W/r.err"
		rc=$?
		if [ $rc -ge 124 ] || { [ $rc -eq 0 ] && ! $boundary; }; then
			bad "$name cut at $cut: perfring-replay -o: exit $rc"; bad_here=1; continue
		fi
	done
	[ $bad_here -eq 0 ] && ok "$name: $# cuts: exit and message right, every record before the cut recovered"
}

for f in rec-plain pd-file pd-pipe; do
	src="$FX/$f.data"
	size=$(stat -c %s "$src")
	"$DUMP" "$src" > "$W/full.dump" 2>"$W/full.err"
	status "$f: undamaged dump" 0 $?
	"$REPLAY" --json-out "$src" 2>/dev/null | jtypes > "$W/full.types"
	cut -d' ' -f5 "$W/full.dump" | grep -Evx "$SKIP_TYPES" | cmp -s - "$W/full.types" &&
		ok "$f: replay's JSON records are the dump's records" ||
		bad "$f: replay's JSON records differ from the dump's"
	# decimal start offsets, and end offsets (the next start; the data end)
	while read -r off rest; do echo $((off)); done < "$W/full.dump" > "$W/starts"
	case $f in
	pd-pipe) pipe=true; end=$size ;;
	*) pipe=false; end=$(( $(u64 "$src" 40) + $(u64 "$src" 48) )) ;;
	esac
	{ tail -n +2 "$W/starts"; echo "$end"; } > "$W/ends"
	list=
	case $f in
	pd-file) ;;	# random offsets only
	pd-pipe) # every 4th boundary, a different distance each time
		k=0
		for b in $(cat "$W/starts") $end; do
			k=$((k + 1)); [ $((k % 4)) -eq 0 ] || continue
			list="$list $b $((b + k % 8)) $((b - k % 7 - 1))"
		done ;;
	*) for b in $(cat "$W/starts") $end; do
		for d in -7 -6 -5 -4 -3 -2 -1 0 1 2 3 4 5 6 7; do list="$list $((b + d))"; done
	   done ;;
	esac
	[ -n "$list" ] && sweep "$f boundaries" "$src" $list
	# random offsets over the whole file (headers, attrs, data, features)
	list=$(awk -v n="${HARDENING_RANDOM:-$(scaled 60)}" -v s="$size" -v seed="$size" \
		'BEGIN { srand(seed); for (i = 0; i < n; i++) print int(rand() * s) }')
	sweep "$f random" "$src" $list
done
echo "# $cuts cuts"
finish
