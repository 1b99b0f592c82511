# Command-line tools.  PERFRING_BUILD_DIR / PERFRING_BUILD_PLUGINS_PATH let a
# tool run from the build tree find the just-built plugins (only when its
# executable lives under the build directory; see tools/tool-common.c).
TOOL_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools \
	-DPERFRING_BUILD_DIR='"$(abs_top_builddir)"' \
	-DPERFRING_BUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH)"'
TOOL_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
TOOL_LDADD = lib/libperfring.la $(GLIB_LIBS)

bin_PROGRAMS += tools/perfring-dump
tools_perfring_dump_SOURCES = tools/perfring-dump.c tools/json-codec.c tools/json-codec.h \
	tools/num-fmt.h tools/tool-common.c tools/tool-common.h
tools_perfring_dump_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_perfring_dump_CFLAGS = $(TOOL_CFLAGS)
tools_perfring_dump_LDADD = $(TOOL_LDADD)

# perfring-record loads the hw backend as a plugin (never linked in).
bin_PROGRAMS += tools/perfring-record
tools_perfring_record_SOURCES = tools/perfring-record.c tools/tool-common.c tools/tool-common.h \
	tools/compress-opt.c tools/compress-opt.h tools/jit-bake.c tools/jit-bake.h
tools_perfring_record_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools \
	-DPERFRING_BUILD_DIR='"$(abs_top_builddir)"' \
	-DPERFRING_BUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH):$(HW_PLUGIN_PATH)"'
tools_perfring_record_CFLAGS = $(TOOL_CFLAGS)
tools_perfring_record_LDADD = $(TOOL_LDADD)

# perfring-replay, with the JSON-lines codec (tools/json-codec.[ch]) that
# perfring-dump --json shares.
bin_PROGRAMS += tools/perfring-replay
tools_perfring_replay_SOURCES = tools/perfring-replay.c tools/json-codec.c tools/json-codec.h \
	tools/jit-bake.c tools/jit-bake.h \
	tools/tool-common.c tools/tool-common.h tools/compress-opt.c tools/compress-opt.h
tools_perfring_replay_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_perfring_replay_CFLAGS = $(TOOL_CFLAGS)
tools_perfring_replay_LDADD = $(TOOL_LDADD)
