#!/bin/sh
# The legacy "PERFFILE" perf.data format (perf 2.6.31 .. 3.x), as
# tests/tools/legacy-mk writes it the way perf record of those versions
# did (80 MMAP, 2 COMM, 1 FORK, 400 SAMPLE, 2 EXIT; IP|TID|TIME|PERIOD, no
# sample_id_all; attr.size 0), in both byte orders, against perf:
#  - perfring-dump --stats equals perf report --stats, --check is clean,
#    the text dump (one line per record) and --json work, --header names
#    the format and lists the BUILD_ID table as perf buildid-list does
#    (also the table without pids of 2.6.33);
#  - perfring-replay -o OUT writes a PERFILE2 file whose perf script lines
#    are perf's lines for the legacy input.
# Where perf 6.1 itself misreads an input, its twin that perf reads is the
# reference, and the test says so: a byte-swapped file with attr.size 0
# (perf swaps no attr field past attr.size, so its samples do not decode),
# a 2.6.33 file with two events (perf reads a 72-byte attr as 64 bytes,
# its ids 8 bytes early: "non matching sample_type"), a byte-swapped pipe
# (perf's try_all_pipe_abis compares the swapped size with itself).
. "$top_srcdir/tests/testlib.sh"
need_perf
MK=$B/tests/tools/legacy-mk
[ -x "$MK" ] || die "no $MK (make check builds it)"

# NAME: OPTIONS (the twin perf reads, for perf script, is $NAME's "n" twin
# unless set in ref_NAME)
variants="n34 s34 n33 s33 n32 s32 ne32 se32 ne33 se33 np sp ss34"
opts_n34="";		opts_s34="-s"			# 2.6.34-36: 104, BUILD_ID
opts_n33="-b old";	opts_s33="-s -b old"		# 2.6.33: BUILD_ID without pid
opts_n32="-H 72 -A 64";	opts_s32="-s -H 72 -A 64"	# 2.6.31/32: 72-byte header
opts_ne32="-H 72 -A 64 -e 2"; opts_se32="-s -H 72 -A 64 -e 2"	# two events
opts_ne33="-e 2";	opts_se33="-s -e 2"		# two 72-byte attrs
opts_np="-p";		opts_sp="-s -p"			# pipe mode (2.6.35 on)
opts_ss34="-s -S 72"					# swapped, attr.size set
ref_ne33=ne32; ref_se33=ne32; ref_sp=np; ref_ss34=ss34

for v in $variants; do
	eval "o=\$opts_$v"
	"$MK" $o "$W/$v.data" || die "legacy-mk $o failed"
done
ok "legacy-mk wrote $(echo $variants | wc -w) variants"

# perf's own reading of each, for the record
for v in $variants; do
	"$PERF" report --stats -i "$W/$v.data" > "$W/$v.pstats" 2> "$W/$v.perr"
	prc=$?
	"$PERF" script -i "$W/$v.data" > "$W/$v.pscript" 2>> "$W/$v.perr"
	eval "o=\$opts_$v"
	printf '# perf 6.1 on %s (%s): report --stats exit %s, %s; script: %s lines %s\n' \
	       "$v" "$o" $prc "$(awk '$2 == "events:" { printf "%s %s ", $1, $3 }' "$W/$v.pstats")" \
	       "$(wc -l < "$W/$v.pscript")" "$(head -n 1 "$W/$v.perr")"
done
[ ! -s "$W/s34.pscript" ] && [ -s "$W/n34.pscript" ] &&
	ok "perf itself decodes no sample of a byte-swapped legacy file with attr.size 0 (its twin: $(wc -l < "$W/n34.pscript") lines)" ||
	ok "perf now decodes the byte-swapped legacy file (was: no sample)"
grep -q 'non matching sample_type' "$W/ne33.perr" &&
	ok "perf itself refuses the 2.6.33 file with two events (non matching sample_type)" ||
	ok "perf now reads the 2.6.33 file with two events"
grep -q 'incompatible file format' "$W/sp.perr" &&
	ok "perf itself refuses the byte-swapped legacy pipe (incompatible file format)" ||
	ok "perf now reads the byte-swapped legacy pipe"

