# perfring-dump: end-to-end tests against the real perf (dump-perf.sh),
# damaged input (dump-damage.sh), --check on inputs with known problems
# (dump-check.sh, with the dump-mkbad helper) and rings (dump-ring.sh).
check_PROGRAMS += tests/dump-mkbad
tests_dump_mkbad_SOURCES = tests/dump-mkbad.c
tests_dump_mkbad_LDADD = lib/libperfring.la

DUMP_SH_TESTS = tests/dump-perf.sh tests/dump-damage.sh tests/dump-check.sh \
	tests/dump-ring.sh tests/dump-usage.sh
TESTS += $(DUMP_SH_TESTS)
EXTRA_DIST += $(DUMP_SH_TESTS) tests/dump-lib.sh

# perfring-dump --stats' threaded record counter (also run under TSan).
check_PROGRAMS += tests/check_dump_count
tests_check_dump_count_SOURCES = tests/check_dump_count.c tests/testutil.h \
	tools/dump-count.c tools/dump-count.h
tests_check_dump_count_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/tools
tests_check_dump_count_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
tests_check_dump_count_LDADD = $(TEST_LDADD) $(GLIB_LIBS) -lpthread
TESTS += tests/check_dump_count
