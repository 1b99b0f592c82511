#!/bin/sh
# The plugin search works as PATH does: PERFRING_PLUGIN_PATH in its order,
# then the build tree's plugins (a tool run from its build tree only), then
# the installed ones (PERFRING_PLUGIN_SYSTEM_PATH stands in for pluginsdir
# here).  A file whose name (less .so/.la) an earlier place already gave is
# shadowed: never opened.  Two plugins of different names claiming one
# record type are refused, naming both files.
set -u
B=$top_builddir
dump="$B/tools/perfring-dump"
tp="$B/tests/plugins"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "plugin-search.sh: FAIL: $*"; fails=$((fails + 1)); }
# file_of NAME LIST: the FILE column of plugin NAME in a --list-plugins output.
file_of() { awk -v n="$1" '$1 == n { print $NF }' "$2"; }

tripwire=$tp/.libs/tripwire.so
[ -f "$tripwire" ] || { echo "plugin-search.sh: FAIL: $tripwire not built"; exit 1; }
mkdir "$tmp/over" "$tmp/late" "$tmp/inst" "$tmp/stage"
cp "$B/plugins/comm/.libs/comm.so" "$tmp/over/comm.so"
cp "$tripwire" "$tmp/late/comm.so"
cp "$tripwire" "$tmp/inst/comm.so"	# an incompatible build (another ABI major)
cp "$B/plugins/mmap2/.libs/mmap2.so" "$B/plugins/task/.libs/task.so" "$tmp/inst/"
export PERFRING_TEST_TRIPWIRE="$tmp/opened"
# The tripwire works: where it comes first it is opened (and refused).
PERFRING_PLUGIN_PATH="$tmp/late" "$dump" --list-plugins >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "tripwire first: exit $rc, want 2"
grep -q "$tmp/late/comm.so.*plugin ABI 2.0" "$tmp/err" || fail "tripwire first: $(cat "$tmp/err")"
[ -e "$tmp/opened" ] || fail "the tripwire plugin's constructor did not run when it was opened"
rm -f "$tmp/opened"

# 1. Override: PERFRING_PLUGIN_PATH comes before the build tree.
PERFRING_PLUGIN_PATH="$tmp/over" "$dump" --list-plugins --verbose >"$tmp/out" 2>"$tmp/err" ||
	fail "override: exit $?: $(cat "$tmp/err")"
cat "$tmp/out"
[ "$(file_of comm "$tmp/out")" = "$tmp/over/comm.so" ] || fail "override: comm is not $tmp/over/comm.so"
[ "$(file_of mmap2 "$tmp/out")" = "$B/plugins/mmap2/mmap2.la" ] || fail "override: mmap2 not from the build tree"
grep -qxF "shadowed: $B/plugins/comm/comm.la (by $tmp/over/comm.so)" "$tmp/out" ||
	fail "override: --verbose does not name the shadowed build-tree comm"
PERFRING_PLUGIN_PATH="$tmp/over" "$dump" --list-plugins >"$tmp/out2" 2>&1
grep -q '^shadowed:' "$tmp/out2" && fail "shadowed files listed without --verbose"
# The override decodes as the original does.
"$dump" "$top_srcdir/tests/fixtures/sideband.data" >"$tmp/ref" 2>&1 || fail "dump: exit $?"
PERFRING_PLUGIN_PATH="$tmp/over" "$dump" "$top_srcdir/tests/fixtures/sideband.data" >"$tmp/ovr" 2>&1 ||
	fail "dump with the override: exit $?"
cmp -s "$tmp/ref" "$tmp/ovr" || fail "the override decodes differently"
grep -q ' COMM ' "$tmp/ovr" || fail "no COMM decoded through the override"

# 2. A shadowed file is never opened, even an incompatible one.
PERFRING_PLUGIN_PATH="$B/plugins/comm:$tmp/late" \
	"$dump" --list-plugins --verbose >"$tmp/out" 2>"$tmp/err" ||
	fail "shadowed tripwire: exit $?: $(cat "$tmp/err")"
[ -e "$tmp/opened" ] && fail "a shadowed plugin file was opened (its code ran)"
grep -qxF "shadowed: $tmp/late/comm.so (by $B/plugins/comm/comm.la)" "$tmp/out" ||
	fail "the shadowed tripwire is not listed: $(cat "$tmp/out")"

# 3. Build tree beats the installed copies, whatever they are.
PERFRING_PLUGIN_SYSTEM_PATH="$tmp/inst" "$dump" --list-plugins --verbose >"$tmp/out" 2>"$tmp/err" ||
	fail "installed copies: exit $?: $(cat "$tmp/err")"
[ -e "$tmp/opened" ] && fail "the installed incompatible comm.so was opened"
for p in comm mmap2 task; do
	[ "$(file_of $p "$tmp/out")" = "$B/plugins/$p/$p.la" ] || fail "installed copies: $p not from the build tree"
	grep -qxF "shadowed: $tmp/inst/$p.so (by $B/plugins/$p/$p.la)" "$tmp/out" ||
		fail "installed copies: $tmp/inst/$p.so not listed as shadowed"
done
"$dump" --check "$top_srcdir/tests/fixtures/sideband.data" >/dev/null 2>&1 ||
	fail "--check of a fixture beside an incompatible installed comm: exit $?"

# ... while a tool that is not in its build tree does use the installed
# ones: a staged copy, with exactly the plugins staged for it.
cp "$B/tools/.libs/perfring-dump" "$tmp/stage/perfring-dump" 2>/dev/null ||
	cp "$B/tools/perfring-dump" "$tmp/stage/perfring-dump"
lib=$B/lib/.libs
LD_LIBRARY_PATH=$lib PERFRING_PLUGIN_SYSTEM_PATH="$tmp/inst" "$tmp/stage/perfring-dump" \
	--list-plugins >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "staged tool, incompatible installed comm: exit $rc, want 2"
grep -q "$tmp/inst/comm.so.*plugin ABI 2.0" "$tmp/err" || fail "staged tool: $(cat "$tmp/err")"
rm -f "$tmp/opened"
LD_LIBRARY_PATH=$lib PERFRING_PLUGIN_PATH="$tmp/over" PERFRING_PLUGIN_SYSTEM_PATH= \
	"$tmp/stage/perfring-dump" --list-plugins >"$tmp/out" 2>"$tmp/err" ||
	fail "staged tool, empty system path: exit $?: $(cat "$tmp/err")"
[ "$(tail -n +2 "$tmp/out" | awk '{ print $1 " " $NF }')" = "comm $tmp/over/comm.so" ] ||
	fail "staged tool does not see exactly its one plugin: $(cat "$tmp/out")"

# 4. Two different plugins claiming one record type: refused, both named,
#    wherever the second one is found.
PERFRING_PLUGIN_SYSTEM_PATH="$tp/dupcomm.la" "$dump" --list-plugins >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "foreign claim: exit $rc, want 2"
grep -qF "$tp/dupcomm.la" "$tmp/err" && grep -qF "$B/plugins/comm/comm.la" "$tmp/err" &&
	grep -q "COMM" "$tmp/err" || fail "foreign claim: $(cat "$tmp/err")"

[ $fails -eq 0 ] || exit 1
echo "plugin-search.sh: override, shadowing, build tree first, foreign claims: all checks passed"
