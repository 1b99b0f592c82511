lib_LTLIBRARIES += lib/libperfring.la
lib_libperfring_la_SOURCES = \
	lib/asan.h \
	lib/barrier.h \
	lib/internal.h \
	lib/common.c \
	lib/jit-elf.c \
	lib/jit-internal.h \
	lib/jitdump.c \
	lib/perfdata.c \
	lib/perfdata-count.c \
	lib/perfdata-count.h \
	lib/perfdata-features.c \
	lib/perfdata-private.h \
	lib/perfdata-swap.c \
	lib/perfmap.c \
	lib/record.c \
	lib/registry.c \
	lib/ring.c \
	lib/source.c \
	lib/validate.c \
	lib/writer.c \
	lib/writer-merge.c \
	lib/writer-features.c lib/writer-copy.c \
	lib/writer-private.h \
	lib/writer-zstd.c \
	lib/tracefs.c \
	lib/tracing-data.c
lib_libperfring_la_CPPFLAGS = $(AM_CPPFLAGS) -DPERFRING_PLUGINSDIR='"$(plugindir)"'
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
