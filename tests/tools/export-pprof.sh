#!/bin/sh
# perfring-export --format=pprof read by consumers no one here wrote:
#  - go tool pprof -top on recordings of tests/workloads/wl-busy (cpu-clock,
#    without call chains, with -g and with --call-graph dwarf) shows the
#    workload's functions with the shares perf report --no-children gives
#    them (within 1 point), and -top -cum the shares of perf report
#    --children (within 2 points); also for wl-nofp with --call-graph
#    dwarf, whose stacks only DWARF unwinding gets through;
#  - go tool pprof -raw: sample types and units, labels, build id, period,
#    duration; npm's pprof-format (a second decoder, via node) reads the file
#    and counts as many samples as perf;
#  - --no-symbolize leaves addresses raw; a binary that is gone gives one
#    summary line and raw frames; pipe mode and a byte-swapped copy give the
#    same profile; a ring written by perfring-record is exported too;
#    an output that is a FIFO is written in place.
# go is required (golang-go, installed by scripts/setup-debian.sh); node and
# npm's registry are optional (that part skips with the reason).
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
. "$top_srcdir/tests/tools/export-lib.sh"

# pct_top FILE SYM [COLUMN]: the flat% (2) or cum% (5) go pprof -top gives SYM
pct_top() {
	awk -v s="$2" -v c="${3:-2}" '$NF == s && $c ~ /%$/ { sub(/%/, "", $c); print $c; f = 1; exit }
		END { if (!f) print 0 }' "$1"
}
# children DATA SYM: perf report --children's share of SYM (its first column)
children() {
	"$PERF" report -i "$1" --stdio --children --sort sym -g none -q 2>/dev/null |
		awk -v s="$2" '{ n = $0; sub(/^ *[0-9.]+% +[0-9.]+% +\[[^]]*\] /, "", n); sub(/ *$/, "", n) }
			n == s { sub(/%/, "", $1); print $1; f = 1; exit } END { if (!f) print 0 }'
}
nsamples() {	# DATA: the SAMPLE records perf counts
	"$PERF" report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'
}

# compare NAME DATA CUM: flat shares (and with CUM=1, cumulative ones)
compare() {
	"$EXP" -o "$1.pb.gz" "$2" 2>"$1.err"
	status "$1: perfring-export" 0 $?
	empty "$1: nothing on stderr" "$1.err"
	[ "$(od -An -tx1 -N2 "$1.pb.gz" | tr -d ' ')" = 1f8b ] && ok "$1: gzipped" ||
		bad "$1: not gzip"
	go tool pprof -top -nodefraction=0 -nodecount=50 "$1.pb.gz" >"$1.top" 2>"$1.goerr"
	status "$1: go tool pprof -top" 0 $?
	for f in hot_function cold_function; do
		a=$(pct_top "$1.top" $f) b=$(share "$2" $f)
		within "$a" "$b" 1 && ok "$1: $f flat $a% vs perf $b%" ||
			{ bad "$1: $f flat $a% vs perf report --no-children $b%"; sed "s/^/#  /" "$1.top" | head -20; }
	done
	[ "$3" = 1 ] || return 0
	go tool pprof -top -cum -nodefraction=0 -nodecount=50 "$1.pb.gz" >"$1.cum" 2>>"$1.goerr"
	for f in main hot_function cold_function; do
		a=$(pct_top "$1.cum" $f 5) b=$(children "$2" $f)
		within "$a" "$b" 2 && ok "$1: $f cum $a% vs perf $b%" ||
			bad "$1: $f cum $a% vs perf report --children $b%"
	done
}

"$PERF" record -q -e cpu-clock -o flat.data -- "$WL/wl-busy" 0.5 >/dev/null 2>&1 ||
	die "perf record (flat) failed"
"$PERF" record -q -e cpu-clock -g -o g.data -- "$WL/wl-busy" 1 >/dev/null 2>&1 ||
	die "perf record -g failed"
"$PERF" record -q -e cpu-clock --call-graph dwarf -o dwarf.data -- "$WL/wl-busy" 0.5 \
	>/dev/null 2>&1 || die "perf record --call-graph dwarf failed"
compare flat flat.data 0
compare g g.data 1
compare dwarf dwarf.data 1

# DWARF unwinding where frame pointers cannot go: wl-nofp's leaf is called
# from inside libc's qsort (-O2 -fomit-frame-pointer).
"$PERF" record -q -e cpu-clock --call-graph dwarf -o nofp.data -- "$WL/wl-nofp" 0.5 \
	>/dev/null 2>&1 || die "perf record --call-graph dwarf wl-nofp failed"
