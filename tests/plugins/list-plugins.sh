#!/bin/sh
# perfring-dump --list-plugins: the built plugins from the build tree, and
# each deliberately bad plugin rejected with exit 2 and its message.
set -u
dump="$top_builddir/tools/perfring-dump"
tp="$top_builddir/tests/plugins"
out=$(mktemp) err=$(mktemp) empty=$(mktemp -d)
trap 'rm -rf "$out" "$out.builtin" "$err" "$empty"' EXIT
fails=0
# The plugin ABI of this tree, from the header plugins are built with.
abi_major=$(sed -n 's/^#define PERFRING_PLUGIN_ABI_MAJOR //p' "$top_srcdir/include/perfring/plugin.h")
abi_minor=$(sed -n 's/^#define PERFRING_PLUGIN_ABI_MINOR //p' "$top_srcdir/include/perfring/plugin.h")
abi=$abi_major.$abi_minor
fail() { echo "list-plugins.sh: FAIL: $*"; fails=$((fails + 1)); }

# expect_reject PLUGIN_PATH TEXT...: exit 2, each TEXT on stderr, no stdout.
expect_reject() {
	path=$1; shift
	PERFRING_PLUGIN_PATH=$path "$dump" --list-plugins >"$out" 2>"$err"
	rc=$?
	[ $rc -eq 2 ] || fail "$path: exit $rc, want 2"
	[ -s "$out" ] && fail "$path: printed a list despite the error"
	grep -q "^perfring-dump: " "$err" || fail "$path: stderr not prefixed: $(cat "$err")"
	for t in "$@"; do
		grep -qF -- "$t" "$err" || fail "$path: stderr lacks '$t': $(cat "$err")"
	done
	echo "rejected as expected: $(cat "$err")"
}

# The built plugins, found from the build tree without any setting.
env -u PERFRING_PLUGIN_PATH "$dump" --list-plugins >"$out" 2>"$err"
rc=$?
[ $rc -eq 0 ] || fail "--list-plugins: exit $rc: $(cat "$err")"
cat "$out"
for want in "comm:COMM:plugins/comm/comm.la" "mmap2:MMAP,MMAP2:plugins/mmap2/mmap2.la" \
	    "task:EXIT,FORK:plugins/task/task.la"; do
	name=${want%%:*}; rest=${want#*:}; types=${rest%%:*}; file=${rest#*:}
	awk -v n="$name" -v t="$types" -v f="$top_builddir/$file" '
		$1 == n && $2 == "record" && $3 == t && $4 == abi && $5 == f { ok = 1 }
		END { exit !ok }' abi="$abi" "$out" || fail "no line '$name record $types $abi $file'"
done
[ "$(wc -l <"$out")" -ge 4 ] || fail "expected a header and at least 3 plugins"
cp "$out" "$out.builtin"

# An empty directory adds nothing; a missing one is an error naming it.
PERFRING_PLUGIN_PATH=$empty "$dump" --list-plugins >"$out" 2>"$err" || fail "empty dir: exit $?"
cmp -s "$out" "$out.builtin" || fail "empty dir changed the list"
expect_reject "$empty/missing" "$empty/missing" "No such file or directory"

expect_reject "$tp/badmajor.la" "$tp/badmajor.la" "plugin ABI $((abi_major + 1)).0" "plugin ABI $abi"
expect_reject "$tp/newminor.la" "$tp/newminor.la" "plugin ABI $abi_major.$((abi_minor + 1))" \
	"plugin ABI $abi" newer
expect_reject "$tp/nosymbol.la" "$tp/nosymbol.la" \
	"not a perfring plugin (no perfring_plugin_descriptor symbol)"
expect_reject "$tp/dupcomm.la" "$tp/dupcomm.la" "$top_builddir/plugins/comm/comm.la" COMM
expect_reject "$tp/initfail.la" "$tp/initfail.la" "init failed"
expect_reject "$tp/noops.la" "$tp/noops.la" "record_ops"

# A relative entry is loaded, with a warning.
(cd "$top_builddir/tests" && PERFRING_PLUGIN_PATH=plugins/nosymbol.la "$dump" \
	--list-plugins >"$out" 2>"$err")
grep -q "relative" "$err" || fail "no warning for a relative path entry: $(cat "$err")"

# --help, --version, bad usage.
"$dump" --help >"$out" 2>&1 || fail "--help: exit $?"
grep -q -- "--list-plugins" "$out" || fail "--help does not mention --list-plugins"
"$dump" --version >"$out" 2>&1 || fail "--version: exit $?"
grep -q "plugin ABI $abi\$" "$out" || fail "--version lacks the plugin ABI: $(cat "$out")"
grep -q "libperfring" "$out" || fail "--version lacks the library version"
"$dump" --no-such-option >"$out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "bad option: exit $rc, want 2"

[ $fails -eq 0 ] || exit 1
echo "list-plugins.sh: all checks passed"
