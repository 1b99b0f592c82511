#!/bin/sh
# Long work shows a progress line on stderr when stderr is a terminal, and
# nothing otherwise: perfring-record under a pseudo-terminal (script(1))
# prints "perfring-record: N samples, M records..." lines (\r-rewritten and
# cleared at the end), and the same recording with stderr in a file does not.
. "$top_srcdir/tests/testlib.sh"
command -v script >/dev/null || skip "no script(1) for a pseudo-terminal"

# Not a terminal: no progress text at all.
"$REC" -e cpu-clock -o "$W/a.data" -- "$WL/wl-busy" 2.5 >"$W/out" 2>"$W/err"
rc=$?
if [ $rc -ne 0 ] && grep -qi 'paranoid\|permission\|not supported' "$W/err"; then
	skip "perf_event_open refused here: $(head -n 3 "$W/err")"
fi
[ $rc -eq 0 ] && ok "not: perfring-record failed" || { cat "$W/err"; die "perfring-record failed"; }
grep -q 'records\.\.\.' "$W/err" && { cat "$W/err"; die "progress line printed without a terminal"; } || ok "not: progress line printed without a terminal"
grep -q "$(printf '\r')" "$W/err" && die "carriage return on a non-terminal stderr" || ok "not: carriage return on a non-terminal stderr"

# A terminal: the progress line appears (from the second second on).
script -qefc "'$REC' -e cpu-clock -o '$W/b.data' -- '$WL/wl-busy' 2.5" "$W/typescript" \
	>"$W/tty" 2>&1 </dev/null && ok "not: perfring-record under script(1) failed" || { cat "$W/tty"; die "perfring-record under script(1) failed"; }
grep -q "$(printf '\r')perfring-record: [0-9]* samples, [0-9]* records\.\.\." "$W/tty" && ok "not: no progress line on a terminal" ||
	{ cat -A "$W/tty" | head; die "no progress line on a terminal"; }
grep -q "$(printf '\r\033')\[K" "$W/tty" && ok "not: the progress line is not cleared at the end" || die "the progress line is not cleared at the end"
grep -q "written to $W/b.data" "$W/tty" && ok "not: no final summary on the terminal" || die "no final summary on the terminal"
echo "# progress line on a terminal only"
finish
