# Plugin registry, comm / mmap2 / task plugins, perfring-dump --list-plugins
# and the out-of-tree example plugin.

# Deliberately bad plugins: real shared objects (libtool needs -rpath for
# that), never installed.
TEST_PLUGIN_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -no-undefined -rpath /nowhere
check_LTLIBRARIES += tests/plugins/badmajor.la tests/plugins/newminor.la \
	tests/plugins/nosymbol.la tests/plugins/dupcomm.la tests/plugins/initfail.la \
	tests/plugins/noops.la tests/plugins/smalldesc.la tests/plugins/tripwire.la \
	tests/plugins/abi10.la
tests_plugins_badmajor_la_SOURCES = tests/plugins/badmajor.c tests/plugins/bad-common.h
tests_plugins_badmajor_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_newminor_la_SOURCES = tests/plugins/newminor.c tests/plugins/bad-common.h
tests_plugins_newminor_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_nosymbol_la_SOURCES = tests/plugins/nosymbol.c
tests_plugins_nosymbol_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_dupcomm_la_SOURCES = tests/plugins/dupcomm.c tests/plugins/bad-common.h
tests_plugins_dupcomm_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_initfail_la_SOURCES = tests/plugins/initfail.c tests/plugins/bad-common.h
tests_plugins_initfail_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_noops_la_SOURCES = tests/plugins/noops.c tests/plugins/bad-common.h
tests_plugins_noops_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_smalldesc_la_SOURCES = tests/plugins/smalldesc.c tests/plugins/bad-common.h
tests_plugins_smalldesc_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_tripwire_la_SOURCES = tests/plugins/tripwire.c tests/plugins/bad-common.h
tests_plugins_tripwire_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_abi10_la_SOURCES = tests/plugins/abi10.c
tests_plugins_abi10_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)

check_PROGRAMS += tests/check_plugins
tests_check_plugins_SOURCES = tests/check_plugins.c tests/testutil.h \
	tests/perfdata_walk.c tests/perfdata_walk.h
tests_check_plugins_CPPFLAGS = $(TEST_CPPFLAGS) \
	-DBUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH)"' \
	-DTEST_PLUGINS_DIR='"$(abs_top_builddir)/tests/plugins"' \
	-DPLUGINSDIR='"$(plugindir)"'
tests_check_plugins_LDADD = $(TEST_LDADD)
# The suite loads the plugins and bad plugins from the build tree.
EXTRA_tests_check_plugins_DEPENDENCIES = $(plugin_LTLIBRARIES) $(check_LTLIBRARIES)

TESTS += tests/check_plugins tests/list-plugins.sh tests/plugin-search.sh \
	tests/plugin-symbols.sh tests/example-plugin.sh
EXTRA_DIST += tests/list-plugins.sh tests/plugin-search.sh tests/plugin-symbols.sh \
	tests/example-plugin.sh \
	tests/fixtures/sideband.data tests/fixtures/README-sideband.md \
	examples/plugin-switch/GNUmakefile examples/plugin-switch/switch.c \
	examples/plugin-switch/switch-test.c examples/plugin-switch/switch.h \
	examples/plugin-switch/README.md

