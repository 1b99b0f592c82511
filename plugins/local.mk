# Record-type plugins: one libtool module per folder, installed in plugindir.
# Each exports only its descriptor (-fvisibility=hidden in AM_CFLAGS).
PLUGIN_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins
PLUGIN_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -no-undefined
PLUGIN_LIBADD = lib/libperfring.la

plugin_LTLIBRARIES += plugins/comm/comm.la plugins/mmap2/mmap2.la plugins/task/task.la

plugins_comm_comm_la_SOURCES = plugins/comm/comm.c plugins/plugin-util.h
plugins_comm_comm_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_comm_comm_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_comm_comm_la_LIBADD = $(PLUGIN_LIBADD)

plugins_mmap2_mmap2_la_SOURCES = plugins/mmap2/mmap2.c plugins/plugin-util.h
plugins_mmap2_mmap2_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_mmap2_mmap2_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_mmap2_mmap2_la_LIBADD = $(PLUGIN_LIBADD)

plugins_task_task_la_SOURCES = plugins/task/task.c plugins/plugin-util.h
plugins_task_task_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_task_task_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_task_task_la_LIBADD = $(PLUGIN_LIBADD)

# The build-tree directories of these plugins, for the tests, and the same
# relative to the build tree's top, which tools run uninstalled search
# (see tools/tool-common.c).  GModule opens the .la files there.
BUILD_PLUGINS_PATH = $(abs_top_builddir)/plugins/comm:$(abs_top_builddir)/plugins/mmap2:$(abs_top_builddir)/plugins/task
BUILD_PLUGINS_REL = plugins/comm:plugins/mmap2:plugins/task

# The hw backend (perf_event_open counters and kernel rings).  Kept out of
# BUILD_PLUGINS_PATH (the record-type plugins); perfring-record adds it.
plugin_LTLIBRARIES += plugins/hw/hw.la
plugins_hw_hw_la_SOURCES = plugins/hw/hw.c plugins/hw/evparse.c plugins/hw/evparse.h \
	plugins/hw/tracepoint.c plugins/hw/tracepoint.h
plugins_hw_hw_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_hw_hw_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_hw_hw_la_LIBADD = $(PLUGIN_LIBADD)
HW_PLUGIN_PATH = $(abs_top_builddir)/plugins/hw
