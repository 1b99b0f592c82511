# The API conventions of <perfring/perfring.h> (versioned structs, the one
# event description, diags, backend tables checked by the registry, fds),
# and the bad backend plugins the registry must refuse.
check_LTLIBRARIES += tests/plugins/nowait.la tests/plugins/smallbackend.la
tests_plugins_nowait_la_SOURCES = tests/plugins/nowait.c tests/plugins/bad-backend.h
tests_plugins_nowait_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_smallbackend_la_SOURCES = tests/plugins/smallbackend.c tests/plugins/bad-backend.h
tests_plugins_smallbackend_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)

check_PROGRAMS += tests/check_conventions
tests_check_conventions_SOURCES = tests/check_conventions.c tests/testutil.h
tests_check_conventions_CPPFLAGS = $(TEST_CPPFLAGS) \
	-DTEST_PLUGINS_DIR='"$(abs_top_builddir)/tests/plugins"' \
	-DHW_PLUGIN='"$(abs_top_builddir)/plugins/hw/hw.la"'
tests_check_conventions_LDADD = $(TEST_LDADD)
EXTRA_tests_check_conventions_DEPENDENCIES = plugins/hw/hw.la \
	tests/plugins/nowait.la tests/plugins/smallbackend.la
TESTS += tests/check_conventions
