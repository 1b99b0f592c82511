# Shared by tests/jit-*.sh: sourced with $name set.  perf, a temporary
# HOME (so ~/.debug can be watched), skip/fail helpers, and
# share DATA SYM: percentage of samples perf report gives symbol SYM.
set -u
rep="$top_builddir/tools/perfring-replay"
tinyjit="$top_builddir/examples/jit/tinyjit"
perf=${PERF:-}
fails=0
fail() { echo "$name: FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "$name: SKIP: $*"; exit 77; }

[ -n "$perf" ] && [ -x "$perf" ] || skip "perf was not found at configure time"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
HOME=$tmp/home
export HOME
mkdir -p "$HOME"
"$perf" record -k mono -e cpu-clock -q -o "$tmp/probe.data" -- true 2>"$tmp/probe.err" ||
	skip "perf record cannot sample here: $(head -n 3 "$tmp/probe.err")"

# report DATA: "PERCENT<TAB>SYMBOL" lines; perf's stderr in $tmp/report.err
report() {
	"$perf" report -i "$1" --stdio --sort sym --no-children -q 2>"$tmp/report.err" |
		sed -n 's/^ *\([0-9.]*\)%  *\[[^]]*\] \(.*[^ ]\) *$/\1\t\2/p'
}

share() {
	report "$1" | awk -F '\t' -v s="$2" '$2 == s { t += $1 } END { printf "%.2f\n", t + 0 }'
}

# within A B POINTS: |A - B| <= POINTS
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p) }'
}

# at_least A B: A >= B
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

# no_warnings DATA: perf report on DATA prints nothing on stderr
no_warnings() {
	report "$1" >/dev/null
	if [ -s "$tmp/report.err" ]; then
		fail "perf report $1 warned: $(head -n 5 "$tmp/report.err")"
	fi
}
