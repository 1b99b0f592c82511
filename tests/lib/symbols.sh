#!/bin/sh
# libperfring.so exports exactly the symbols lib/libperfring.sym lists by
# name, each in the version node the list gives it, and nothing else.
. "$top_srcdir/tests/testlib.sh"
lib="$top_builddir/lib/.libs/libperfring.so"
sym="$top_srcdir/lib/libperfring.sym"
[ -f "$lib" ] && ok "$lib built" || die "$lib not built"
# NAME@@NODE for each name the list gives, from its node.
awk '/^[A-Z0-9_.]+ *\{/ { node = $1; sub(/ *\{.*/, "", node) }
     /^\t\tperfring_[A-Za-z0-9_]+;$/ { s = $1; sub(/;$/, "", s); print s "@@" node }' "$sym" |
	sort >"$W/listed"
nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -v '^PERFRING_[0-9.]*$' | sort >"$W/exported"
[ -s "$W/listed" ] && ok "$(wc -l <"$W/listed") symbols listed in $sym" || die "no symbol found in $sym"
same "exported symbols (>) are those of lib/libperfring.sym (<), in their version nodes" \
	"$W/listed" "$W/exported"
grep -q '^ *perfring_\*' "$sym" && bad "$sym exports a glob" || ok "$sym lists every symbol by name"
finish
