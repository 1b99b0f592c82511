#!/bin/sh
# The man pages render without a warning (groff -ww, and mandoc -Tlint when
# installed), every option that a tool's --help lists is in its page, every
# tool answers --help and --version, and the example program of
# libperfring(3) compiles and runs against the built library.
. "$top_srcdir/tests/testlib.sh"
doc=$top_builddir/doc
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")

rendered=
for page in perfring-record.1 perfring-dump.1 perfring-replay.1 perfring-export.1 libperfring.3; do
	[ -f "$doc/$page" ] && ok "not: $doc/$page was not generated" || die "$doc/$page was not generated"
	grep -q '@VERSION@\|@include\|@PLUGINSDIR@' "$doc/$page" && die "$page: unsubstituted placeholder" || ok "not: $page: unsubstituted placeholder"
	grep -q "libperfring $version" "$doc/$page" && ok "not: $page: no version $version in its title" || die "$page: no version $version in its title"
	if command -v groff >/dev/null; then
		groff -man -Tutf8 -ww -z "$doc/$page" >"$W/groff" 2>&1 && ok "not: groff failed on $page" || die "groff failed on $page"
		[ -s "$W/groff" ] && { cat "$W/groff"; die "groff warns about $page"; } || ok "not: groff warns about $page"
		rendered="$rendered groff"
	fi
	if command -v mandoc >/dev/null; then
		mandoc -Tlint -W warning "$doc/$page" >"$W/mandoc" 2>&1
		[ -s "$W/mandoc" ] && { cat "$W/mandoc"; die "mandoc -Tlint warns about $page"; } || ok "not: mandoc -Tlint warns about $page"
		rendered="$rendered mandoc"
	fi
done
[ -n "$rendered" ] || echo "# neither groff nor mandoc installed: rendering not checked"

# Whatever the prefix: the pages with the substituted plugins directory
# made as long as a deep build directory makes it still render cleanly.
plugindir=$(sed -n '/^\.SH FILES/,/^\.SH EX/ s/^\.I //p' "$doc/libperfring.3")
long=/tmp/$(printf '%0150d' 0 | tr 0 x)/inst/lib/perfring/plugins
if command -v groff >/dev/null && [ -n "$plugindir" ]; then
	for page in perfring-record.1 perfring-dump.1 perfring-replay.1 perfring-export.1 libperfring.3; do
		sed "s|$plugindir|$long|g" "$doc/$page" >"$W/long.$page"
		groff -man -Tutf8 -ww -z "$W/long.$page" >"$W/groff" 2>&1 && ok "not: groff failed on $page (long prefix)" || die "groff failed on $page (long prefix)"
		[ -s "$W/groff" ] && { cat "$W/groff"; die "groff warns about $page with a long prefix"; } || ok "not: groff warns about $page with a long prefix"
	done
	grep -q "$long" "$W/long.libperfring.3" && ok "not: libperfring.3 does not name the plugins directory" || die "libperfring.3 does not name the plugins directory"
fi

for t in record dump replay export; do
	tool=$top_builddir/tools/perfring-$t
	page=$doc/perfring-$t.1
	"$tool" --help >"$W/help" 2>&1 && ok "perfring-$t --help exited with $?" || die "perfring-$t --help exited with $?"
	grep -q "^Usage:" "$W/help" && ok "not: perfring-$t --help prints no usage" || die "perfring-$t --help prints no usage"
	"$tool" --version >"$W/version" 2>&1 && ok "perfring-$t --version exited with $?" || die "perfring-$t --version exited with $?"
	head -n 1 "$W/version" | grep -q "^perfring-$t (libperfring) $version\$" && ok "not: perfring-$t --version" ||
		die "perfring-$t --version: $(head -n 1 "$W/version")"
	grep -q '^plugin ABI [0-9]*\.[0-9]*$' "$W/version" && ok "not: perfring-$t --version names no plugin ABI" || die "perfring-$t --version names no plugin ABI"
	# Every option of --help (long and short) appears in the page, in
	# troff's spelling (\-\-name, \-x).
	opts=$(sed -n 's/^  *\(-[A-Za-z?], \)\{0,1\}\(--[a-z][a-z-]*\).*/\1\2/p' "$W/help" |
		tr ',' '\n' | tr -d ' ')
	[ -n "$opts" ] && ok "not: no options found in perfring-$t --help" || die "no options found in perfring-$t --help"
	n=0
	for o in $opts; do
		troff=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$troff" "$page" && ok "not: perfring-$t: option $o of --help is not in perfring-$t.1" || die "perfring-$t: option $o of --help is not in perfring-$t.1"
		n=$((n + 1))
	done
	# And every option the page's OPTIONS section lists is in --help.
	for o in $(awk '/^\.SH/ { on = ($2 == "OPTIONS") } on && prev == ".TP" { print } { prev = $0 }' \
			"$page" | sed 's/\\-/-/g' | grep -o -- '--\{0,1\}[a-zA-Z][a-z-]*' |
			grep -v '^[a-zA-Z]' | sort -u); do
		grep -q -- "^ *\(-[A-Za-z?], \)\{0,1\}$o\([= ,]\|\$\)" "$W/help" ||
			grep -q -- "^ *$o," "$W/help" && ok "not: perfring-$t.1 documents $o, which --help does not list" ||
			die "perfring-$t.1 documents $o, which --help does not list"
	done
	echo "# perfring-$t: $n options of --help documented in perfring-$t.1"
done

# The example of libperfring(3), as printed, compiles and runs.
awk '/^#include <stdio.h>/ { on = 1 } on && /^\.RE/ { exit } on' "$doc/libperfring.3" |
	sed 's/\\e/\\/g; s/\\-/-/g' >"$W/example.c"
[ -s "$W/example.c" ] && ok "not: no example program found in libperfring.3" || die "no example program found in libperfring.3"
san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile")
${CC:-cc} -Wall -Wextra -Werror $san -I"$top_srcdir/include" -I"$top_builddir/include" \
	-o "$W/example" "$W/example.c" -L"$top_builddir/lib/.libs" -lperfring \
	-Wl,-rpath,"$top_builddir/lib/.libs" >"$W/cc.log" 2>&1 && ok "not: the example of libperfring(3) does not compile" ||
	{ cat "$W/cc.log"; die "the example of libperfring(3) does not compile"; }
(cd "$W" && ./example) >"$W/example.out" 2>&1 && ok "not: the example failed" || { cat "$W/example.out"; die "the example failed"; }
grep -q '^SAMPLE at 0x' "$W/example.out" && ok "not: the example printed" || die "the example printed: $(cat "$W/example.out")"
echo "# pages render cleanly (${rendered:- not checked}), options match, example runs"
finish
