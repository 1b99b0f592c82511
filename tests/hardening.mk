# Hardening (all but the fuzz targets, see fuzz/): crash safety, a hostile
# ring producer, resource edges, plugin loading rules (check_hardening);
# truncation sweep of perfring-dump and perfring-replay, the tools on a full
# disk or an unwritable output (hardening-*.sh).
check_PROGRAMS += tests/check_hardening
tests_check_hardening_SOURCES = tests/check_hardening.c tests/testutil.h
tests_check_hardening_CPPFLAGS = $(TEST_CPPFLAGS) \
	-DBUILD_COMM_SO='"$(abs_top_builddir)/plugins/comm/.libs/comm.so"' \
	-DNULLFN_SO='"$(abs_top_builddir)/tests/.libs/hardening-nullfn.so"'
tests_check_hardening_LDADD = $(TEST_LDADD)
EXTRA_tests_check_hardening_DEPENDENCIES = $(plugin_LTLIBRARIES) tests/hardening-nullfn.la
# A plugin with a NULL function and an aborting init (TEST_PLUGIN_LDFLAGS:
# tests/plugins.mk).
check_LTLIBRARIES += tests/hardening-nullfn.la
tests_hardening_nullfn_la_SOURCES = tests/hardening-nullfn.c
tests_hardening_nullfn_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)

HARDENING_SH_TESTS = tests/hardening-truncate.sh tests/hardening-fail.sh tests/hardening-edges.sh
TESTS += tests/check_hardening $(HARDENING_SH_TESTS)
EXTRA_DIST += $(HARDENING_SH_TESTS)
