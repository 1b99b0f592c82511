#!/bin/sh
# libperfring.so exports exactly the symbols lib/libperfring.sym lists by
# name, each in the version node the list gives it, and nothing else.
set -u
lib="$top_builddir/lib/.libs/libperfring.so"
sym="$top_srcdir/lib/libperfring.sym"
[ -f "$lib" ] || { echo "symbols.sh: FAIL: $lib not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# NAME@@NODE for each name the list gives, from its node.
awk '/^[A-Z0-9_.]+ *\{/ { node = $1; sub(/ *\{.*/, "", node) }
     /^\t\tperfring_[A-Za-z0-9_]+;$/ { s = $1; sub(/;$/, "", s); print s "@@" node }' "$sym" |
	sort >"$tmp/listed"
nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -v '^PERFRING_[0-9.]*$' | sort >"$tmp/exported"
[ -s "$tmp/listed" ] || { echo "symbols.sh: FAIL: no symbol found in $sym"; exit 1; }
if ! cmp -s "$tmp/listed" "$tmp/exported"; then
	echo "symbols.sh: FAIL: exported symbols (>) differ from lib/libperfring.sym (<):"
	diff "$tmp/listed" "$tmp/exported"
	exit 1
fi
grep -q '^ *perfring_\*' "$sym" && { echo "symbols.sh: FAIL: $sym exports a glob"; exit 1; }
n=$(wc -l <"$tmp/listed")
echo "symbols.sh: $n symbols exported, each listed by name in its version node, nothing else"
