#!/bin/sh
# Out-of-tree plugin: install this tree into a temporary DESTDIR, build
# examples/plugin-switch against the installed headers with pkg-config only,
# then load it through PERFRING_PLUGIN_PATH: perfring-dump --list-plugins
# shows it, and switch-test decodes a SWITCH record with it.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "example-plugin.sh: FAIL: $*"; exit 1; }

command -v pkg-config >/dev/null || { echo "example-plugin.sh: no pkg-config"; exit 77; }
# Install (only what a plugin author needs: library, plugins, tools,
# headers, perfring.pc) from a fresh build: see tests/lib-install.sh.
. "$top_srcdir/tests/lib-install.sh"
pr_install "$tmp/root" install-libLTLIBRARIES install-pluginLTLIBRARIES install-binPROGRAMS \
	install-perfringincludeHEADERS install-nodist_perfringincludeHEADERS \
	install-pkgconfigDATA
for h in perfring.h plugin.h registry.h sideband.h records.h version.h; do
	[ -n "$(find "$tmp/root" -path "*/include/perfring/$h")" ] || die "$h not installed"
done
pr_pkgconfig "$tmp/root"
libdir=$pr_libdir
pluginsdir=$pr_pluginsdir
for p in comm mmap2 task; do
	[ -f "$tmp/root$pluginsdir/$p.so" ] || die "plugin $p not installed in $pluginsdir"
done

# Build it where a third party would: a copy, outside this tree.  Use the
# build's sanitizer flags so the program and the installed library agree.
san=$pr_san
cp -r "$top_srcdir/examples/plugin-switch" "$tmp/src"
chmod -R u+w "$tmp/src"
${MAKE:-make} -s -C "$tmp/src" CFLAGS="-g -O1 -Wall -Wextra -Werror $san" \
	LDFLAGS="$san" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; die "example build failed"; }
syms=$(nm -D --defined-only "$tmp/src/switch.so" | awk '{print $NF}' | grep -v '^__odr_asan')
[ "$syms" = "perfring_plugin_descriptor" ] || die "switch.so exports: $syms"

# perfring-dump (from the build tree) lists it next to the built plugins.
PERFRING_PLUGIN_PATH="$tmp/src" "$top_builddir/tools/perfring-dump" --list-plugins \
	>"$tmp/list" 2>&1 || { cat "$tmp/list"; die "--list-plugins failed"; }
cat "$tmp/list"
abi=$(sed -n 's/^#define PERFRING_PLUGIN_ABI_MAJOR //p' "$top_srcdir/include/perfring/plugin.h").$(
	sed -n 's/^#define PERFRING_PLUGIN_ABI_MINOR //p' "$top_srcdir/include/perfring/plugin.h")
awk -v f="$tmp/src/switch.so" -v abi="$abi" '$1 == "switch" && $2 == "record" && $3 == "SWITCH" &&
	$4 == abi && $5 == f { ok = 1 } END { exit !ok }' "$tmp/list" ||
	die "switch plugin not listed"

# The installed perfring-dump does not use the build tree's plugins: with
# the DESTDIR plugins directory in PERFRING_PLUGIN_PATH, and no installed
# directory (a real installation in the prefix, if any, is not searched),
# it lists exactly those.
dump=$(find "$tmp/root" -path '*/bin/perfring-dump' | head -n 1)
[ -n "$dump" ] || die "perfring-dump not installed"
LD_LIBRARY_PATH="$tmp/root$libdir" PERFRING_PLUGIN_PATH="$tmp/root$pluginsdir" \
	PERFRING_PLUGIN_SYSTEM_PATH= "$dump" --list-plugins >"$tmp/list2" 2>&1 ||
	{ cat "$tmp/list2"; die "installed --list-plugins failed"; }
cat "$tmp/list2"
for p in comm mmap2 task hw; do
	grep -q "^$p .* $tmp/root$pluginsdir/$p.so\$" "$tmp/list2" ||
		die "installed perfring-dump did not list the installed $p plugin"
