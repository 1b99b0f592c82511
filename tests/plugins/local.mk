# Plugins (plugins/) and the registry that loads them: comm / mmap2 / task,
# the hw backend, the loader's rules, perfring-dump --list-plugins and the
# out-of-tree example plugin.

# Test plugin modules (tests/plugins/modules/), deliberately bad: real
# shared objects (libtool needs -rpath for that), never installed.
TEST_PLUGIN_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -no-undefined -rpath /nowhere
check_LTLIBRARIES += tests/plugins/modules/badmajor.la tests/plugins/modules/newminor.la \
	tests/plugins/modules/nosymbol.la tests/plugins/modules/dupcomm.la \
	tests/plugins/modules/initfail.la tests/plugins/modules/noops.la \
	tests/plugins/modules/smalldesc.la tests/plugins/modules/tripwire.la \
	tests/plugins/modules/abi10.la tests/plugins/modules/nullfn.la
tests_plugins_modules_badmajor_la_SOURCES = tests/plugins/modules/badmajor.c tests/plugins/modules/bad-common.h
tests_plugins_modules_badmajor_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_newminor_la_SOURCES = tests/plugins/modules/newminor.c tests/plugins/modules/bad-common.h
tests_plugins_modules_newminor_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_nosymbol_la_SOURCES = tests/plugins/modules/nosymbol.c
tests_plugins_modules_nosymbol_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_dupcomm_la_SOURCES = tests/plugins/modules/dupcomm.c tests/plugins/modules/bad-common.h
tests_plugins_modules_dupcomm_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_initfail_la_SOURCES = tests/plugins/modules/initfail.c tests/plugins/modules/bad-common.h
tests_plugins_modules_initfail_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_noops_la_SOURCES = tests/plugins/modules/noops.c tests/plugins/modules/bad-common.h
tests_plugins_modules_noops_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_smalldesc_la_SOURCES = tests/plugins/modules/smalldesc.c tests/plugins/modules/bad-common.h
tests_plugins_modules_smalldesc_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_tripwire_la_SOURCES = tests/plugins/modules/tripwire.c tests/plugins/modules/bad-common.h
tests_plugins_modules_tripwire_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_abi10_la_SOURCES = tests/plugins/modules/abi10.c
tests_plugins_modules_abi10_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
# A plugin with a NULL function and an aborting init.
tests_plugins_modules_nullfn_la_SOURCES = tests/plugins/modules/nullfn.c
tests_plugins_modules_nullfn_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
# Backend plugins whose tables the registry must refuse (check_conventions).
check_LTLIBRARIES += tests/plugins/modules/nowait.la tests/plugins/modules/smallbackend.la
tests_plugins_modules_nowait_la_SOURCES = tests/plugins/modules/nowait.c \
	tests/plugins/modules/bad-backend.h
tests_plugins_modules_nowait_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_modules_smallbackend_la_SOURCES = tests/plugins/modules/smallbackend.c \
	tests/plugins/modules/bad-backend.h
tests_plugins_modules_smallbackend_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
TEST_PLUGINS_DIR = $(abs_top_builddir)/tests/plugins/modules

# The registry and the comm / mmap2 / task plugins.
check_PROGRAMS += tests/plugins/check_plugins
tests_plugins_check_plugins_SOURCES = tests/plugins/check_plugins.c tests/testutil.h \
	tests/perfdata_walk.c tests/perfdata_walk.h
tests_plugins_check_plugins_CPPFLAGS = $(TEST_CPPFLAGS) \
	-DBUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH)"' \
	-DTEST_PLUGINS_DIR='"$(TEST_PLUGINS_DIR)"' \
	-DPLUGINSDIR='"$(plugindir)"'
tests_plugins_check_plugins_LDADD = $(TEST_LDADD)
# The suite loads the plugins and bad plugins from the build tree.
EXTRA_tests_plugins_check_plugins_DEPENDENCIES = $(plugin_LTLIBRARIES) $(check_LTLIBRARIES)

# The loader refuses files and directories others can write, and bad
# descriptors before any plugin function runs.
check_PROGRAMS += tests/plugins/check_plugin_perms
tests_plugins_check_plugin_perms_SOURCES = tests/plugins/check_plugin_perms.c tests/testutil.h
tests_plugins_check_plugin_perms_CPPFLAGS = $(TEST_CPPFLAGS) \
	-DBUILD_COMM_SO='"$(abs_top_builddir)/plugins/comm/.libs/comm.so"' \
	-DNULLFN_SO='"$(TEST_PLUGINS_DIR)/.libs/nullfn.so"'
tests_plugins_check_plugin_perms_LDADD = $(TEST_LDADD)
EXTRA_tests_plugins_check_plugin_perms_DEPENDENCIES = $(plugin_LTLIBRARIES) \
	tests/plugins/modules/nullfn.la

# The hw backend plugin: events, counters, kernel rings, refusals.  It
# profiles the workloads (tests/workloads) through perfring-record.
check_PROGRAMS += tests/plugins/check_hw
tests_plugins_check_hw_SOURCES = tests/plugins/check_hw.c tests/testutil.h \
	plugins/hw/evparse.c plugins/hw/evparse.h plugins/hw/tracepoint.c plugins/hw/tracepoint.h
tests_plugins_check_hw_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/plugins/hw \
	-DHW_PLUGIN_PATH='"$(HW_PLUGIN_PATH)"' \
	-DWORKLOADS_DIR='"$(abs_top_builddir)/tests/workloads"' \
	-DRECORD_TOOL='"$(abs_top_builddir)/tools/perfring-record"'
tests_plugins_check_hw_LDADD = $(TEST_LDADD)
EXTRA_tests_plugins_check_hw_DEPENDENCIES = plugins/hw/hw.la tools/perfring-record

PLUGINS_SH_TESTS = tests/plugins/list-plugins.sh tests/plugins/search-path.sh \
	tests/plugins/exports.sh tests/plugins/example-plugin.sh
TESTS += tests/plugins/check_plugins tests/plugins/check_plugin_perms tests/plugins/check_hw \
	$(PLUGINS_SH_TESTS)
EXTRA_DIST += $(PLUGINS_SH_TESTS) \
	tests/fixtures/sideband.data tests/fixtures/README-sideband.md \
	examples/plugin-switch/GNUmakefile examples/plugin-switch/switch.c \
	examples/plugin-switch/switch-test.c examples/plugin-switch/switch.h \
	examples/plugin-switch/README.md
