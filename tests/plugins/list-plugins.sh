#!/bin/sh
# perfring-dump --list-plugins: the built plugins from the build tree, and
# each deliberately bad plugin rejected with exit 2 and its message.
. "$top_srcdir/tests/testlib.sh"
out=$W/out err=$W/err empty=$W/empty
mkdir "$empty"
# The plugin ABI of this tree, from the header plugins are built with.
abi_major=$(sed -n 's/^#define PERFRING_PLUGIN_ABI_MAJOR //p' "$top_srcdir/include/perfring/plugin.h")
abi_minor=$(sed -n 's/^#define PERFRING_PLUGIN_ABI_MINOR //p' "$top_srcdir/include/perfring/plugin.h")
abi=$abi_major.$abi_minor

# expect_reject PLUGIN_PATH TEXT...: exit 2, each TEXT on stderr, no stdout.
expect_reject() {
	path=$1; shift
	PERFRING_PLUGIN_PATH=$path "$DUMP" --list-plugins >"$out" 2>"$err"
	rc=$?
	[ $rc -eq 2 ] && ok "$path: exit $rc" || bad "$path: exit $rc, want 2"
	[ -s "$out" ] && bad "$path: printed a list despite the error" || ok "not: $path: printed a list despite the error"
	grep -q "^perfring-dump: " "$err" && ok "not: $path: stderr not prefixed" || bad "$path: stderr not prefixed: $(cat "$err")"
	for t in "$@"; do
		grep -qF -- "$t" "$err" && ok "not: $path: stderr lacks '$t'" || bad "$path: stderr lacks '$t': $(cat "$err")"
	done
	echo "rejected as expected: $(cat "$err")"
}

# The built plugins, found from the build tree without any setting.
env -u PERFRING_PLUGIN_PATH "$DUMP" --list-plugins >"$out" 2>"$err"
rc=$?
[ $rc -eq 0 ] && ok "--list-plugins: exit $rc" || bad "--list-plugins: exit $rc: $(cat "$err")"
cat "$out"
for want in "comm:COMM:plugins/comm/comm.la" "mmap2:MMAP,MMAP2:plugins/mmap2/mmap2.la" \
	    "task:EXIT,FORK:plugins/task/task.la"; do
	name=${want%%:*}; rest=${want#*:}; types=${rest%%:*}; file=${rest#*:}
	awk -v n="$name" -v t="$types" -v f="$top_builddir/$file" '
		$1 == n && $2 == "record" && $3 == t && $4 == abi && $5 == f { ok = 1 }
		END { exit !ok }' abi="$abi" "$out" && ok "not: no line '$name record $types $abi $file'" || bad "no line '$name record $types $abi $file'"
done
[ "$(wc -l <"$out")" -ge 4 ] && ok "not: expected a header and at least 3 plugins" || bad "expected a header and at least 3 plugins"
cp "$out" "$out.builtin"

# An empty directory adds nothing; a missing one is an error naming it.
PERFRING_PLUGIN_PATH=$empty "$DUMP" --list-plugins >"$out" 2>"$err" && ok "empty dir: exit $?" || bad "empty dir: exit $?"
cmp -s "$out" "$out.builtin" && ok "not: empty dir changed the list" || bad "empty dir changed the list"
expect_reject "$empty/missing" "$empty/missing" "No such file or directory"

expect_reject "$TP/badmajor.la" "$TP/badmajor.la" "plugin ABI $((abi_major + 1)).0" "plugin ABI $abi"
expect_reject "$TP/newminor.la" "$TP/newminor.la" "plugin ABI $abi_major.$((abi_minor + 1))" \
	"plugin ABI $abi" newer
expect_reject "$TP/nosymbol.la" "$TP/nosymbol.la" \
	"not a perfring plugin (no perfring_plugin_descriptor symbol)"
expect_reject "$TP/dupcomm.la" "$TP/dupcomm.la" "$top_builddir/plugins/comm/comm.la" COMM
expect_reject "$TP/initfail.la" "$TP/initfail.la" "init failed"
expect_reject "$TP/noops.la" "$TP/noops.la" "record_ops"

# A relative entry is loaded, with a warning.
(cd "$top_builddir/tests" && PERFRING_PLUGIN_PATH=plugins/nosymbol.la "$DUMP" \
	--list-plugins >"$out" 2>"$err")
grep -q "relative" "$err" && ok "not: no warning for a relative path entry" || bad "no warning for a relative path entry: $(cat "$err")"

# --help, --version, bad usage.
"$DUMP" --help >"$out" 2>&1 && ok "--help: exit $?" || bad "--help: exit $?"
grep -q -- "--list-plugins" "$out" && ok "not: --help does not mention --list-plugins" || bad "--help does not mention --list-plugins"
"$DUMP" --version >"$out" 2>&1 && ok "--version: exit $?" || bad "--version: exit $?"
grep -q "plugin ABI $abi\$" "$out" && ok "not: --version lacks the plugin ABI" || bad "--version lacks the plugin ABI: $(cat "$out")"
grep -q "libperfring" "$out" && ok "not: --version lacks the library version" || bad "--version lacks the library version"
"$DUMP" --no-such-option >"$out" 2>&1
rc=$?
[ $rc -eq 2 ] && ok "bad option: exit $rc" || bad "bad option: exit $rc, want 2"

finish
