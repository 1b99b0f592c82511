#!/bin/sh
# make install / make uninstall with DESTDIR: the library, headers,
# perfring.pc (with pluginsdir), the plugins, the tools and the man pages
# land where they belong; the installed tools run; uninstall leaves no file.
. "$top_srcdir/tests/testlib.sh"

command -v pkg-config >/dev/null || skip "no pkg-config"
root=$W/root
pr_install "$root" install
pr_pkgconfig "$root"
prefix=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=prefix perfring)
includedir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=includedir perfring)
mandir=$(pr_var mandir) && bindir=$(pr_var bindir) && [ -n "$mandir" ] && [ -n "$bindir" ] && ok "not: cannot read mandir and bindir from the Makefile" ||
	die "cannot read mandir and bindir from the Makefile"

installed() { [ -e "$root$1" ] || die "not installed: $1"; }
installed "$pr_libdir/libperfring.so"
ls "$root$pr_libdir"/libperfring.so.2* >/dev/null 2>&1 && ok "not: no libperfring.so.2 soname link" || die "no libperfring.so.2 soname link"
for h in perfring.h records.h ring.h sideband.h registry.h plugin.h backend.h perfdata.h source.h \
	writer.h version.h; do
	installed "$includedir/perfring/$h"
done
installed "$pr_libdir/pkgconfig/perfring.pc"
[ "$pr_pluginsdir" = "$pr_libdir/perfring/plugins" ] && ok "not: pkg-config --variable=pluginsdir perfring: $pr_pluginsdir" ||
	die "pkg-config --variable=pluginsdir perfring: $pr_pluginsdir"
for p in comm mmap2 task hw; do installed "$pr_pluginsdir/$p.so"; done
for t in record dump replay; do
	installed "$bindir/perfring-$t"
	installed "$mandir/man1/perfring-$t.1"
done
installed "$mandir/man3/libperfring.3"
# No path of the build machine is compiled into what is installed (debug
# information aside, which names the compile directory by design).
bdir=$(cd "$top_builddir" && pwd -P)
for f in "$root$bindir"/perfring-* "$root$pr_libdir"/libperfring.so "$root$pr_pluginsdir"/*.so; do
	strip -o "$W/stripped" "$f" 2>/dev/null || cp "$f" "$W/stripped"
	grep -q -F "$bdir" "$W/stripped" && die "$f holds the build directory $bdir"
done
ok "not: an installed binary holds the build directory"
# No static archives, no libtool archives of plugins needed at run time, but
# also nothing else unexpected: list what was installed.
find "$root" -type f | sed "s|^$root||" | sort >"$W/files"
cat "$W/files"

# The installed tools run from the DESTDIR and find the installed plugins,
# and only those (PERFRING_PLUGIN_SYSTEM_PATH empty: a real installation in
# the configured prefix is not searched).
export LD_LIBRARY_PATH="$root$pr_libdir" PERFRING_PLUGIN_PATH="$root$pr_pluginsdir"
export PERFRING_PLUGIN_SYSTEM_PATH=
export PERFRING_NO_DLCLOSE=1
for t in record dump replay; do
	"$root$bindir/perfring-$t" --version >"$W/v" 2>&1 && ok "not: installed perfring-$t --version" || { cat "$W/v"; die "installed perfring-$t --version"; }
	"$root$bindir/perfring-$t" --help >/dev/null 2>&1 && ok "not: installed perfring-$t --help" || die "installed perfring-$t --help"
done
"$root$bindir/perfring-dump" --list-plugins >"$W/list" 2>&1 && ok "not: --list-plugins" || { cat "$W/list"; die "--list-plugins"; }
for p in comm mmap2 task hw; do
	grep -q "^$p .*$root$pr_pluginsdir/$p.so\$" "$W/list" && ok "not: installed plugin $p not listed" || { cat "$W/list"; die "installed plugin $p not listed"; }
done
[ "$(tail -n +2 "$W/list" | wc -l)" -eq 4 ] && ok "not: plugins listed besides the 4 installed" || { cat "$W/list"; die "plugins listed besides the 4 installed"; }
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$root$mandir/man3/libperfring.3" 2>"$W/man.err" | grep -q 'THE RING PROTOCOL' && ok "not: man -l libperfring.3 does not render" ||
		{ cat "$W/man.err"; die "man -l libperfring.3 does not render"; }
	MANPATH="$root$mandir" MANWIDTH=80 man 1 perfring-dump 2>/dev/null | grep -q -- '--check' && ok "not: man perfring-dump with MANPATH=DESTDIR does not show the page" ||
		die "man perfring-dump with MANPATH=DESTDIR does not show the page"
fi
unset LD_LIBRARY_PATH PERFRING_PLUGIN_PATH PERFRING_PLUGIN_SYSTEM_PATH

# make uninstall leaves no file behind.
pr_make DESTDIR="$root" uninstall && ok "not: make uninstall failed" || die "make uninstall failed"
left=$(find "$root" ! -type d)
[ -z "$left" ] && ok "not: make uninstall left: $left" || die "make uninstall left: $left"
echo "# $(wc -l <"$W/files") files installed and uninstalled"
finish
