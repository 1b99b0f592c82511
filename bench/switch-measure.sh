#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 29's long measure of perfring-record --switch-output, run by hand
# (a few minutes; not part of `make bench`):
#   sh bench/switch-measure.sh [SECONDS [EVERY]]     (from the build tree)
# A multi-process workload of fixed work runs about SECONDS (default 60)
# on an idle 2-CPU machine: two wl-busy of 0.8 x SECONDS of CPU each, and
# 8 x SECONDS short wl-busy (0.05 s of CPU) forked one after the other
# meanwhile.  Fixed work, so that each recording has about as many
# samples whatever the load of the machine.  It is recorded four times: perfring-record
# and perf record, both with --switch-output=EVERY (default 2s), and
# perfring-record twice without switching.  Printed:
#  - per chunk, the share of samples whose symbol and whose DSO perf
#    resolves (perf script -F ip,sym,dso; [unknown] counts as unresolved),
#    for both recorders;
#  - the sum of the chunks' samples against perfring-record's summary;
#  - the chunks merged by perfring-replay against the two recordings
#    without switching: samples per second of the workload and the largest
#    difference in the share of a (command, DSO, symbol) among the ten
#    largest, next to the same difference between the two plain runs.
set -u
B=${BENCH_BUILD:-$(pwd)}
SECS=${1:-60}
EVERY=${2:-2s}
PERF=${PERF:-perf}
REC=$B/tools/perfring-record
REPLAY=$B/tools/perfring-replay
OPTS="-e cpu-clock -F 999"
W=$(mktemp -d "${TMPDIR:-/tmp}/switch-measure.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

LONG=$(awk -v s="$SECS" 'BEGIN { print 0.8 * s }')
cat >"$W/work.sh" <<EOF
"$B/tests/workloads/wl-busy" $LONG & "$B/tests/workloads/wl-busy" $LONG &
i=0
while [ \$i -lt $((SECS * 8)) ]; do "$B/tests/workloads/wl-busy" 0.05; i=\$((i + 1)); done
wait
EOF

# shares DATA: "SAMPLES SYM% DSO%"
shares() {
	"$PERF" script -i "$1" -F ip,sym,dso 2>/dev/null | awk '
		{ n++; if ($0 ~ /\[unknown\] \(/ || NF < 3) s++; if ($0 ~ /\(\[unknown\]\)/) d++ }
		END { if (n) printf "%d %.2f %.2f\n", n, 100 * (n - s) / n, 100 * (n - d) / n
		      else print "0 0 0" }'
}
# profile DATA: "comm dso sym share" of the ten largest
profile() {
	"$PERF" report -i "$1" --stdio --sort comm,dso,sym --no-children -q 2>/dev/null |
		awk 'NF >= 4 { sub("%", "", $1); print $2 "|" $3 "|" $NF, $1 }' | head -n 10
}
# maxdiff A B: the largest difference of a share between two profiles
maxdiff() {
	awk 'FNR == NR { a[$1] = $2; next } { b[$1] = $2 }
	     END { for (k in a) { d = a[k] - b[k]; if (d < 0) d = -d; if (d > m) m = d }
	           for (k in b) { d = a[k] - b[k]; if (d < 0) d = -d; if (d > m) m = d }
	           printf "%.2f\n", m }' "$1" "$2"
}
chunks() { ls "$1" | grep -E '^perf\.data\.[0-9]{16}(-[0-9]+)?$' | sort; }

report_chunks() {	# DIR NAME
	first=; worst=0; i=0
	for c in $(chunks "$1"); do
		set -- "$1" "$2" $(shares "$1/$c")
		i=$((i + 1))
		printf "%-16s chunk %2d %6d samples  sym %6.2f%%  dso %6.2f%%\n" "$2" $i $3 $4 $5
		[ -z "$first" ] && { first=$4; continue; }
		worst=$(awk -v a="$first" -v b="$4" -v w="$worst" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d > w) ? d : w }')
	done
	echo "$2: $i chunks; the symbol share of a chunk after the first differs from the first's by at most $worst points"
}

mkdir "$W/ours" "$W/perf" "$W/plain1" "$W/plain2"
t0=$(date +%s)
(cd "$W/ours" && "$REC" $OPTS --switch-output=$EVERY -- sh "$W/work.sh") 2>"$W/ours.err"
t1=$(date +%s)
(cd "$W/perf" && "$PERF" record $OPTS --switch-output=$EVERY -- sh "$W/work.sh") >/dev/null 2>"$W/perf.err"
(cd "$W/plain1" && "$REC" $OPTS -o p.data -- sh "$W/work.sh") 2>"$W/plain1.err"
(cd "$W/plain2" && "$REC" $OPTS -o p.data -- sh "$W/work.sh") 2>"$W/plain2.err"
echo "workload: $SECS s (perfring-record's switching run: $((t1 - t0)) s wall), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
report_chunks "$W/ours" perfring-record
report_chunks "$W/perf" "perf record"
sum=$(sed -n 's/^perfring-record: \([0-9]*\) samples, .*/\1/p' "$W/ours.err")
tot=0
for c in $(chunks "$W/ours"); do
	tot=$((tot + $("$PERF" script -i "$W/ours/$c" -F ip 2>/dev/null | wc -l)))
done
echo "perfring-record: summary $sum samples; the chunks hold $tot"
set -- $(chunks "$W/ours")
(cd "$W/ours" && "$REPLAY" -o "$W/merged.data" "$@") 2>/dev/null
profile "$W/merged.data" >"$W/m.prof"
profile "$W/plain1/p.data" >"$W/p1.prof"
profile "$W/plain2/p.data" >"$W/p2.prof"
for f in merged.data plain1/p.data plain2/p.data; do
	echo "$f: $(shares "$W/$f" | awk '{ printf "%d samples, sym %.2f%%, dso %.2f%%", $1, $2, $3 }')"
done
echo "share (%) of the ten largest comm|dso|sym: merged, plain1, plain2"
awk 'FILENAME == ARGV[1] { m[$1] = $2; k[$1] = 1; next }
     FILENAME == ARGV[2] { p[$1] = $2; k[$1] = 1; next }
     { q[$1] = $2; k[$1] = 1 }
     END { for (x in k) printf "  %-48s %6.2f %6.2f %6.2f\n", x, m[x], p[x], q[x] }' \
	"$W/m.prof" "$W/p1.prof" "$W/p2.prof" | sort -k2 -nr
echo "largest share difference (top 10 comm/dso/sym): merged vs plain1 $(maxdiff "$W/m.prof" "$W/p1.prof")," \
     "merged vs plain2 $(maxdiff "$W/m.prof" "$W/p2.prof"), plain1 vs plain2 $(maxdiff "$W/p1.prof" "$W/p2.prof") points"
