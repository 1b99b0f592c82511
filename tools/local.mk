# Command-line tools.  Code that several programs share is built once, as
# libtool convenience libraries split by purpose:
#   tools/libtool-msg.la   messages, progress, plugin loading, version (tool-common)
#   tools/libtool-json.la  the JSON parser (json.c) and the JSON-lines record
#                          encoder and decoder (json-attr/encode/decode.c)
#   tools/libtool-input.la inputs beside the library's sources: JIT dumps and
#                          perf maps baked into ELF files (jit-bake), marker
#                          rings merged (marks-merge), a perf.data rewritten
#                          in place with them (file-rewrite), and the -z
#                          option parser (compress-opt)
# PERFRING_BUILD_PLUGINS_PATH lets a tool run from the build tree find the
# just-built plugins: directories relative to the tree's top, which the
# tool finds from its own executable (tools/tool-common.c), so no path of
# the build machine is compiled in.  Each program defines
# tool_build_plugins_path itself, as its plugin path differs.
TOOL_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools \
	-DPERFRING_BUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_REL)"'
TOOL_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)

noinst_LTLIBRARIES += tools/libtool-msg.la tools/libtool-json.la tools/libtool-input.la
tools_libtool_msg_la_SOURCES = tools/tool-common.c tools/tool-common.h tools/num-fmt.h
tools_libtool_msg_la_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_libtool_msg_la_CFLAGS = $(TOOL_CFLAGS)
tools_libtool_json_la_SOURCES = tools/json.c tools/json.h tools/json-attr.c \
	tools/json-encode.c tools/json-decode.c tools/json-codec.h tools/json-codec-priv.h
tools_libtool_json_la_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_libtool_json_la_CFLAGS = $(TOOL_CFLAGS)
tools_libtool_input_la_SOURCES = tools/jit-bake.c tools/jit-bake.h \
	tools/marks-merge.c tools/marks-merge.h tools/marks-span.c tools/marks-span.h \
	tools/file-rewrite.c tools/file-rewrite.h \
	tools/compress-opt.c tools/compress-opt.h
tools_libtool_input_la_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_libtool_input_la_CFLAGS = $(TOOL_CFLAGS)

TOOL_LDADD = tools/libtool-msg.la lib/libperfring.la $(GLIB_LIBS)

bin_PROGRAMS += tools/perfring-dump
tools_perfring_dump_SOURCES = tools/perfring-dump.c
tools_perfring_dump_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_perfring_dump_CFLAGS = $(TOOL_CFLAGS)
tools_perfring_dump_LDADD = tools/libtool-json.la tools/libtool-input.la $(TOOL_LDADD)

# perfring-record loads the hw backend as a plugin (never linked in).
bin_PROGRAMS += tools/perfring-record
tools_perfring_record_SOURCES = tools/perfring-record.c \
	tools/record-sideband.c tools/record-sideband.h
tools_perfring_record_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools \
	-DPERFRING_BUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_REL):plugins/hw"'
tools_perfring_record_CFLAGS = $(TOOL_CFLAGS)
tools_perfring_record_LDADD = tools/libtool-input.la $(TOOL_LDADD)

bin_PROGRAMS += tools/perfring-replay
tools_perfring_replay_SOURCES = tools/perfring-replay.c tools/replay-filter.c tools/replay-filter.h
tools_perfring_replay_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_perfring_replay_CFLAGS = $(TOOL_CFLAGS)
tools_perfring_replay_LDADD = tools/libtool-json.la tools/libtool-input.la $(TOOL_LDADD)

# perfring-export (issue 28): pprof, folded stacks and SVG flame graphs,
# symbolized with libelf (tools/export-elf.c), DWARF stacks unwound with
# libdw (tools/export-unwind.c), gzipped with zlib.
bin_PROGRAMS += tools/perfring-export
tools_perfring_export_SOURCES = tools/perfring-export.c tools/export.h \
	tools/export-elf.c tools/export-elf.h tools/export-pprof.c tools/export-flame.c \
	tools/export-unwind.c tools/export-unwind.h
tools_perfring_export_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_perfring_export_CFLAGS = $(TOOL_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(ZLIB_CFLAGS) $(LZMA_CFLAGS)
tools_perfring_export_LDADD = $(TOOL_LDADD) $(LIBDW_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS) $(LZMA_LIBS) -ldl
