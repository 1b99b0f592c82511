#!/bin/sh
# The Debian packages: dpkg-buildpackage -us -uc -b on a clean copy of the
# tree builds libperfring0, libperfring-dev and perfring-tools; they are
# extracted (dpkg-deb -x, never installed on this machine) and used from
# there: the tools run and find the packaged plugins, a program builds
# against the -dev package with pkg-config, and a recording made with the
# packaged perfring-record is read back.
# Slow (about a minute): run by `make check-deb` (and .ci/run), not by
# `make check`.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "deb.sh: FAIL: $*"; exit 1; }
for c in dpkg-buildpackage dpkg-deb dh pkg-config; do
	command -v $c >/dev/null ||
		die "$c is missing (scripts/setup-debian.sh installs debhelper and dpkg-dev)"
done
. "$top_srcdir/tests/lib-install.sh"

pr_copy_source "$tmp/src"
version=$(cd "$tmp/src" && dpkg-parsechangelog -S Version) || die "no debian/changelog"
(cd "$tmp/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 ||
	{ tail -40 "$tmp/build.log"; die "dpkg-buildpackage -us -uc -b failed"; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
root=$tmp/root
for p in libperfring0 libperfring-dev perfring-tools; do
	deb=$tmp/${p}_${version}_$arch.deb
	[ -f "$deb" ] || die "$p was not built ($(ls "$tmp"/*.deb 2>/dev/null))"
	dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x $deb"
	echo "$p: $(dpkg-deb -f "$deb" Depends)"
done
dpkg-deb -f "$tmp/perfring-tools_${version}_$arch.deb" Depends | grep -q "libperfring0 (= $version)" ||
	die "perfring-tools does not depend on libperfring0 (= $version)"
dpkg-deb -f "$tmp/libperfring-dev_${version}_$arch.deb" Depends | grep -q "libperfring0 (= $version)" ||
	die "libperfring-dev does not depend on libperfring0 (= $version)"

libdir=/usr/lib/$ma
plugins=$libdir/perfring/plugins
for f in $libdir/libperfring.so.0 $libdir/libperfring.so $libdir/pkgconfig/perfring.pc \
	/usr/include/perfring/perfring.h /usr/include/perfring/plugin.h /usr/include/perfring/version.h \
	/usr/bin/perfring-record /usr/bin/perfring-dump /usr/bin/perfring-replay \
	/usr/share/man/man1/perfring-record.1.gz /usr/share/man/man1/perfring-dump.1.gz \
	/usr/share/man/man1/perfring-replay.1.gz /usr/share/man/man3/libperfring.3.gz \
	$plugins/comm.so $plugins/mmap2.so $plugins/task.so $plugins/hw.so; do
	[ -e "$root$f" ] || die "not in the packages: $f"
done
[ -z "$(find "$root" -name '*.la')" ] || die "libtool archives packaged"

# The packaged tools, run from the extracted tree.
export LD_LIBRARY_PATH="$root$libdir" PERFRING_PLUGIN_PATH="$root$plugins" PERFRING_PLUGIN_SYSTEM_PATH=
for t in record dump replay; do
	"$root/usr/bin/perfring-$t" --version >"$tmp/v" 2>&1 || { cat "$tmp/v"; die "perfring-$t --version"; }
	grep -q "^perfring-$t (libperfring) $version\$" "$tmp/v" || die "perfring-$t --version: $(cat "$tmp/v")"
done
"$root/usr/bin/perfring-dump" --list-plugins >"$tmp/list" 2>&1 || { cat "$tmp/list"; die "--list-plugins"; }
cat "$tmp/list"
for p in comm mmap2 task hw; do
	grep -q "^$p .*$root$plugins/$p.so\$" "$tmp/list" || die "packaged plugin $p not listed"
done
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$root/usr/share/man/man1/perfring-record.1.gz" 2>/dev/null |
		grep -q -- '--call-graph' || die "the packaged perfring-record(1) does not render"
fi

# A program against the -dev package, with pkg-config only.
PKG_CONFIG_PATH="$root$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" \
	sh -c '${CC:-cc} -Wall -Werror -o "$1/hello-ring" "$2" $(pkg-config --cflags --libs perfring)' _ \
	"$tmp" "$top_srcdir/examples/hello-ring.c" >"$tmp/cc.log" 2>&1 ||
	{ cat "$tmp/cc.log"; die "hello-ring does not build against libperfring-dev"; }
(cd "$tmp" && ./hello-ring h.ring) >"$tmp/hello.out" 2>&1 || { cat "$tmp/hello.out"; die "hello-ring failed"; }
[ "$(grep -c ' SAMPLE ' "$tmp/hello.out")" -eq 5 ] || die "hello-ring: $(cat "$tmp/hello.out")"

# A recording with the packaged perfring-record (where perf_event_open works).
if "$root/usr/bin/perfring-record" -e cpu-clock -o "$tmp/r.data" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
	>"$tmp/rec.out" 2>&1; then
	cat "$tmp/rec.out"
	"$root/usr/bin/perfring-dump" --check "$tmp/r.data" >"$tmp/check" 2>&1 || { cat "$tmp/check"; die "--check"; }
	"$root/usr/bin/perfring-dump" --stats "$tmp/r.data" | grep -q '^SAMPLE [1-9]' || die "no samples recorded"
	"$root/usr/bin/perfring-replay" -o "$tmp/r2.data" "$tmp/r.data" || die "perfring-replay"
else
	cat "$tmp/rec.out"
	grep -qi 'paranoid\|permission\|not supported' "$tmp/rec.out" || die "perfring-record failed"
	echo "deb.sh: perf_event_open refused here: the packaged perfring-record not exercised"
fi
echo "deb.sh: libperfring0, libperfring-dev, perfring-tools $version built, extracted and used"
