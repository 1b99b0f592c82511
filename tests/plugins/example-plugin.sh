#!/bin/sh
# Out-of-tree plugin: install this tree into a temporary DESTDIR, build
# examples/plugin-switch against the installed headers with pkg-config only,
# then load it through PERFRING_PLUGIN_PATH: perfring-dump --list-plugins
# shows it, and switch-test decodes a SWITCH record with it.
. "$top_srcdir/tests/testlib.sh"

command -v pkg-config >/dev/null || skip "no pkg-config"
# Install (only what a plugin author needs: library, plugins, tools,
# headers, perfring.pc) from a fresh build: see pr_install in tests/testlib.sh.
pr_install "$W/root" install-libLTLIBRARIES install-pluginLTLIBRARIES install-binPROGRAMS \
	install-perfringincludeHEADERS install-nodist_perfringincludeHEADERS install-perfringcoreHEADERS \
	install-pkgconfigDATA
for h in perfring.h plugin.h registry.h sideband.h records.h version.h; do
	[ -n "$(find "$W/root" -path "*/include/perfring/$h")" ] && ok "not: $h not installed" || die "$h not installed"
done
pr_pkgconfig "$W/root"
libdir=$pr_libdir
pluginsdir=$pr_pluginsdir
for p in comm mmap2 task; do
	[ -f "$W/root$pluginsdir/$p.so" ] && ok "not: plugin $p not installed in $pluginsdir" || die "plugin $p not installed in $pluginsdir"
done

# Build it where a third party would: a copy, outside this tree.  Use the
# build's sanitizer flags so the program and the installed library agree.
san=$pr_san
cp -r "$top_srcdir/examples/plugin-switch" "$W/src"
chmod -R u+w "$W/src"
${MAKE:-make} -s -C "$W/src" CFLAGS="-g -O1 -Wall -Wextra -Werror $san" \
	LDFLAGS="$san" >"$W/build.log" 2>&1 && ok "not: example build failed" || { cat "$W/build.log"; die "example build failed"; }
syms=$(nm -D --defined-only "$W/src/switch.so" | awk '{print $NF}' | grep -v '^__odr_asan')
[ "$syms" = "perfring_plugin_descriptor" ] && ok "not: switch.so exports: $syms" || die "switch.so exports: $syms"

# perfring-dump (from the build tree) lists it next to the built plugins.
PERFRING_PLUGIN_PATH="$W/src" "$top_builddir/tools/perfring-dump" --list-plugins \
	>"$W/list" 2>&1 && ok "not: --list-plugins failed" || { cat "$W/list"; die "--list-plugins failed"; }
cat "$W/list"
abi=$(sed -n 's/^#define PERFRING_PLUGIN_ABI_MAJOR //p' "$top_srcdir/include/perfring/plugin.h").$(
	sed -n 's/^#define PERFRING_PLUGIN_ABI_MINOR //p' "$top_srcdir/include/perfring/plugin.h")
awk -v f="$W/src/switch.so" -v abi="$abi" '$1 == "switch" && $2 == "record" && $3 == "SWITCH" &&
	$4 == abi && $5 == f { ok = 1 } END { exit !ok }' "$W/list" && ok "not: switch plugin not listed" ||
	die "switch plugin not listed"

# The installed perfring-dump does not use the build tree's plugins: with
# the DESTDIR plugins directory in PERFRING_PLUGIN_PATH, and no installed
# directory (a real installation in the prefix, if any, is not searched),
# it lists exactly those.
dump=$(find "$W/root" -path '*/bin/perfring-dump' | head -n 1)
[ -n "$dump" ] && ok "not: perfring-dump not installed" || die "perfring-dump not installed"
LD_LIBRARY_PATH="$W/root$libdir" PERFRING_PLUGIN_PATH="$W/root$pluginsdir" \
	PERFRING_PLUGIN_SYSTEM_PATH= "$dump" --list-plugins >"$W/list2" 2>&1 && ok "not: installed --list-plugins failed" ||
	{ cat "$W/list2"; die "installed --list-plugins failed"; }
cat "$W/list2"
for p in comm mmap2 task hw; do
	grep -q "^$p .* $W/root$pluginsdir/$p.so\$" "$W/list2" && ok "not: installed perfring-dump did not list the installed $p plugin" ||
		die "installed perfring-dump did not list the installed $p plugin"
done
[ "$(tail -n +2 "$W/list2" | wc -l)" -eq 4 ] && ok "not: installed perfring-dump listed other plugins" || die "installed perfring-dump listed other plugins"
grep -q "$top_builddir" "$W/list2" && die "installed perfring-dump used the build tree" || ok "not: installed perfring-dump used the build tree"

