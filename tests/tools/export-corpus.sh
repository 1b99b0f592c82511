#!/bin/sh
# perfring-export on the reader's corpus: every perf.data of tests/fixtures
# (perf 6.1 recordings in file and pipe mode, zstd, groups, two events,
# call chains, DWARF registers and stacks, ...; the .old twins in the
# previous layout), their byte-swapped copies (tests/tools/pd-swap) and the
# legacy PERFFILE variants of tests/tools/legacy-mk.  Wherever
# perfring-dump --check is clean the conversion succeeds and the profile
# (read by go tool pprof -raw) holds as many samples as perf report
# --stats counts (without perf: the fixtures' .stats files).  Then damage: a file cut
# inside a record gives the samples before the cut, one message naming the
# file and the byte offset, exit 1.
. "$top_srcdir/tests/testlib.sh"
. "$top_srcdir/tests/tools/export-lib.sh"
perf_samples() {	# DATA STATS-FILE: perf's count (perf itself where it runs and
	# reads the file: perf 6.1 cannot read some pipe-mode files from a file,
	# whose .stats were made from the pipe)
	_n=
	if [ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
		_n=$("$PERF" report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	fi
	[ -n "$_n" ] || _n=$(awk '/SAMPLE events:/ { n = $3; exit } END { print n + 0 }' "$2")
	echo "$_n"
}

# check NAME DATA EXPECTED
check() {
	if ! "$DUMP" --check "$2" >check.out 2>&1; then
		"$EXP" -o "$1.pb.gz" "$2" >/dev/null 2>&1
		r=$?
		[ $r -le 2 ] && ok "$1: --check not clean, export exits $r (no crash)" ||
			bad "$1: export crashed ($r)"
		return
	fi
	"$EXP" -o "$1.pb.gz" "$2" 2>"$1.err"
	r=$?
	if [ $r -ne 0 ]; then
		bad "$1: export exit $r: $(head -3 "$1.err")"
		return
	fi
	n=$(pprof_samples "$1.pb.gz")
	[ "$n" = "$3" ] && ok "$1: $n samples, as perf counts" ||
		bad "$1: $n samples in the profile, perf counts $3"
}

nfx=0
for f in "$FX"/*.data "$FX"/*.data.old; do
	[ -f "$f" ] || continue
	b=${f##*/}
	st=$FX/${b%%.data*}.stats
	[ -f "$st" ] || continue
	nfx=$((nfx + 1))
	check "$b" "$f" "$(perf_samples "$f" "$st")"
	# the other byte order (file mode only: pd-swap swaps file-mode data)
	case $b in *pipe*|*.old) continue ;; esac
	if "$B/tests/tools/pd-swap" "$f" "$b.swapped" 2>/dev/null; then
		check "$b swapped" "$b.swapped" "$(perf_samples "$f" "$st")"
	fi
done
[ $nfx -ge 20 ] && ok "$nfx fixtures" || bad "only $nfx fixtures with .stats found in $FX"

# The legacy PERFFILE format: 400 samples each (tests/tools/legacy-mk).
for v in "" "-s" "-b old" "-H 72 -A 64" "-s -H 72 -A 64" "-p" "-s -S 72"; do
	"$B/tests/tools/legacy-mk" $v legacy.data || die "legacy-mk $v failed"
	check "legacy $v" legacy.data 400
done

# Damage: cut in the middle of the data section (of a recording made
# elsewhere: the kernel's symbols are not this machine's, which a second
# line says).
f=$FX/pd-callchain.data
set -- $("$DUMP" --header "$f" | sed -n 's/^data: offset \(0x[0-9a-f]*\), size \([0-9]*\)$/\1 \2/p')
[ $# -eq 2 ] || die "no data section in perfring-dump --header $f"
head -c $(($1 + $2 / 2 + 3)) "$f" >cut.data
"$DUMP" --stats cut.data >cut.stats 2>cut.dump.err
"$EXP" -f folded -o cut.folded cut.data 2>cut.err
status "a cut file" 1 $?
has "the message names the file and offset" cut.err '^perfring-export: cut\.data: offset 0x[0-9a-f]+: '
[ "$(grep -c 'offset 0x' cut.err)" -eq 1 ] && ok "one damage message" ||
	bad "damage messages: $(cat cut.err)"
before=$(awk '$1 == "SAMPLE" { print $2 }' cut.stats)
got=$(awk '{ t += $NF } END { print t + 0 }' cut.folded)
[ -n "$before" ] && [ "$got" = "$before" ] && ok "the $got samples before the damage are written" ||
	bad "$got samples written, $before before the damage (perfring-dump --stats)"
finish