"$EXP" -o nofp.pb.gz nofp.data 2>nofp.err
status "nofp: perfring-export" 0 $?
go tool pprof -top -cum -nodefraction=0 -nodecount=50 nofp.pb.gz >nofp.cum 2>&1
for f in main leaf_compare; do
	a=$(pct_top nofp.cum $f 5) b=$(children nofp.data $f)
	within "$a" "$b" 2 && ok "nofp: $f cum $a% vs perf $b%" ||
		{ bad "nofp: $f cum $a% vs perf report --children $b%"; sed 's/^/#  /' nofp.cum | head -20; }
done
a=$(pct_top nofp.cum leaf_compare 2) b=$(share nofp.data leaf_compare)
within "$a" "$b" 1 && ok "nofp: leaf_compare flat $a% vs perf $b%" ||
	bad "nofp: leaf_compare flat $a% vs perf report --no-children $b%"
at_least "$(pct_top nofp.cum main 5)" 90 && ok "nofp: main is reached (unwound through libc)" ||
	bad "nofp: main has $(pct_top nofp.cum main 5)% only"

# What go tool pprof -raw shows of the -g profile.
go tool pprof -raw g.pb.gz >raw 2>&1
has "sample types and units" raw '^cpu-clock_samples/count cpu-clock/nanoseconds'
has "period type" raw '^PeriodType: cpu-clock nanoseconds'
has "labels comm, pid, tid" raw 'comm:\[wl-busy\]'
has "pid label" raw 'pid:\[[0-9]+\] tid:\[[0-9]+\]'
has "duration" raw '^Duration: [0-9.]+'
bid=$("$PERF" buildid-list -i g.data 2>/dev/null | awk '$2 ~ /wl-busy$/ { print $1 }')
[ -n "$bid" ] && has "the workload's build id" raw "$bid" || bad "perf buildid-list names no wl-busy"
has "the workload's mapping" raw 'wl-busy'
# Samples: go pprof's sum of the samples/count column equals perf's count.
n=$(pprof_samples g.pb.gz)
[ "$n" = "$(nsamples g.data)" ] && ok "samples: $n, as perf counts" ||
	bad "samples: $n, perf counts $(nsamples g.data)"
go tool pprof -top -nodefraction=0 "$W/g.pb.gz" 2>&1 | head -3 >head
has "the main binary is the first mapping" head '^File: wl-busy'

# --no-symbolize: addresses only.
"$EXP" --no-symbolize -o raw.pb.gz g.data 2>err
status "--no-symbolize" 0 $?
go tool pprof -symbolize=none -top -nodefraction=0 raw.pb.gz >raw.top 2>&1
hasnt "--no-symbolize: no function names" raw.top 'hot_function|cold_function'

# A binary that is gone: one summary line, its frames raw, exit 0.
cp "$WL/wl-busy" gone-busy || die "cp"
"$PERF" record -q -e cpu-clock -g -o gone.data -- ./gone-busy 0.3 >/dev/null 2>&1 ||
	die "perf record gone-busy"
rm -f gone-busy
rm -rf "$HOME/.debug"	# perf record's copy would be found by build id
"$EXP" -o gone.pb.gz gone.data 2>gone.err
status "binary gone" 0 $?
has "one summary line" gone.err "^perfring-export: 1 mapping without symbols: $W/gone-busy\$"
[ "$(wc -l <gone.err)" -eq 1 ] && ok "binary gone: just that line" || bad "more on stderr: $(cat gone.err)"
go tool pprof -symbolize=none -top -nodefraction=0 gone.pb.gz >gone.top 2>&1
hasnt "binary gone: no workload names" gone.top 'hot_function'
has "binary gone: libc still symbolized" gone.top '__libc_start_call_main'

# The kernel: this machine's kallsyms names kernel frames of a recording
# made here, never those of one made elsewhere (pd-foreign: another host,
# kernel release and kernel build id), whose frames stay addresses.
kname=$(go tool pprof -top -nodefraction=0 g.pb.gz 2>/dev/null |
	awk '$NF ~ /^(entry_SYSCALL|do_syscall_64|asm_|__x64_sys)/ { print $NF; exit }')
if [ -n "$kname" ]; then
	ok "kernel frames named here ($kname)"
	"$B/tests/tools/pd-foreign" g.data foreign.data otherhost 1.2.3-other 2>err ||
		die "pd-foreign: $(cat err)"
	"$EXP" -o foreign.pb.gz foreign.data 2>foreign.err
	status "recorded elsewhere" 0 $?
	has "recorded elsewhere: the kernel is listed without symbols" foreign.err \
		'mappings? without symbols: .*\[kernel\.kallsyms\]'
	go tool pprof -symbolize=none -top -nodefraction=0 foreign.pb.gz >foreign.top 2>&1
	hasnt "recorded elsewhere: no kernel function names" foreign.top "$kname\$"
	has "recorded elsewhere: user functions still named" foreign.top 'hot_function$'
