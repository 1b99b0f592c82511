#!/bin/sh
# The plugin search works as PATH does: PERFRING_PLUGIN_PATH in its order,
# then the build tree's plugins (a tool run from its build tree only), then
# the installed ones (PERFRING_PLUGIN_SYSTEM_PATH stands in for pluginsdir
# here).  A file whose name (less .so/.la) an earlier place already gave is
# shadowed: never opened.  Two plugins of different names claiming one
# record type are refused, naming both files.
. "$top_srcdir/tests/testlib.sh"
# file_of NAME LIST: the FILE column of plugin NAME in a --list-plugins output.
file_of() { awk -v n="$1" '$1 == n { print $NF }' "$2"; }

tripwire=$TP/.libs/tripwire.so
[ -f "$tripwire" ] && ok "not: $tripwire not built" || die "$tripwire not built"
mkdir "$W/over" "$W/late" "$W/inst" "$W/stage"
cp "$B/plugins/comm/.libs/comm.so" "$W/over/comm.so"
cp "$tripwire" "$W/late/comm.so"
cp "$tripwire" "$W/inst/comm.so"	# an incompatible build (another ABI major)
cp "$B/plugins/mmap2/.libs/mmap2.so" "$B/plugins/task/.libs/task.so" "$W/inst/"
export PERFRING_TEST_TRIPWIRE="$W/opened"
# The tripwire works: where it comes first it is opened (and refused).
PERFRING_PLUGIN_PATH="$W/late" "$DUMP" --list-plugins >"$W/out" 2>"$W/err"
rc=$?
[ $rc -eq 2 ] && ok "tripwire first: exit $rc" || bad "tripwire first: exit $rc, want 2"
grep -q "$W/late/comm.so.*plugin ABI 2.0" "$W/err" && ok "not: tripwire first" || bad "tripwire first: $(cat "$W/err")"
[ -e "$W/opened" ] && ok "not: the tripwire plugin's constructor did not run when it was opened'" || bad "the tripwire plugin's constructor did not run when it was opened"
rm -f "$W/opened"

# 1. Override: PERFRING_PLUGIN_PATH comes before the build tree.
PERFRING_PLUGIN_PATH="$W/over" "$DUMP" --list-plugins --verbose >"$W/out" 2>"$W/err" && ok "override: exit $?" ||
	bad "override: exit $?: $(cat "$W/err")"
cat "$W/out"
[ "$(file_of comm "$W/out")" = "$W/over/comm.so" ] && ok "not: override: comm is not $W/over/comm.so" || bad "override: comm is not $W/over/comm.so"
[ "$(file_of mmap2 "$W/out")" = "$B/plugins/mmap2/mmap2.la" ] && ok "not: override: mmap2 not from the build tree" || bad "override: mmap2 not from the build tree"
grep -qxF "shadowed: $B/plugins/comm/comm.la (by $W/over/comm.so)" "$W/out" && ok "not: override: --verbose does not name the shadowed build-tree comm" ||
	bad "override: --verbose does not name the shadowed build-tree comm"
PERFRING_PLUGIN_PATH="$W/over" "$DUMP" --list-plugins >"$W/out2" 2>&1
grep -q '^shadowed:' "$W/out2" && bad "shadowed files listed without --verbose" || ok "not: shadowed files listed without --verbose"
# The override decodes as the original does.
"$DUMP" "$top_srcdir/tests/fixtures/sideband.data" >"$W/ref" 2>&1 && ok "dump: exit $?" || bad "dump: exit $?"
PERFRING_PLUGIN_PATH="$W/over" "$DUMP" "$top_srcdir/tests/fixtures/sideband.data" >"$W/ovr" 2>&1 && ok "dump with the override: exit $?" ||
	bad "dump with the override: exit $?"
cmp -s "$W/ref" "$W/ovr" && ok "not: the override decodes differently" || bad "the override decodes differently"
grep -q ' COMM ' "$W/ovr" && ok "not: no COMM decoded through the override" || bad "no COMM decoded through the override"

