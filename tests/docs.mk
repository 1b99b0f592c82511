# Documentation, examples, installation and packaging tests (issue 9).
# examples.sh and install.sh build a fresh copy of the tree and install it
# into a temporary DESTDIR (tests/lib-install.sh, shared with
# example-plugin.sh); deb.sh builds the Debian packages and runs only with
# PERFRING_TEST_DEB=1 (several minutes).
DOCS_SH_TESTS = tests/man-pages.sh tests/examples.sh tests/install.sh tests/deb.sh \
	tests/progress.sh
TESTS += $(DOCS_SH_TESTS)
EXTRA_DIST += $(DOCS_SH_TESTS) tests/lib-install.sh \
	examples/self-profile/Makefile examples/self-profile/self-profile.c \
	examples/sigprof-sampler/Makefile examples/sigprof-sampler/sigprof-sampler.c \
	examples/emulator/Makefile \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/libperfring0.install debian/libperfring-dev.install \
	debian/perfring-tools.install
# man-pages.sh reads the generated pages.
check_SCRIPTS += $(man_MANS)
