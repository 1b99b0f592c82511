#!/bin/sh
# Compression (-z, --compression-level[=N]) against the real perf:
#  - perfring-replay -z of a -g recording: perf script prints the same
#    output as for the original, the file is at least 3x smaller, perf
#    report -D sees COMPRESSED records and --header-only the COMPRESSED
#    feature with its level; the same in pipe mode (-o -);
#  - perfring-record -z -g: perf report reads it without a warning, perf
#    script has every sample of the summary, and its bytes per sample are
#    at least 3x fewer than without -z;
#  - perfring-dump (and so the library's reader) reads them, and perf
#    record -z's own file;
#  - usage: a level out of range, -z with --stat or a --ring only.
# Skips (77) only without perf or perf_event_open.
set -u
name=record-compress.sh
. "$top_srcdir/tests/record-lib.sh"
size() { wc -c <"$1"; }
samples() { sed -n 's/^perfring-record: \([0-9][0-9]*\) samples, .*/\1/p' "$1"; }

# 1. A -g recording and its -z replay.
"$rec" -e cpu-clock -F 4000 -g -o g.data -- "$wl/wl-busy" 0.5 2>rec.err ||
	fail "record: exit $?: $(cat rec.err)"
"$replay" -z -o gz.data g.data 2>rep.err || fail "replay -z: exit $?: $(cat rep.err)"
"$perf" script -i g.data >a.txt 2>a.err
"$perf" script -i gz.data >b.txt 2>b.err
[ "$(wc -l <a.txt)" -gt 1000 ] || fail "perf script of g.data: only $(wc -l <a.txt) lines"
cmp -s a.txt b.txt || fail "perf script differs for the -z replay: $(diff a.txt b.txt | head -5)"
[ -s b.err ] && fail "perf script warned on the -z replay: $(cat b.err)"
echo "-g: $(size g.data) bytes, -z replay $(size gz.data) bytes; perf script: $(wc -l <a.txt) lines, same"
[ $(( $(size gz.data) * 3 )) -le "$(size g.data)" ] ||
	fail "-z replay not 3x smaller: $(size gz.data) of $(size g.data) bytes"
"$perf" report -i gz.data --header-only 2>/dev/null | grep -q '^# compressed : Zstd, level = 1, ratio = [1-9]' ||
	fail "no COMPRESSED feature: $("$perf" report -i gz.data --header-only 2>&1 | grep -i compress)"
nz=$("$perf" report -i gz.data -D 2>/dev/null | sed -n 's/^ *COMPRESSED events: *\([0-9]*\).*/\1/p')
[ -n "$nz" ] && [ "$nz" -gt 0 ] || fail "perf report -D counts no COMPRESSED records"
"$perf" report -i gz.data --stdio -q --no-children >r.txt 2>r.err
[ -s r.err ] && fail "perf report warned: $(cat r.err)"
grep -q hot_function r.txt || fail "perf report: no hot_function: $(head -3 r.txt)"

# --compression-level=N, and pipe mode.
"$replay" --compression-level=19 -o g19.data g.data 2>rep.err || fail "level 19: exit $?: $(cat rep.err)"
"$perf" report -i g19.data --header-only 2>/dev/null | grep -q '^# compressed : Zstd, level = 19,' ||
	fail "level 19 not in the COMPRESSED feature"
"$perf" script -i g19.data 2>/dev/null | cmp -s a.txt - || fail "perf script differs at level 19"
"$replay" -z -o - g.data 2>rep.err | "$perf" script -i - >c.txt 2>c.err
cmp -s a.txt c.txt || fail "perf script differs for a -z pipe: $(head -3 c.err)"

# 2. perfring-record -z -g, against perfring-record -g of the same workload.
"$rec" -z -e cpu-clock -F 4000 -g -o z.data -- "$wl/wl-busy" 0.5 2>recz.err ||
	fail "record -z: exit $?: $(cat recz.err)"
cat recz.err
grep -q 'MB written to z.data, compressed (original [0-9.]* MB)$' recz.err ||
	fail "record -z: the summary does not say it compressed: $(cat recz.err)"
grep -q 'compressed' rec.err && fail "record without -z says compressed: $(cat rec.err)"
nplain=$(samples rec.err) nz=$(samples recz.err)
lines=$("$perf" script -i z.data -F ip -G 2>z.err | wc -l)
[ "$lines" = "$nz" ] || fail "record -z: perf script $lines samples, the summary $nz"
[ -s z.err ] && fail "perf script warned on record -z: $(cat z.err)"
"$perf" report -i z.data --stdio -q >/dev/null 2>z.err
[ -s z.err ] && fail "perf report warned on record -z: $(cat z.err)"
# bytes per sample, at least 3x fewer
[ $(( $(size z.data) * nplain * 3 )) -le $(( $(size g.data) * nz )) ] ||
	fail "record -z: $(size z.data) bytes for $nz samples vs $(size g.data) for $nplain"
echo "record -z -g: $(( $(size z.data) / nz )) bytes per sample, without -z $(( $(size g.data) / nplain ))"
"$rec" -z -e cpu-clock -o - -- "$wl/wl-busy" 0.2 2>/dev/null | "$perf" script -i - -F ip 2>/dev/null |
	wc -l >n.txt
[ "$(cat n.txt)" -gt 100 ] || fail "record -z -o -: $(cat n.txt) samples in perf script"

# 3. perfring-dump reads them (and perf record -z's own).
for f in gz.data z.data; do
	"$dump" --check "$f" >chk.txt 2>&1 || fail "perfring-dump --check $f: $(tail -3 chk.txt)"
done
s1=$("$dump" --stats g.data | grep '^SAMPLE ')
s2=$("$dump" --stats gz.data | grep '^SAMPLE ')
[ -n "$s1" ] && [ "$s1" = "$s2" ] || fail "perfring-dump --stats: '$s1' vs '$s2'"
"$dump" --stats gz.data | grep -q '^COMPRESSED [1-9]' || fail "perfring-dump sees no COMPRESSED"
if "$perf" record -q -z -e cpu-clock -o perfz.data -- "$wl/wl-busy" 0.1 2>/dev/null; then
	"$dump" --check perfz.data >chk.txt 2>&1 || fail "perfring-dump --check perf's -z file: $(tail -3 chk.txt)"
fi

# 4. Usage.
expect 2 "needs a level from 0 (none) to 22" -- "$rec" --compression-level=23 -- true
expect 2 "needs a level from 0 (none) to 22" -- "$replay" --compression-level=x -o y.data g.data
expect 2 "-z compresses the perf.data output" -- "$rec" -z --stat -- true
expect 2 "-z compresses the perf.data output" -- "$rec" -z --ring r.ring -- true
"$rec" --help | grep -q -- "--compression-level" || fail "--help lacks --compression-level"
"$replay" --help | grep -q -- "--compression-level" || fail "replay --help lacks --compression-level"

done_ok
