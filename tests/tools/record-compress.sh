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
. "$top_srcdir/tests/testlib.sh"
need_perf
need_event_open
cd "$W" || exit 1
size() { wc -c <"$1"; }
samples() { sed -n 's/^perfring-record: \([0-9][0-9]*\) samples, .*/\1/p' "$1"; }

# 1. A -g recording and its -z replay.
"$REC" -e cpu-clock -F 4000 -g -o g.data -- "$WL/wl-busy" 0.5 2>rec.err && ok "record: exit $?" ||
	bad "record: exit $?: $(cat rec.err)"
"$REPLAY" -z -o gz.data g.data 2>rep.err && ok "replay -z: exit $?" || bad "replay -z: exit $?: $(cat rep.err)"
"$PERF" script -i g.data >a.txt 2>a.err
"$PERF" script -i gz.data >b.txt 2>b.err
[ "$(wc -l <a.txt)" -gt 1000 ] && ok "not: perf script of g.data: only" || bad "perf script of g.data: only $(wc -l <a.txt) lines"
cmp -s a.txt b.txt && ok "not: perf script differs for the -z replay" || bad "perf script differs for the -z replay: $(diff a.txt b.txt | head -5)"
[ -s b.err ] && bad "perf script warned on the -z replay: $(cat b.err)" || ok "not: perf script warned on the -z replay"
echo "-g: $(size g.data) bytes, -z replay $(size gz.data) bytes; perf script: $(wc -l <a.txt) lines, same"
[ $(( $(size gz.data) * 3 )) -le "$(size g.data)" ] && ok "not: -z replay not 3x smaller" ||
	bad "-z replay not 3x smaller: $(size gz.data) of $(size g.data) bytes"
"$PERF" report -i gz.data --header-only 2>/dev/null | grep -q '^# compressed : Zstd, level = 1, ratio = [1-9]' && ok "not: no COMPRESSED feature" ||
	bad "no COMPRESSED feature: $("$PERF" report -i gz.data --header-only 2>&1 | grep -i compress)"
nz=$("$PERF" report -i gz.data -D 2>/dev/null | sed -n 's/^ *COMPRESSED events: *\([0-9]*\).*/\1/p')
[ -n "$nz" ] && [ "$nz" -gt 0 ] && ok "not: perf report -D counts no COMPRESSED records" || bad "perf report -D counts no COMPRESSED records"
"$PERF" report -i gz.data --stdio -q --no-children >r.txt 2>r.err
[ -s r.err ] && bad "perf report warned: $(cat r.err)" || ok "not: perf report warned"
grep -q hot_function r.txt && ok "not: perf report: no hot_function" || bad "perf report: no hot_function: $(head -3 r.txt)"

# --compression-level=N, and pipe mode.
"$REPLAY" --compression-level=19 -o g19.data g.data 2>rep.err && ok "level 19: exit $?" || bad "level 19: exit $?: $(cat rep.err)"
"$PERF" report -i g19.data --header-only 2>/dev/null | grep -q '^# compressed : Zstd, level = 19,' && ok "not: level 19 not in the COMPRESSED feature" ||
	bad "level 19 not in the COMPRESSED feature"
"$PERF" script -i g19.data 2>/dev/null | cmp -s a.txt - && ok "not: perf script differs at level 19" || bad "perf script differs at level 19"
"$REPLAY" -z -o - g.data 2>rep.err | "$PERF" script -i - >c.txt 2>c.err
cmp -s a.txt c.txt && ok "not: perf script differs for a -z pipe" || bad "perf script differs for a -z pipe: $(head -3 c.err)"

# 2. perfring-record -z -g, against perfring-record -g of the same workload.
"$REC" -z -e cpu-clock -F 4000 -g -o z.data -- "$WL/wl-busy" 0.5 2>recz.err && ok "record -z: exit $?" ||
	bad "record -z: exit $?: $(cat recz.err)"
cat recz.err
grep -q 'MB written to z.data, compressed (original [0-9.]* MB)$' recz.err && ok "not: record -z: the summary does not say it compressed" ||
	bad "record -z: the summary does not say it compressed: $(cat recz.err)"
grep -q 'compressed' rec.err && bad "record without -z says compressed: $(cat rec.err)" || ok "not: record without -z says compressed"
nplain=$(samples rec.err) nz=$(samples recz.err)
lines=$("$PERF" script -i z.data -F ip -G 2>z.err | wc -l)
[ "$lines" = "$nz" ] && ok "not: record -z: perf script $lines samples, the summary $nz" || bad "record -z: perf script $lines samples, the summary $nz"
[ -s z.err ] && bad "perf script warned on record -z: $(cat z.err)" || ok "not: perf script warned on record -z"
"$PERF" report -i z.data --stdio -q >/dev/null 2>z.err
[ -s z.err ] && bad "perf report warned on record -z: $(cat z.err)" || ok "not: perf report warned on record -z"
# bytes per sample, at least 3x fewer
[ $(( $(size z.data) * nplain * 3 )) -le $(( $(size g.data) * nz )) ] && ok "not: record -z" ||
	bad "record -z: $(size z.data) bytes for $nz samples vs $(size g.data) for $nplain"
echo "record -z -g: $(( $(size z.data) / nz )) bytes per sample, without -z $(( $(size g.data) / nplain ))"
"$REC" -z -e cpu-clock -o - -- "$WL/wl-busy" 0.2 2>/dev/null | "$PERF" script -i - -F ip 2>/dev/null |
	wc -l >n.txt
[ "$(cat n.txt)" -gt 100 ] && ok "not: record -z -o -" || bad "record -z -o -: $(cat n.txt) samples in perf script"

# 3. perfring-dump reads them (and perf record -z's own).
for f in gz.data z.data; do
	"$DUMP" --check "$f" >chk.txt 2>&1 && ok "not: perfring-dump --check $f" || bad "perfring-dump --check $f: $(tail -3 chk.txt)"
done
s1=$("$DUMP" --stats g.data | grep '^SAMPLE ')
s2=$("$DUMP" --stats gz.data | grep '^SAMPLE ')
[ -n "$s1" ] && [ "$s1" = "$s2" ] && ok "not: perfring-dump --stats: '$s1' vs '$s2'" || bad "perfring-dump --stats: '$s1' vs '$s2'"
"$DUMP" --stats gz.data | grep -q '^COMPRESSED [1-9]' && ok "not: perfring-dump sees no COMPRESSED" || bad "perfring-dump sees no COMPRESSED"
if "$PERF" record -q -z -e cpu-clock -o perfz.data -- "$WL/wl-busy" 0.1 2>/dev/null; then
	"$DUMP" --check perfz.data >chk.txt 2>&1 && ok "not: perfring-dump --check perf's -z file'" || bad "perfring-dump --check perf's -z file: $(tail -3 chk.txt)"
fi

# 4. Usage.
expect 2 "needs a level from 0 (none) to 22" -- "$REC" --compression-level=23 -- true
expect 2 "needs a level from 0 (none) to 22" -- "$REPLAY" --compression-level=x -o y.data g.data
expect 2 "-z compresses the perf.data output" -- "$REC" -z --stat -- true
expect 2 "-z compresses the perf.data output" -- "$REC" -z --ring r.ring -- true
"$REC" --help | grep -q -- "--compression-level" && ok "not: --help lacks --compression-level" || bad "--help lacks --compression-level"
"$REPLAY" --help | grep -q -- "--compression-level" && ok "not: replay --help lacks --compression-level" || bad "replay --help lacks --compression-level"

finish