done
[ "$(tail -n +2 "$tmp/list2" | wc -l)" -eq 4 ] || die "installed perfring-dump listed other plugins"
grep -q "$top_builddir" "$tmp/list2" && die "installed perfring-dump used the build tree"

# The installed library loads it (and the installed plugins) and decodes.
LD_LIBRARY_PATH="$tmp/root$libdir" PERFRING_PLUGIN_PATH="$tmp/src:$tmp/root$pluginsdir" \
	PERFRING_PLUGIN_SYSTEM_PATH= PERFRING_NO_DLCLOSE=1 "$tmp/src/switch-test" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; die "switch-test failed"; }
cat "$tmp/out"
grep -q "^SWITCH OUT preempt pid 7 tid 8 time 1000 cpu 1$" "$tmp/out" || die "wrong decode"
grep -q '^{"out":true,"preempt":true}$' "$tmp/out" || die "wrong JSON"
# The plugin owns SWITCH's JSON both ways (plugin ABI 1.1 parse_json):
# perfring-dump --json writes SWITCH records as fields only (no hex), a
# field edited there reaches the record perfring-replay writes, and
# without the plugin such a line is refused.
B=$top_builddir
fx=$top_srcdir/tests/fixtures/pd-switch.data
PERFRING_PLUGIN_PATH="$tmp/src" "$B/tools/perfring-dump" --json "$fx" >"$tmp/a.json" ||
	die "dump --json with the switch plugin: exit $?"
nsw=$(grep -c '"type":"SWITCH"' "$tmp/a.json")
[ "$nsw" -gt 0 ] || die "no SWITCH line in the JSON of $fx"
grep '"type":"SWITCH"' "$tmp/a.json" | grep -q '"raw"' && die "SWITCH lines still carry their bytes"
grep -q '"type":"SWITCH".*"out":true,"preempt":true' "$tmp/a.json" || die "no SWITCH OUT preempt line"
awk '/"type":"SWITCH"/ && /"out":true,"preempt":true/ && !done {
	sub(/"out":true,"preempt":true/, "\"out\":false,\"preempt\":false"); done = 1 } { print }' \
	"$tmp/a.json" >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && die "the edit did not apply"
PERFRING_PLUGIN_PATH="$tmp/src" "$B/tools/perfring-replay" --json-in "$tmp/a.json" -o "$tmp/a.data" ||
	die "replay of the unedited JSON: exit $?"
PERFRING_PLUGIN_PATH="$tmp/src" "$B/tools/perfring-replay" --json-in "$tmp/b.json" -o "$tmp/b.data" ||
	die "replay of the edited JSON: exit $?"
for f in a b; do
	PERFRING_PLUGIN_PATH="$tmp/src" "$B/tools/perfring-dump" -t SWITCH "$tmp/$f.data" |
		awk '{ print $2, $NF }' >"$tmp/$f.switch"
done
PERFRING_PLUGIN_PATH="$tmp/src" "$B/tools/perfring-dump" -t SWITCH "$fx" | awk '{ print $2, $NF }' \
	>"$tmp/orig.switch"
cmp -s "$tmp/orig.switch" "$tmp/a.switch" || die "SWITCH records changed through JSON fields"
[ "$(diff "$tmp/orig.switch" "$tmp/b.switch" | grep -c '^[<>]')" -eq 2 ] ||
	die "the edited field did not change exactly one record: $(diff "$tmp/orig.switch" "$tmp/b.switch")"
diff "$tmp/orig.switch" "$tmp/b.switch" | grep -q '^> .* IN$' || die "the edited record is not SWITCH IN"
"$B/tools/perfring-replay" --json-in "$tmp/a.json" -o "$tmp/c.data" 2>"$tmp/err" &&
	die "a SWITCH line without bytes replayed without the plugin"
grep -q 'body as hex' "$tmp/err" || die "no clear message without the plugin: $(head -n 2 "$tmp/err")"
echo "example-plugin.sh: $nsw SWITCH records through their JSON fields; an edited field reaches the record"

echo "example-plugin.sh: out-of-tree plugin built, listed and used"
