# Unit tests (Check), one suite per module, and scripted tests.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	PERF='$(PERF)'; export PERF;

TEST_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS) -DFIXTURES_DIR='"$(abs_top_srcdir)/tests/fixtures"'
TEST_LDADD = lib/libperfring.la $(CHECK_LIBS)

check_PROGRAMS += tests/check_record tests/check_ring
tests_check_record_SOURCES = tests/check_record.c tests/testutil.h tests/perfdata_walk.c tests/perfdata_walk.h
tests_check_record_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_record_LDADD = $(TEST_LDADD)
tests_check_ring_SOURCES = tests/check_ring.c tests/testutil.h
tests_check_ring_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_ring_LDADD = $(TEST_LDADD) -lpthread

# The concurrency tests (the ring; the perf.data reader's threaded counter),
# also run under ThreadSanitizer in CI.
RING_TESTS = tests/check_ring tests/check_perfdata_count
TESTS += tests/check_record tests/check_ring tests/symbols.sh tests/headers-cxx.sh

EXTRA_DIST += tests/symbols.sh tests/headers-cxx.sh tests/fixtures tests/README.md
include tests/jit.mk
include tests/source.mk
