# Documentation, examples, installation and packaging tests.
# examples.sh and install.sh build a fresh copy of the tree and install it
# into a temporary DESTDIR (tests/lib-install.sh, shared with
# example-plugin.sh).  deb.sh builds the Debian packages (about a minute,
# and it needs debhelper): it is its own target, `make check-deb`, which
# .ci/run runs after `make check`.
DOCS_SH_TESTS = tests/man-pages.sh tests/examples.sh tests/install.sh \
	tests/progress.sh
TESTS += $(DOCS_SH_TESTS)
check-deb: all
	$(AM_V_at)top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/tests/deb.sh
.PHONY: check-deb
EXTRA_DIST += $(DOCS_SH_TESTS) tests/deb.sh tests/lib-install.sh \
	examples/self-profile/GNUmakefile examples/self-profile/self-profile.c \
	examples/sigprof-sampler/GNUmakefile examples/sigprof-sampler/sigprof-sampler.c \
	examples/emulator/GNUmakefile \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/libperfring0.install debian/libperfring-dev.install \
	debian/perfring-tools.install
# man-pages.sh reads the generated pages.
check_SCRIPTS += $(man_MANS)
