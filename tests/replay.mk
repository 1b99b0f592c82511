# perfring-replay, the JSON-lines codec it shares with perfring-dump, and the
# emulator example's end-to-end proof against the real perf.
check_PROGRAMS += tests/check_json
tests_check_json_SOURCES = tests/check_json.c tests/testutil.h \
	tools/json-codec.h
tests_check_json_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/tools \
	-DBUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH)"' \
	-DTEST_PLUGINS_DIR='"$(abs_top_builddir)/tests/plugins"'
tests_check_json_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
tests_check_json_LDADD = tools/libtool-json.la $(TEST_LDADD) $(GLIB_LIBS)
EXTRA_tests_check_json_DEPENDENCIES = $(plugin_LTLIBRARIES) $(check_LTLIBRARIES)

REPLAY_SH_TESTS = tests/replay-json.sh tests/replay-damage.sh tests/replay-merge.sh \
	tests/replay-usage.sh tests/emulator-perf.sh
TESTS += tests/check_json $(REPLAY_SH_TESTS)
EXTRA_DIST += $(REPLAY_SH_TESTS) tests/replay-lib.sh

# Rings that wrap, and flight-recorder rings, for tests/replay-ring.sh.
check_PROGRAMS += tests/replay-mkring
tests_replay_mkring_SOURCES = tests/replay-mkring.c
tests_replay_mkring_LDADD = lib/libperfring.la
REPLAY_SH_TESTS += tests/replay-ring.sh

# Inputs through the sources API: byte-swapped perf.data, directories.
check_PROGRAMS += tests/pd-swap
tests_pd_swap_SOURCES = tests/pd-swap.c tests/pd-testlib.c tests/pd-testlib.h
tests_pd_swap_LDADD = lib/libperfring.la
REPLAY_SH_TESTS += tests/replay-sources.sh
