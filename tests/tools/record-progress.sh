#!/bin/sh
# Long work shows a progress line on stderr when stderr is a terminal, and
# nothing otherwise: perfring-record under a pseudo-terminal (script(1))
# prints "perfring-record: N samples, M records..." lines (\r-rewritten and
# cleared at the end), and the same recording with stderr in a file does not.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "progress.sh: FAIL: $*"; exit 1; }
rec=$top_builddir/tools/perfring-record
wl=$top_builddir/tests/workloads/wl-busy
command -v script >/dev/null || { echo "progress.sh: SKIP: no script(1) for a pseudo-terminal"; exit 77; }

# Not a terminal: no progress text at all.
"$rec" -e cpu-clock -o "$tmp/a.data" -- "$wl" 2.5 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -qi 'paranoid\|permission\|not supported' "$tmp/err"; then
	cat "$tmp/err"; echo "progress.sh: SKIP: perf_event_open refused here"; exit 77
fi
[ $rc -eq 0 ] || { cat "$tmp/err"; die "perfring-record failed"; }
grep -q 'records\.\.\.' "$tmp/err" && { cat "$tmp/err"; die "progress line printed without a terminal"; }
grep -q "$(printf '\r')" "$tmp/err" && die "carriage return on a non-terminal stderr"

# A terminal: the progress line appears (from the second second on).
script -qefc "'$rec' -e cpu-clock -o '$tmp/b.data' -- '$wl' 2.5" "$tmp/typescript" \
	>"$tmp/tty" 2>&1 </dev/null || { cat "$tmp/tty"; die "perfring-record under script(1) failed"; }
grep -q "$(printf '\r')perfring-record: [0-9]* samples, [0-9]* records\.\.\." "$tmp/tty" ||
	{ cat -A "$tmp/tty" | head; die "no progress line on a terminal"; }
grep -q "$(printf '\r\033')\[K" "$tmp/tty" || die "the progress line is not cleared at the end"
grep -q "written to $tmp/b.data" "$tmp/tty" || die "no final summary on the terminal"
echo "progress.sh: progress line on a terminal only"