# The installed library loads it (and the installed plugins) and decodes.
LD_LIBRARY_PATH="$W/root$libdir" PERFRING_PLUGIN_PATH="$W/src:$W/root$pluginsdir" \
	PERFRING_PLUGIN_SYSTEM_PATH= PERFRING_NO_DLCLOSE=1 "$W/src/switch-test" >"$W/out" 2>&1 && ok "not: switch-test failed" ||
	{ cat "$W/out"; die "switch-test failed"; }
cat "$W/out"
grep -q "^SWITCH OUT preempt pid 7 tid 8 time 1000 cpu 1$" "$W/out" && ok "not: wrong decode" || die "wrong decode"
grep -q '^{"out":true,"preempt":true}$' "$W/out" && ok "not: wrong JSON" || die "wrong JSON"
# The plugin owns SWITCH's JSON both ways (plugin ABI 1.1 parse_json):
# perfring-dump --json writes SWITCH records as fields only (no hex), a
# field edited there reaches the record perfring-replay writes, and
# without the plugin such a line is refused.
fx=$top_srcdir/tests/fixtures/pd-switch.data
PERFRING_PLUGIN_PATH="$W/src" "$B/tools/perfring-dump" --json "$fx" >"$W/a.json" && ok "dump --json with the switch plugin: exit $?" ||
	die "dump --json with the switch plugin: exit $?"
nsw=$(grep -c '"type":"SWITCH"' "$W/a.json")
[ "$nsw" -gt 0 ] && ok "not: no SWITCH line in the JSON of $fx" || die "no SWITCH line in the JSON of $fx"
grep '"type":"SWITCH"' "$W/a.json" | grep -q '"raw"' && die "SWITCH lines still carry their bytes" || ok "not: SWITCH lines still carry their bytes"
grep -q '"type":"SWITCH".*"out":true,"preempt":true' "$W/a.json" && ok "not: no SWITCH OUT preempt line" || die "no SWITCH OUT preempt line"
awk '/"type":"SWITCH"/ && /"out":true,"preempt":true/ && !done {
	sub(/"out":true,"preempt":true/, "\"out\":false,\"preempt\":false"); done = 1 } { print }' \
	"$W/a.json" >"$W/b.json"
cmp -s "$W/a.json" "$W/b.json" && die "the edit did not apply" || ok "not: the edit did not apply"
PERFRING_PLUGIN_PATH="$W/src" "$B/tools/perfring-replay" --json-in "$W/a.json" -o "$W/a.data" && ok "replay of the unedited JSON: exit $?" ||
	die "replay of the unedited JSON: exit $?"
PERFRING_PLUGIN_PATH="$W/src" "$B/tools/perfring-replay" --json-in "$W/b.json" -o "$W/b.data" && ok "replay of the edited JSON: exit $?" ||
	die "replay of the edited JSON: exit $?"
for f in a b; do
	PERFRING_PLUGIN_PATH="$W/src" "$B/tools/perfring-dump" -t SWITCH "$W/$f.data" |
		awk '{ print $2, $NF }' >"$W/$f.switch"
done
PERFRING_PLUGIN_PATH="$W/src" "$B/tools/perfring-dump" -t SWITCH "$fx" | awk '{ print $2, $NF }' \
	>"$W/orig.switch"
cmp -s "$W/orig.switch" "$W/a.switch" && ok "not: SWITCH records changed through JSON fields" || die "SWITCH records changed through JSON fields"
[ "$(diff "$W/orig.switch" "$W/b.switch" | grep -c '^[<>]')" -eq 2 ] && ok "not: the edited field did not change exactly one record" ||
	die "the edited field did not change exactly one record: $(diff "$W/orig.switch" "$W/b.switch")"
diff "$W/orig.switch" "$W/b.switch" | grep -q '^> .* IN$' && ok "not: the edited record is not SWITCH IN" || die "the edited record is not SWITCH IN"
"$B/tools/perfring-replay" --json-in "$W/a.json" -o "$W/c.data" 2>"$W/err" &&
	die "a SWITCH line without bytes replayed without the plugin" || ok "not: a SWITCH line without bytes replayed without the plugin"
grep -q 'body as hex' "$W/err" && ok "not: no clear message without the plugin" || die "no clear message without the plugin: $(head -n 2 "$W/err")"
echo "# $nsw SWITCH records through their JSON fields; an edited field reaches the record"

echo "# out-of-tree plugin built, listed and used"
finish
