lib_LTLIBRARIES += lib/libperfring.la
# By layer, from the bottom (lib/README.md): a folder uses only the
# folders listed above it.
lib_libperfring_la_SOURCES = \
	lib/core/barrier.h lib/core/internal.h lib/core/records.c lib/core/ring.c \
	lib/util/asan.h lib/util/internal.h lib/util/common.c \
	lib/util/buf.h lib/util/buf.c \
	lib/ring/check.h lib/ring/private.h lib/ring/ring.c lib/ring/sideband.c lib/ring/record.c lib/ring/validate.c \
	lib/registry/registry.c \
	lib/perfdata/format.h lib/perfdata/private.h lib/perfdata/reader.c lib/perfdata/count.h \
	lib/perfdata/count.c lib/perfdata/features.c lib/perfdata/feature-data.c lib/perfdata/swap.c \
	lib/tracing/tracing.h lib/tracing/tracefs.c lib/tracing/tracing-data.c \
	lib/jit/internal.h lib/jit/jitdump.c lib/jit/elf.c lib/jit/perfmap.c \
	lib/marks/marks.c \
	lib/writer/private.h lib/writer/writer.c lib/writer/merge.c \
	lib/writer/features.c lib/writer/copy.c lib/writer/zstd.c \
	lib/source/source.c
lib_libperfring_la_CPPFLAGS = $(AM_CPPFLAGS) -DPERFRING_PLUGINSDIR='"$(plugindir)"' \
	'-DPERFRING_CORE_API=__attribute__((visibility("default")))'
# Calls between the library's own exported functions (the reader to the
# validator, the source to the reader, ...) bind inside the library: no
# PLT hop per call on the per-record paths, and the compiler may inline
# them.  Nothing may interpose a libperfring symbol anyway.
lib_libperfring_la_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(ZSTD_CFLAGS) -fno-semantic-interposition
lib_libperfring_la_LIBADD = $(GLIB_LIBS) $(ZSTD_LIBS)
lib_libperfring_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(PERFRING_LT_VERSION) \
	-no-undefined -Wl,--version-script=$(srcdir)/lib/libperfring.sym -Wl,-Bsymbolic-functions
EXTRA_lib_libperfring_la_DEPENDENCIES = lib/libperfring.sym
EXTRA_DIST += lib/libperfring.sym

# ---- the freestanding core, as kernels take it (lib/core/README.md) ------
# The same sources as above, built with $(CORE_CFLAGS) (-ffreestanding
# -nostdlib -fno-pic -mno-red-zone -mgeneral-regs-only ...) and not with
# CFLAGS or the sanitizers, into a static archive.  Explicit rules: an
# Automake target would append CFLAGS.
CORE_SRCS = lib/core/ring.c lib/core/records.c
CORE_PRIV_HDRS = lib/core/internal.h lib/core/barrier.h
CORE_HDRS = include/perfring/core/core.h include/perfring/core/wire.h
CORE_FS_OBJS = lib/core/fs-ring.$(OBJEXT) lib/core/fs-records.$(OBJEXT)
lib_LIBRARIES = lib/libperfring-core.a
lib_libperfring_core_a_SOURCES =
lib_libperfring_core_a_LIBADD = $(CORE_FS_OBJS)
EXTRA_lib_libperfring_core_a_DEPENDENCIES = $(CORE_FS_OBJS)
CORE_FS_COMPILE = $(CC) $(CORE_CFLAGS) $(WARN_CFLAGS) -I$(srcdir)/include -I$(srcdir)/lib/core
lib/core/fs-ring.$(OBJEXT): lib/core/ring.c $(CORE_PRIV_HDRS) $(CORE_HDRS)
	$(AM_V_CC)$(MKDIR_P) lib/core && $(CORE_FS_COMPILE) -c -o $@ $(srcdir)/lib/core/ring.c
lib/core/fs-records.$(OBJEXT): lib/core/records.c $(CORE_PRIV_HDRS) $(CORE_HDRS)
	$(AM_V_CC)$(MKDIR_P) lib/core && $(CORE_FS_COMPILE) -c -o $@ $(srcdir)/lib/core/records.c
CLEANFILES += $(CORE_FS_OBJS)
# The sources themselves, for a kernel tree (pkg-config --variable=srcdir perfring-core)
coresrcdir = $(datadir)/perfring/core
coresrc_DATA = $(CORE_SRCS) $(CORE_PRIV_HDRS) lib/core/README.md
EXTRA_DIST += lib/README.md lib/core/README.md perfring-core.pc.in