for v in $variants; do
	F=$W/$v.data
	eval "r=\${ref_$v:-n${v#?}}"
	# --stats: perf's Aggregated stats when perf reads the file, else the twin's
	s=$v
	[ -s "$W/$v.pstats" ] || s=$r
	awk '/^Aggregated stats:/ { on = 1; next }
	     on && / stats:$/ { exit }
	     on && $2 == "events:" { print $1, $3 }' "$W/$s.pstats" > "$W/$v.pall"
	{ grep -v '^TOTAL ' "$W/$v.pall"; grep '^TOTAL ' "$W/$v.pall"; } > "$W/$v.perf"
	[ -s "$W/$v.perf" ] || bad "$v: no stats from perf on $s"
	"$DUMP" --stats "$F" > "$W/$v.ours" 2> "$W/$v.err"
	status "$v: --stats" 0 $?
	same "$v: --stats equals perf report --stats on $s" "$W/$v.perf" "$W/$v.ours"
	"$DUMP" --stats - < "$F" > "$W/$v.ours2" 2>> "$W/$v.err"
	same "$v: --stats from standard input" "$W/$v.perf" "$W/$v.ours2"
	empty "$v: --stats: nothing on stderr" "$W/$v.err"

	"$DUMP" --check "$F" > "$W/$v.check" 2>&1
	status "$v: --check" 0 $?
	total=$(awk '$1 == "TOTAL" { print $2 }' "$W/$v.ours")
	grep -Eq "^$F: $total records, 0 problems" "$W/$v.check" &&
		[ "$(wc -l < "$W/$v.check")" -eq 1 ] && ok "$v: --check: $total records, 0 problems" ||
		{ bad "$v: --check output:"; sed 's/^/#   /' "$W/$v.check" | head -10; }

	"$DUMP" "$F" > "$W/$v.txt" 2> "$W/$v.err"
	status "$v: text dump" 0 $?
	[ "$(wc -l < "$W/$v.txt")" = "$total" ] && ok "$v: text dump has $total lines" ||
		bad "$v: text dump has $(wc -l < "$W/$v.txt") lines for $total records"
	hasnt "$v: every record decodes" "$W/$v.txt" "does not decode|malformed"
	has "$v: samples decode (ip, pid/tid, time, period)" "$W/$v.txt" \
		'424[23]/424[23] SAMPLE ip 0x400100 period'
	"$DUMP" --json "$F" > "$W/$v.json" 2> "$W/$v.err"
	status "$v: --json" 0 $?
	"$DUMP" --header "$F" > "$W/$v.hdr" 2> "$W/$v.err"
	status "$v: --header" 0 $?
	has "$v: --header names the legacy format" "$W/$v.hdr" 'legacy PERFFILE format'
	has "$v: --header names the event as perf does" "$W/$v.hdr" '^attr 0: cycles:HG$'
	case $v in
	s*) has "$v: --header: byte-swapped" "$W/$v.hdr" 'other byte order' ;;
	esac
	if grep -q BUILD_ID "$W/$v.hdr"; then
		# (the table of every 104-byte variant is n34's; perf refuses some)
		b=$F
		[ -s "$W/$v.pstats" ] || b=$W/n34.data
		"$PERF" buildid-list -i "$b" > "$W/$v.bid" 2>/dev/null
		sed -n 's/^  build_id : \([0-9a-f]*\) \(.*\) (pid .*)$/\1 \2/p' "$W/$v.hdr" > "$W/$v.obid"
		[ -s "$W/$v.bid" ] && same "$v: BUILD_ID table as perf buildid-list lists it" \
			"$W/$v.bid" "$W/$v.obid" || bad "$v: perf buildid-list listed nothing"
	fi

	O=$W/$v.out
	"$REPLAY" -o "$O" "$F" > "$W/$v.rout" 2> "$W/$v.rerr"
	status "$v: replay -o OUT" 0 $?
	[ "$(head -c 8 "$O")" = PERFILE2 ] && ok "$v: replay wrote a PERFILE2 file" ||
		bad "$v: replay output's magic is $(head -c 8 "$O" | od -An -c)"
	"$PERF" script -i "$O" > "$W/$v.oscript" 2> "$W/$v.oerr"
	status "$v: perf script on the rewrite" 0 $?
	n=$(wc -l < "$W/$r.pscript")
	[ "$n" -eq 400 ] || bad "$v: perf script gave $n lines on the reference $r"
	same "$v: perf script on the rewrite gives perf's $n lines on $r" \
		"$W/$r.pscript" "$W/$v.oscript"
	"$PERF" report --stats -i "$O" > "$W/$v.ostats" 2>&1
	for t in MMAP COMM EXIT FORK SAMPLE; do
		a=$(awk -v t=$t '$1 == t && $2 == "events:" { print $3; exit }' "$W/$v.ostats")
		b=$(awk -v t=$t '$1 == t { print $2 }' "$W/$v.ours")
		[ "$a" = "$b" ] && ok "$v: the rewrite keeps its $b $t records" ||
			bad "$v: the rewrite has ${a:-no} $t records, the input $b"
	done
done

# The library's probe classifies every one as perf.data (replay and dump
# tell inputs by it); a byte-swapped "ELIFFREP" magic is no perf.data.
cp "$W/n34.data" "$W/bad.data" && poke "$W/bad.data" 0 'ELIFFREP'
"$DUMP" --stats "$W/bad.data" > "$W/bad.out" 2> "$W/bad.err"
[ $? -ne 0 ] && ok "\"ELIFFREP\" magic: refused" || bad "\"ELIFFREP\" magic: accepted"
cp "$W/n34.data" "$W/bad2.data" && poke "$W/bad2.data" 16 '\141'
"$DUMP" --stats "$W/bad2.data" > "$W/bad2.out" 2> "$W/bad2.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'attr entry size' "$W/bad2.err" && grep -q '0x10' "$W/bad2.err" &&
	ok "a legacy header whose attr_size tells no byte order: exit 2, the offset: $(head -n 1 "$W/bad2.err")" ||
	bad "bad attr_size: exit $rc: $(cat "$W/bad2.err")"
finish
