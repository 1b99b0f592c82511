#!/bin/sh
# The main job: record a real program with perfring-record (no perf binary
# involved in recording), then show what stock `perf report` makes of it:
# its functions in its binary.  Run from a built tree (./configure && make).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# The built tools: in the current directory (an out-of-tree build) or in the
# source tree (the README's in-place build).
b=$(pwd)
[ -x "$b/tools/perfring-record" ] || b=$top
rec="$b/tools/perfring-record"
dump="$b/tools/perfring-dump"
[ -x "$rec" ] || { echo "demo: build first: ./autogen.sh && ./configure && make" >&2; exit 2; }
out=${1:-$(mktemp -d)}
mkdir -p "$out"

echo "== building a workload with named functions: $out/busy"
${CC:-cc} -O0 -g -fno-omit-frame-pointer -o "$out/busy" "$top/tests/workloads/wl-busy.c"

echo "== perfring-record -F 999 -g -o $out/perf.data -- $out/busy 1"
"$rec" -F 999 -g -o "$out/perf.data" -- "$out/busy" 1

echo "== perfring-dump --stats $out/perf.data"
"$dump" --stats "$out/perf.data" 2>/dev/null || echo "(perfring-dump --stats not available yet)"

if command -v perf >/dev/null 2>&1; then
	echo "== perf report --stdio --no-children --sort comm,dso,sym -i $out/perf.data"
	perf report --stdio --no-children --sort comm,dso,sym -i "$out/perf.data" 2>&1 |
		grep -v '^$' | head -n 30
else
	echo "demo: perf is not installed (Debian: apt-get install linux-perf)" >&2
	exit 1
fi
