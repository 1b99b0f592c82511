# The sources API (lib/source.c, lib/validate.c, the ring reader's RESYNC)
# and the perf.data counting mode.
check_PROGRAMS += tests/check_source
tests_check_source_SOURCES = tests/check_source.c tests/pd-testlib.c tests/pd-testlib.h tests/testutil.h
tests_check_source_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_source_LDADD = $(TEST_LDADD)
TESTS += tests/check_source
