# Packaging and documentation: make install / uninstall, the examples built
# against the installed library, the man pages, the Debian packages, and
# the test harness itself.  examples.sh and install.sh (and
# tests/plugins/example-plugin.sh) build a fresh copy of the tree and
# install it into a temporary DESTDIR (pr_install in tests/testlib.sh).
# deb.sh builds the Debian packages (about a minute, and it needs
# debhelper): it is its own target, `make check-deb`, which .ci/run runs
# after `make check`.
PACKAGING_SH_TESTS = tests/packaging/man-pages.sh tests/packaging/examples.sh \
	tests/packaging/install.sh tests/packaging/tap-harness.sh
TESTS += $(PACKAGING_SH_TESTS)
check-deb: all
	$(AM_V_at)top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' PERF='$(PERF)' \
		$(SHELL) $(srcdir)/tests/packaging/deb.sh
.PHONY: check-deb
EXTRA_DIST += $(PACKAGING_SH_TESTS) tests/packaging/deb.sh \
	examples/self-profile/GNUmakefile examples/self-profile/self-profile.c \
	examples/sigprof-sampler/GNUmakefile examples/sigprof-sampler/sigprof-sampler.c \
	examples/emulator/GNUmakefile \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/libperfring2.install debian/libperfring-dev.install \
	debian/perfring-tools.install
# man-pages.sh reads the generated pages.
check_SCRIPTS += $(man_MANS)
