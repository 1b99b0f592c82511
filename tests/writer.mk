# perf.data writer: byte-level Check suite, a generator used by the scripts,
# and end-to-end scripts against the real perf.
check_PROGRAMS += tests/check_writer tests/writer-gen
tests_check_writer_SOURCES = tests/check_writer.c tests/writer-test.h tests/testutil.h
tests_check_writer_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_writer_LDADD = $(TEST_LDADD)
tests_writer_gen_SOURCES = tests/writer-gen.c tests/writer-test.h
tests_writer_gen_CPPFLAGS = $(AM_CPPFLAGS)
tests_writer_gen_LDADD = lib/libperfring.la

WRITER_SH_TESTS = tests/writer-perf.sh tests/writer-fail.sh
TESTS += tests/check_writer $(WRITER_SH_TESTS)
EXTRA_DIST += $(WRITER_SH_TESTS)
