#!/bin/sh
# The Debian packages: dpkg-buildpackage -us -uc -b on a clean copy of the
# tree builds libperfring2, libperfring-dev and perfring-tools; they are
# extracted (dpkg-deb -x, never installed on this machine) and used from
# there: the tools run and find the packaged plugins, a program builds
# against the -dev package with pkg-config, and a recording made with the
# packaged perfring-record is read back.
# Slow (about a minute): run by `make check-deb` (and .ci/run), not by
# `make check`.
. "$top_srcdir/tests/testlib.sh"
for c in dpkg-buildpackage dpkg-deb dh pkg-config; do
	command -v $c >/dev/null && ok "not: $c is missing (scripts/setup-debian.sh installs debhelper and dpkg-dev)" ||
		die "$c is missing (scripts/setup-debian.sh installs debhelper and dpkg-dev)"
done

pr_copy_source "$W/src"
version=$(cd "$W/src" && dpkg-parsechangelog -S Version) && ok "not: no debian/changelog" || die "no debian/changelog"
(cd "$W/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1 && ok "not: dpkg-buildpackage -us -uc -b failed" ||
	{ tail -40 "$W/build.log"; die "dpkg-buildpackage -us -uc -b failed"; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
root=$W/root
for p in libperfring2 libperfring-dev perfring-tools; do
	deb=$W/${p}_${version}_$arch.deb
	[ -f "$deb" ] && ok "not: $p was not built" || die "$p was not built ($(ls "$W"/*.deb 2>/dev/null))"
	dpkg-deb -x "$deb" "$root" && ok "not: dpkg-deb -x $deb" || die "dpkg-deb -x $deb"
	echo "$p: $(dpkg-deb -f "$deb" Depends)"
done
dpkg-deb -f "$W/perfring-tools_${version}_$arch.deb" Depends | grep -q "libperfring2 (= $version)" && ok "not: perfring-tools does not depend on libperfring2 (= $version)" ||
	die "perfring-tools does not depend on libperfring2 (= $version)"
dpkg-deb -f "$W/libperfring-dev_${version}_$arch.deb" Depends | grep -q "libperfring2 (= $version)" && ok "not: libperfring-dev does not depend on libperfring2 (= $version)" ||
	die "libperfring-dev does not depend on libperfring2 (= $version)"

libdir=/usr/lib/$ma
plugins=$libdir/perfring/plugins
for f in $libdir/libperfring.so.2 $libdir/libperfring.so $libdir/pkgconfig/perfring.pc \
	/usr/include/perfring/perfring.h /usr/include/perfring/plugin.h /usr/include/perfring/version.h \
	/usr/bin/perfring-record /usr/bin/perfring-dump /usr/bin/perfring-replay \
	/usr/bin/perfring-export /usr/share/man/man1/perfring-export.1.gz \
	/usr/share/man/man1/perfring-record.1.gz /usr/share/man/man1/perfring-dump.1.gz \
	/usr/share/man/man1/perfring-replay.1.gz /usr/share/man/man3/libperfring.3.gz \
	$plugins/comm.so $plugins/mmap2.so $plugins/task.so $plugins/hw.so; do
	[ -e "$root$f" ] && ok "not: not in the packages: $f" || die "not in the packages: $f"
done
[ -z "$(find "$root" -name '*.la')" ] && ok "not: libtool archives packaged" || die "libtool archives packaged"
# The library package is named after the soname it ships (Debian policy 8.1).
soname=$(objdump -p "$root$libdir/libperfring.so.2" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libperfring.so.2 ] && ok "packaged soname is libperfring.so.2, as the package name says" ||
	die "packaged soname is '$soname', the package is libperfring2"

# The packaged tools, run from the extracted tree.
export LD_LIBRARY_PATH="$root$libdir" PERFRING_PLUGIN_PATH="$root$plugins" PERFRING_PLUGIN_SYSTEM_PATH=
for t in record dump replay; do
	"$root/usr/bin/perfring-$t" --version >"$W/v" 2>&1 && ok "not: perfring-$t --version" || { cat "$W/v"; die "perfring-$t --version"; }
	grep -q "^perfring-$t (libperfring) $version\$" "$W/v" && ok "not: perfring-$t --version" || die "perfring-$t --version: $(cat "$W/v")"
done
"$root/usr/bin/perfring-dump" --list-plugins >"$W/list" 2>&1 && ok "not: --list-plugins" || { cat "$W/list"; die "--list-plugins"; }
cat "$W/list"
for p in comm mmap2 task hw; do
	grep -q "^$p .*$root$plugins/$p.so\$" "$W/list" && ok "not: packaged plugin $p not listed" || die "packaged plugin $p not listed"
done
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$root/usr/share/man/man1/perfring-record.1.gz" 2>/dev/null |
		grep -q -- '--call-graph' && ok "not: the packaged perfring-record(1) does not render" || die "the packaged perfring-record(1) does not render"
fi

# A program against the -dev package, with pkg-config only.
PKG_CONFIG_PATH="$root$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" \
	sh -c '${CC:-cc} -Wall -Werror -o "$1/hello-ring" "$2" $(pkg-config --cflags --libs perfring)' _ \
	"$W" "$top_srcdir/examples/hello-ring.c" >"$W/cc.log" 2>&1 && ok "not: hello-ring does not build against libperfring-dev" ||
	{ cat "$W/cc.log"; die "hello-ring does not build against libperfring-dev"; }
(cd "$W" && ./hello-ring h.ring) >"$W/hello.out" 2>&1 && ok "not: hello-ring failed" || { cat "$W/hello.out"; die "hello-ring failed"; }
[ "$(grep -c ' SAMPLE ' "$W/hello.out")" -eq 5 ] && ok "not: hello-ring" || die "hello-ring: $(cat "$W/hello.out")"

# A recording with the packaged perfring-record (where perf_event_open works).
if "$root/usr/bin/perfring-record" -e cpu-clock -o "$W/r.data" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
	>"$W/rec.out" 2>&1; then
	cat "$W/rec.out"
	"$root/usr/bin/perfring-dump" --check "$W/r.data" >"$W/check" 2>&1 && ok "not: --check" || { cat "$W/check"; die "--check"; }
	"$root/usr/bin/perfring-dump" --stats "$W/r.data" | grep -q '^SAMPLE [1-9]' && ok "not: no samples recorded" || die "no samples recorded"
	"$root/usr/bin/perfring-replay" -o "$W/r2.data" "$W/r.data" && ok "not: perfring-replay" || die "perfring-replay"
else
	cat "$W/rec.out"
	grep -qi 'paranoid\|permission\|not supported' "$W/rec.out" && ok "not: perfring-record failed" || die "perfring-record failed"
	echo "# perf_event_open refused here: the packaged perfring-record not exercised"
fi
echo "# libperfring2, libperfring-dev, perfring-tools $version built, extracted and used"
finish
