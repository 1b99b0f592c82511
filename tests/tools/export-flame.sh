#!/bin/sh
# perfring-export --format=folded and --format=svg on a -g recording of
# tests/workloads/wl-busy:
#  - folded: "COMM;OUTER;...;LEAF COUNT" lines, sorted, whose counts add up
#    to perf's sample count; the workload's stack main;hot_function with
#    perf report's share (within 1 point); kernel frames marked _[k] when
#    perf report shows kernel symbols;
#  - svg: well-formed XML (python3), and headless chromium renders it and
#    runs its script: the status line names hot_function as the hottest
#    function, a search (#s=cold) matches cold_function's share and a zoom
#    (#z=main) hides what is not under main.
# chromium is optional: without it that part skips with the reason.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
EXP=$B/tools/perfring-export
cd "$W" || die "cd $W"

"$PERF" record -q -e cpu-clock -g -o g.data -- "$WL/wl-busy" 1 >/dev/null 2>&1 ||
	die "perf record -g failed"
total=$("$PERF" report -i g.data --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')

"$EXP" -f folded -o g.folded g.data 2>err
status "folded" 0 $?
empty "folded: nothing on stderr" err
[ -s g.folded ] || die "folded: no lines"
if grep -Evq '^[^; ]+(;[^;]+)+ [0-9]+$' g.folded; then
	bad "folded: malformed lines: $(grep -Ev '^[^; ]+(;[^;]+)+ [0-9]+$' g.folded | head -3)"
else
	ok "folded: every line is COMM;FRAMES COUNT"
fi
LC_ALL=C sort -c g.folded 2>/dev/null && ok "folded: sorted" || bad "folded: not sorted"
n=$(awk '{ t += $NF } END { print t + 0 }' g.folded)
[ "$n" = "$total" ] && ok "folded: $n samples, as perf counts" || bad "folded: $n samples, perf $total"
hot=$(awk '$1 ~ /;main;hot_function$/ { t += $2 } END { print t + 0 }' g.folded)
a=$(awk -v h="$hot" -v n="$n" 'BEGIN { printf "%.2f", 100 * h / n }') b=$(share g.data hot_function)
within "$a" "$b" 1 && ok "folded: main;hot_function $a% vs perf $b%" ||
	bad "folded: main;hot_function $a% vs perf report --no-children $b%"
has "folded: the comm first" g.folded '^wl-busy;'
if "$PERF" report -i g.data --stdio --sort sym -q --no-children 2>/dev/null | grep -q '\[k\]'; then
	has "folded: kernel frames marked _[k]" g.folded '_\[k\](;| )'
else
	echo "# no kernel samples in this recording: the _[k] mark is not checked"
fi

"$EXP" -f svg -o g.svg g.data 2>err
status "svg" 0 $?
empty "svg: nothing on stderr" err
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' g.svg 2>err &&
		ok "svg: well-formed XML" || bad "svg: not well-formed: $(cat err)"
fi
has "svg: the script is embedded" g.svg '<script type="text/ecmascript">'
hasnt "svg: nothing loaded from outside" g.svg '(src|href)="(https?:|//)'

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
	echo "# chromium is not installed: the rendering is not checked"
	finish
fi
render() {	# URL-SUFFIX OUT
	timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --no-first-run \
		--user-data-dir="$W/chrome" --dump-dom "file://$W/g.svg$1" >"$2" 2>"$W/chrome.err"
}
render "" dom
status "chromium renders it" 0 $?
has "chromium: the hottest function is hot_function" dom 'id="hottest"[^>]*>hottest: hot_function \('
render "#s=^cold_function\$" dom.s
m=$(sed -n 's/.*id="matched"[^>]*>Matched: \([0-9.]*\)%.*/\1/p' dom.s)
c=$(share g.data cold_function)
[ -n "$m" ] && within "$m" "$c" 1 && ok "chromium: search matches $m% (perf: cold_function $c%)" ||
	bad "chromium: search matched '$m'%, perf gives cold_function $c%"
render "#z=main" dom.z
# after the zoom every frame not under main is hidden: main's frame is full
# width, and the frames beside it (clock_gettime's kernel stacks) are not shown
zw=$(grep -o '<g class="f"[^>]*><title>main ([^<]*</title><rect[^>]*' dom.z |
	sed -n 's/.*width="\([0-9.]*\)".*/\1/p' | head -1)
[ -n "$zw" ] && at_least "$zw" 1199 && ok "chromium: zoomed to main ($zw px)" ||
	bad "chromium: main is $zw px wide after the zoom"
grep -q 'display: none' dom.z && ok "chromium: frames outside main hidden" ||
	bad "chromium: nothing hidden by the zoom"
finish
