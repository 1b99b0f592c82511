# The sources API (lib/source.c, lib/validate.c, the ring reader's RESYNC)
# and the perf.data counting mode.
check_PROGRAMS += tests/check_source
tests_check_source_SOURCES = tests/check_source.c tests/pd-testlib.c tests/pd-testlib.h tests/testutil.h
tests_check_source_CPPFLAGS = $(TEST_CPPFLAGS) -DBUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH)"'
tests_check_source_LDADD = $(TEST_LDADD)
EXTRA_tests_check_source_DEPENDENCIES = $(plugin_LTLIBRARIES)
TESTS += tests/check_source

# The perf.data reader's headers-only counting (lib/perfdata-count.c, built
# in here to call it directly; also run under TSan: RING_TESTS).
check_PROGRAMS += tests/check_perfdata_count
tests_check_perfdata_count_SOURCES = tests/check_perfdata_count.c tests/testutil.h \
	lib/perfdata-count.c lib/perfdata-count.h
tests_check_perfdata_count_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/lib
tests_check_perfdata_count_LDADD = $(TEST_LDADD) -lpthread
TESTS += tests/check_perfdata_count