# 2. A shadowed file is never opened, even an incompatible one.
PERFRING_PLUGIN_PATH="$B/plugins/comm:$W/late" \
	"$DUMP" --list-plugins --verbose >"$W/out" 2>"$W/err" && ok "shadowed tripwire: exit $?" ||
	bad "shadowed tripwire: exit $?: $(cat "$W/err")"
[ -e "$W/opened" ] && bad "a shadowed plugin file was opened (its code ran)" || ok "not: a shadowed plugin file was opened (its code ran)"
grep -qxF "shadowed: $W/late/comm.so (by $B/plugins/comm/comm.la)" "$W/out" && ok "not: the shadowed tripwire is not listed" ||
	bad "the shadowed tripwire is not listed: $(cat "$W/out")"

# 3. Build tree beats the installed copies, whatever they are.
PERFRING_PLUGIN_SYSTEM_PATH="$W/inst" "$DUMP" --list-plugins --verbose >"$W/out" 2>"$W/err" && ok "installed copies: exit $?" ||
	bad "installed copies: exit $?: $(cat "$W/err")"
[ -e "$W/opened" ] && bad "the installed incompatible comm.so was opened" || ok "not: the installed incompatible comm.so was opened"
for p in comm mmap2 task; do
	[ "$(file_of $p "$W/out")" = "$B/plugins/$p/$p.la" ] && ok "not: installed copies: $p not from the build tree" || bad "installed copies: $p not from the build tree"
	grep -qxF "shadowed: $W/inst/$p.so (by $B/plugins/$p/$p.la)" "$W/out" && ok "not: installed copies: $W/inst/$p.so not listed as shadowed" ||
		bad "installed copies: $W/inst/$p.so not listed as shadowed"
done
"$DUMP" --check "$top_srcdir/tests/fixtures/sideband.data" >/dev/null 2>&1 && ok "--check of a fixture beside an incompatible installed comm: exit $?" ||
	bad "--check of a fixture beside an incompatible installed comm: exit $?"

# ... while a tool that is not in its build tree does use the installed
# ones: a staged copy, with exactly the plugins staged for it.
cp "$B/tools/.libs/perfring-dump" "$W/stage/perfring-dump" 2>/dev/null ||
	cp "$B/tools/perfring-dump" "$W/stage/perfring-dump"
lib=$B/lib/.libs
LD_LIBRARY_PATH=$lib PERFRING_PLUGIN_SYSTEM_PATH="$W/inst" "$W/stage/perfring-dump" \
	--list-plugins >"$W/out" 2>"$W/err"
rc=$?
[ $rc -eq 2 ] && ok "staged tool, incompatible installed comm: exit $rc" || bad "staged tool, incompatible installed comm: exit $rc, want 2"
grep -q "$W/inst/comm.so.*plugin ABI 2.0" "$W/err" && ok "not: staged tool" || bad "staged tool: $(cat "$W/err")"
rm -f "$W/opened"
LD_LIBRARY_PATH=$lib PERFRING_PLUGIN_PATH="$W/over" PERFRING_PLUGIN_SYSTEM_PATH= \
	"$W/stage/perfring-dump" --list-plugins >"$W/out" 2>"$W/err" && ok "staged tool, empty system path: exit $?" ||
	bad "staged tool, empty system path: exit $?: $(cat "$W/err")"
[ "$(tail -n +2 "$W/out" | awk '{ print $1 " " $NF }')" = "comm $W/over/comm.so" ] && ok "not: staged tool does not see exactly its one plugin" ||
	bad "staged tool does not see exactly its one plugin: $(cat "$W/out")"

# 4. Two different plugins claiming one record type: refused, both named,
#    wherever the second one is found.
PERFRING_PLUGIN_SYSTEM_PATH="$TP/dupcomm.la" "$DUMP" --list-plugins >"$W/out" 2>"$W/err"
rc=$?
[ $rc -eq 2 ] && ok "foreign claim: exit $rc" || bad "foreign claim: exit $rc, want 2"
grep -qF "$TP/dupcomm.la" "$W/err" && grep -qF "$B/plugins/comm/comm.la" "$W/err" &&
	grep -q "COMM" "$W/err" && ok "not: foreign claim" || bad "foreign claim: $(cat "$W/err")"

finish
