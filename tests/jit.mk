# JIT code in profiles: jitdump and perf-map readers, the synthesized ELF
# (include/perfring/jit.h), perfring-replay --jit, the tinyjit example.
check_PROGRAMS += tests/check_jit
tests_check_jit_SOURCES = tests/check_jit.c tests/testutil.h
tests_check_jit_CPPFLAGS = $(TEST_CPPFLAGS) $(GLIB_CFLAGS)
tests_check_jit_LDADD = $(TEST_LDADD) $(GLIB_LIBS)
TESTS += tests/check_jit

# examples/jit: a tiny JIT that writes jitdump through the library.
noinst_PROGRAMS += examples/jit/tinyjit
examples_jit_tinyjit_SOURCES = examples/jit/tinyjit.c
examples_jit_tinyjit_LDADD = lib/libperfring.la

# End to end with the real perf (and node, java, hotspot-perfparser where
# installed: those tests skip with the reason otherwise).
JIT_SH_TESTS = tests/jit-replay.sh tests/jit-node.sh tests/jit-perfparser.sh \
	tests/jit-record.sh tests/jit-java.sh
TESTS += $(JIT_SH_TESTS)
EXTRA_DIST += $(JIT_SH_TESTS) tests/jit-lib.sh
# (bench/jit-bench.sh is in bench/local.mk, the corpora in fuzz/local.mk)
EXTRA_DIST += doc/jit.md examples/jit/README.md examples/jit/GNUmakefile