else
	echo "# no kernel frames in the -g recording: kallsyms matching not checked"
fi

# Pipe mode, byte-swapped: the same profile (go pprof -top alike; its time
# is the file's, and the swapped copy is newer).
"$PERF" record -q -e cpu-clock -g -o - -- "$WL/wl-busy" 0.5 2>/dev/null >pipe.data ||
	die "perf record -o -"
"$EXP" -o pipe.pb.gz - <pipe.data 2>pipe.err
status "pipe mode from stdin" 0 $?
go tool pprof -top -nodefraction=0 pipe.pb.gz >pipe.top 2>&1
a=$(pct_top pipe.top hot_function) b=$(share pipe.data hot_function)
within "$a" "$b" 1 && ok "pipe: hot_function $a% vs perf $b%" ||
	{ bad "pipe: $a% vs perf $b%"; sed "s/^/#  /" pipe.top | head -20; }
"$B/tests/tools/pd-swap" g.data swapped.data 2>swap.err || die "pd-swap: $(cat swap.err)"
"$EXP" -o swapped.pb.gz swapped.data 2>swapped.err
status "byte-swapped" 0 $?
go tool pprof -top -nodefraction=0 swapped.pb.gz | grep -v "^Time:" >swapped.top 2>&1
go tool pprof -top -nodefraction=0 g.pb.gz | grep -v "^Time:" >g.top2 2>&1
same "byte-swapped: the same profile" g.top2 swapped.top

# A ring from perfring-record.
if "$REC" --stat -e task-clock:u -- true >/dev/null 2>&1; then
	"$REC" -e cpu-clock -g --ring ring.file -- "$WL/wl-busy" 0.5 >/dev/null 2>ring.rec.err
	if [ -s ring.file ]; then
		"$EXP" -o ring.pb.gz ring.file 2>ring.err
		status "a ring" 0 $?
		go tool pprof -top -nodefraction=0 ring.pb.gz >ring.top 2>&1
		has "ring: hot_function on top" ring.top 'hot_function$'
	else
		echo "# perfring-record --ring not available here: $(head -2 ring.rec.err)"
	fi
fi

# Output only under its name when complete; an unwritable place fails.
"$EXP" -o nodir/x.pb.gz g.data 2>err
status "output in a missing directory" 2 $?
dir_is "nothing left behind" nodir ""  2>/dev/null || true
ls -A | grep -q '\.pb\.gz\.' && bad "a temporary file was left: $(ls -A | grep '\.pb\.gz\.')" ||
	ok "no temporary file left"

# An output that is not a regular file is written in place, not replaced
# (a rename over /dev/null would put a regular file there): a FIFO.
mkfifo fifo || die "mkfifo"
cat fifo >fifo.out &
bg=$!
"$EXP" -f folded -o fifo g.data 2>fifo.err
status "-o FIFO" 0 $?
wait "$bg"
bg=
[ -p fifo ] && ok "the FIFO is still a FIFO" || bad "the FIFO was replaced: $(ls -l fifo)"
has "the folded stacks went through the FIFO" fifo.out ';main;hot_function [0-9]+$'

# A second decoder: npm's pprof-format.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
   mkdir npm && (cd npm && npm install --silent --no-audit --no-fund pprof-format >../npm.log 2>&1); then
	cat >npm/read.js <<'EOF'
const fs = require('fs'), zlib = require('zlib');
const { Profile } = require('pprof-format');
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
const st = p.stringTable.strings;
const fn = new Map(p.function.map(f => [Number(f.id), st[Number(f.name)]]));
const loc = new Map(p.location.map(l => [Number(l.id), l]));
let n = 0, hot = 0;
for (const s of p.sample) {
	n += Number(s.value[0]);
	const l = loc.get(Number(s.locationId[0]));
	if (l.line.length && fn.get(Number(l.line[0].functionId)) === 'hot_function')
		hot += Number(s.value[0]);
}
console.log('types ' + p.sampleType.map(t => st[Number(t.type)] + '/' + st[Number(t.unit)]).join(' '));
console.log('samples ' + n);
console.log('hot ' + hot);
console.log('mappings ' + p.mapping.map(m => st[Number(m.filename)]).join(' '));
EOF
	node npm/read.js g.pb.gz >npm.out 2>&1
	status "pprof-format decodes it" 0 $?
	has "pprof-format: sample types" npm.out '^types cpu-clock_samples/count cpu-clock/nanoseconds$'
	has "pprof-format: as many samples as perf counts" npm.out "^samples $(nsamples g.data)\$"
	has "pprof-format: hot_function samples" npm.out '^hot [1-9]'
else
	echo "# npm's pprof-format is not available here (no node/npm or no registry): not checked"
fi
finish
