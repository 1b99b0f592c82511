#!/bin/sh
# perfring-dump --check on inputs with known problems, written by
# tests/tools/dump-mkbad (a ring file and a pipe-mode perf.data): every problem is
# reported at the offset of its record, with exit 1; the same records
# without the bad ones check clean (exit 0).  Every perf.data fixture
# checks clean and counts as perf report -D counted it.
. "$top_srcdir/tests/testlib.sh"
MK="$B/tests/tools/dump-mkbad"

# reported KIND FILE CHECKOUT ERE: the problem KIND at the offset mkbad gave
reported() {
	off=$(awk -v k="$1" '$1 == k { printf "0x%x", $2 }' "$W/$2.where")
	if [ -z "$off" ]; then bad "$2: dump-mkbad wrote no $1 record"; return; fi
	re=$(printf '%s' "$3" | sed "s/@OFF@/$off/g")
	has "$2: $1 reported at $off" "$W/$2.check" "^$W/$2: offset $off: $re"
}

"$MK" ring "$W/bad.ring" > "$W/bad.ring.where" || { echo "dump-mkbad failed"; exit 1; }
"$MK" pipe "$W/bad.pipe" > "$W/bad.pipe.where" || { echo "dump-mkbad failed"; exit 1; }
"$MK" good "$W/good.pipe" > /dev/null || { echo "dump-mkbad failed"; exit 1; }

for f in bad.ring bad.pipe; do
	"$DUMP" --check "$W/$f" > "$W/$f.check" 2> "$W/$f.err"
	status "$f: --check" 1 $?
	empty "$f: nothing on stderr" "$W/$f.err"
	reported short8 "$f" "MMAP2 record at offset @OFF@ is 8 bytes short of its sample_id_all trailer"
	reported comm32 "$f" "COMM record at offset @OFF@ is 32 bytes short of its sample_id_all trailer"
	reported chain "$f" "SAMPLE.*(callchain|CALLCHAIN)"
	reported unknownid "$f" "SAMPLE record: sample id 99 matches no event"
	reported exitlong "$f" "EXIT record has 8 bytes more than its body"
	want=$(wc -l < "$W/$f.where")
	got=$(grep -c "^$W/$f: offset " "$W/$f.check")
	[ "$got" -eq "$want" ] && ok "$f: $want problems, no others" ||
		{ bad "$f: $got problems reported, $want expected"; sed 's/^/#   /' "$W/$f.check"; }
	has "$f: summary line" "$W/$f.check" "^$W/$f: [0-9]+ records, $want problems"
	# the dump itself still shows every record
	"$DUMP" "$W/$f" > "$W/$f.txt" 2>&1
	status "$f: dump of a file with problems" 0 $?
done
reported backward bad.ring "SAMPLE record time 1250 goes back 50 ns"
reported attr2 bad.pipe "attr 1: the sample id is not where attr 0 has it.*non matching sample_type"
reported order bad.pipe "SAMPLE record time 1250 is older than 1300, the newest record before the FINISHED_ROUND"

"$DUMP" --check "$W/good.pipe" > "$W/good.check" 2>&1
status "good.pipe: --check" 0 $?
has "good.pipe: clean summary" "$W/good.check" "^$W/good.pipe: [0-9]+ records, 0 problems$"
[ "$(wc -l < "$W/good.check")" -eq 1 ] && ok "good.pipe: only the summary line" ||
	bad "good.pipe: more than the summary line"

# every perf.data fixture (all written by perf record): --check clean, and
# --stats equal to the perf report -D "Aggregated stats" kept beside it
for F in "$FX"/*.data; do
	f=$(basename "$F")
	case $f in *.old) continue ;; esac
	"$DUMP" --check "$F" > "$W/fx.check" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(wc -l < "$W/fx.check")" -eq 1 ]; then
		ok "fixture $f: --check clean"
	else
		bad "fixture $f: --check exit $rc:"; sed 's/^/#   /' "$W/fx.check" | head -5
	fi
	st="${F%.data}.stats"
	[ -f "$st" ] || continue
	awk '/^Aggregated stats:/ { on = 1; next } on && / stats:$/ { exit }
	     on && $2 == "events:" { print $1, $3 }' "$st" > "$W/fx.all"
	{ grep -v '^TOTAL ' "$W/fx.all"; grep '^TOTAL ' "$W/fx.all"; } > "$W/fx.perf"
	"$DUMP" --stats "$F" > "$W/fx.ours" 2>&1
	same "fixture $f: --stats equals perf report -D" "$W/fx.perf" "$W/fx.ours"
done

# the same through standard input (a pipe)
cat "$W/bad.pipe" | "$DUMP" --check - > "$W/stdin.check" 2>&1
status "bad.pipe from a pipe: --check" 1 $?
has "stdin: problems named with '-'" "$W/stdin.check" "^-: offset 0x[0-9a-f]+: MMAP2 record"
finish
