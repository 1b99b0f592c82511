# Tests, in folders that mirror the modules: tests/lib (the library),
# tests/plugins (the plugins and the registry; test plugin modules in
# tests/plugins/modules), tests/tools (perfring-record, -dump, -replay) and
# tests/packaging (install, examples, man pages, Debian packages, the test
# harness itself).  Check suites (check_*) exit non-zero on failure and use
# Automake's default driver; the shell tests (*.sh) print TAP (they source
# tests/testlib.sh) and run through Automake's TAP driver, so that every
# "not ok" line fails the suite.  tests/README.md maps features to tests.
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
# (tests/run-tap.sh: a test that exits 77 after "1..0 # SKIP REASON" is a SKIP.)
SH_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-tap.sh $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	PERF='$(PERF)'; export PERF;

TEST_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/tests \
	-DFIXTURES_DIR='"$(abs_top_srcdir)/tests/fixtures"'
TEST_LDADD = lib/libperfring.la $(CHECK_LIBS)
EXTRA_DIST += tests/testlib.sh tests/run-tap.sh tests/fixtures tests/README.md

# The concurrency tests (the ring; the perf.data reader's threaded counter),
# also run under ThreadSanitizer in CI.
RING_TESTS = tests/lib/check_ring tests/lib/check_perfdata_count

include tests/lib/local.mk
include tests/plugins/local.mk
include tests/tools/local.mk
include tests/packaging/local.mk
