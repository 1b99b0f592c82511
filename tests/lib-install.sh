# Sourced by the tests that need an installed libperfring (example-plugin.sh,
# examples.sh, install.sh).  Expects: $tmp (a scratch directory the caller
# removes), $top_srcdir, $top_builddir, and a die() function.
#
# pr_install ROOT [TARGET...]
#	Build a fresh copy of this tree in $tmp/build, configured like this
#	build, and `make TARGET...` (default: install) with DESTDIR=ROOT.
#	A fresh build because `make install` in this build directory would
#	make libtool relink the plugins in place (moving .libs/X.so aside for
#	a moment) under the tests running in parallel.  A source tree
#	configured in place (the README's way) refuses a second, out-of-tree
#	configure: it is then copied and distcleaned first.  The recursive
#	make must not inherit our make's jobserver.  Sets pr_build (the build
#	directory, for a later pr_make) and pr_pc (the installed perfring.pc).
#
# pr_copy_source DEST
#	Copy the source tree to DEST (without .git and _build*), distcleaned
#	if it was configured in place.
#
# pr_make ARGS...
#	make in $pr_build, quietly (log in $tmp/make.log, tail shown on failure).
#
# pr_var NAME
#	The value of the make variable NAME in $pr_build (e.g. mandir).
#
# pr_pkgconfig ROOT
#	Export PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR for the installed
#	perfring.pc, and set pr_libdir and pr_pluginsdir (without ROOT).

pr_make() {
	(cd "$pr_build" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} "$@") \
		>"$tmp/make.log" 2>&1 || { tail -30 "$tmp/make.log"; return 1; }
}

pr_copy_source() {	# DEST: a clean copy of the source tree (distcleaned if configured in place)
	mkdir -p "$1" || die "cannot create $1"
	(cd "$top_srcdir" && tar --exclude=./.git --exclude='./_build*' --exclude=./autom4te.cache \
		-cf - .) | (cd "$1" && tar -xf -) || die "copying the source tree failed"
	chmod -R u+w "$1"
	if [ -f "$1/config.status" ]; then
		(cd "$1" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s distclean) \
			>"$tmp/distclean.log" 2>&1 ||
			{ tail -20 "$tmp/distclean.log"; die "distclean of the copy failed"; }
	fi
}

pr_install() {
	_root=$1; shift
	[ $# -gt 0 ] || set -- install
	_cfg=$(cd "$top_builddir" && ./config.status --config) || die "config.status --config"
	# (distcheck configures with --srcdir=..: we name the source tree ourselves.)
	_cfg=$(printf '%s\n' "$_cfg" | sed "s/'--srcdir=[^']*'//g; s/--srcdir=[^ ]*//g")
	_src=$top_srcdir
	if [ -f "$top_srcdir/config.status" ]; then
		pr_copy_source "$tmp/srctree"
		_src=$tmp/srctree
	fi
	pr_build=$tmp/build
	mkdir "$pr_build"
	(cd "$pr_build" && eval "\"$_src/configure\" -q $_cfg") >"$tmp/configure.log" 2>&1 ||
		{ tail -20 "$tmp/configure.log"; die "configure of a fresh build failed"; }
	pr_make -j2 DESTDIR="$_root" "$@" || die "make $* DESTDIR=$_root failed"
	pr_pc=$(find "$_root" -name perfring.pc | head -n 1)
	[ -n "$pr_pc" ] || die "perfring.pc not installed"
}

pr_var() {
	printf 'include Makefile\npr-print-var:\n\t@echo $(%s)\n' "$1" |
		(cd "$pr_build" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s \
			--no-print-directory -f - pr-print-var)
}

pr_pkgconfig() {
	PKG_CONFIG_PATH=$(dirname "$pr_pc")
	PKG_CONFIG_SYSROOT_DIR=$1
	export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
	pr_libdir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=libdir perfring)
	pr_pluginsdir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=pluginsdir perfring)
	[ -n "$pr_libdir" ] && [ -n "$pr_pluginsdir" ] ||
		die "perfring.pc lacks libdir or pluginsdir"
}

# The build's sanitizer flags, so that a program built against the installed
# library agrees with it (ASan must be linked into the executable).
pr_san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile")
