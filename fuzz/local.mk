# Fuzzing of the parsers of outside input.  Every target in fuzz/ is one
# LLVMFuzzerTestOneInput; see fuzz/README.md.
#
# Always: fuzz/replay-TARGET, the target linked with a plain main()
# (fuzz/replay.c) that runs the committed seed corpus fuzz/corpus/TARGET and
# the crash inputs fuzz/regressions/TARGET through it once.  They are tests
# of `make check`, so every input that once crashed stays a regression test
# in the normal and the sanitizer builds.
#
# With configure CC=clang --enable-fuzzing: fuzz/fuzz-TARGET, the libFuzzer
# binaries (everything is then built with ASan + UBSan and libFuzzer's
# coverage), and `make fuzz-smoke` fuzzes each one for FUZZ_SMOKE_TIME
# seconds starting from its corpus.  Without it `make fuzz-smoke` says how
# to enable fuzzing and runs the replay drivers.

FUZZ_TARGETS = ring record sideband perfdata json jitdump perfmap features
FUZZ_SMOKE_TIME = 20
FUZZ_SMOKE_FLAGS = -max_total_time=$(FUZZ_SMOKE_TIME) -timeout=25 \
	-rss_limit_mb=2048 -print_final_stats=1
FUZZ_CPP = $(AM_CPPFLAGS) -I$(top_srcdir)/fuzz
FUZZ_DIRS = -DFUZZ_CORPUS_ROOT='"$(abs_top_srcdir)/fuzz/corpus"' \
	-DFUZZ_REGRESSION_ROOT='"$(abs_top_srcdir)/fuzz/regressions"'
FUZZ_PLUGINS = -DFUZZ_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH)"'
FUZZ_LIBS = lib/libperfring.la
# No libtool wrapper scripts: libFuzzer re-runs its own executable.
FUZZ_LINKFLAGS = $(AM_LDFLAGS) -no-install
FUZZ_REPLAY_COMMON = fuzz/replay.c fuzz/fuzz-common.c fuzz/fuzz.h
FUZZ_COMMON = fuzz/fuzz-common.c fuzz/fuzz.h
FUZZ_JSON = fuzz/json-check.c fuzz/json-check.h
# fuzz-json: the JSON-lines codec of the tools (glib).
FUZZ_JC_SOURCES = fuzz/fuzz-json.c tools/json-codec.h
FUZZ_JC_CPP = $(FUZZ_CPP) -I$(top_srcdir)/tools $(FUZZ_PLUGINS)
FUZZ_JC_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
FUZZ_JC_LIBS = tools/libtool-json.la $(FUZZ_LIBS) $(GLIB_LIBS)

FUZZ_REPLAY_PROGS = fuzz/replay-ring fuzz/replay-record fuzz/replay-sideband \
	fuzz/replay-perfdata fuzz/replay-json fuzz/replay-jitdump fuzz/replay-perfmap \
	fuzz/replay-features
check_PROGRAMS += $(FUZZ_REPLAY_PROGS)
TESTS += $(FUZZ_REPLAY_PROGS)

fuzz_replay_ring_SOURCES = fuzz/fuzz-ring.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_ring_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"ring"'
fuzz_replay_ring_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_ring_LDADD = $(FUZZ_LIBS)

fuzz_replay_record_SOURCES = fuzz/fuzz-record.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_record_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"record"'
fuzz_replay_record_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_record_LDADD = $(FUZZ_LIBS)

fuzz_replay_sideband_SOURCES = fuzz/fuzz-sideband.c $(FUZZ_JSON) $(FUZZ_REPLAY_COMMON)
fuzz_replay_sideband_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"sideband"' $(FUZZ_PLUGINS)
fuzz_replay_sideband_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_sideband_LDADD = $(FUZZ_LIBS)
EXTRA_fuzz_replay_sideband_DEPENDENCIES = $(plugin_LTLIBRARIES)

fuzz_replay_perfdata_SOURCES = fuzz/fuzz-perfdata.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_perfdata_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"perfdata"'
fuzz_replay_perfdata_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_perfdata_LDADD = $(FUZZ_LIBS)

fuzz_replay_json_SOURCES = $(FUZZ_JC_SOURCES) $(FUZZ_REPLAY_COMMON)
fuzz_replay_json_CPPFLAGS = $(FUZZ_JC_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"json"'
fuzz_replay_json_CFLAGS = $(FUZZ_JC_CFLAGS)
fuzz_replay_json_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_json_LDADD = $(FUZZ_JC_LIBS)
EXTRA_fuzz_replay_json_DEPENDENCIES = $(plugin_LTLIBRARIES)

# The JIT readers (include/perfring/jit.h).
fuzz_replay_jitdump_SOURCES = fuzz/fuzz-jitdump.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_jitdump_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"jitdump"'
fuzz_replay_jitdump_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_jitdump_LDADD = $(FUZZ_LIBS)

fuzz_replay_perfmap_SOURCES = fuzz/fuzz-perfmap.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_perfmap_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"perfmap"'
fuzz_replay_perfmap_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_perfmap_LDADD = $(FUZZ_LIBS)

# Header features carried into a rewrite (lib/writer/copy.c).
fuzz_replay_features_SOURCES = fuzz/fuzz-features.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_features_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"features"'
fuzz_replay_features_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_features_LDADD = $(FUZZ_LIBS)

# Seed generator (fuzz/README.md): `make fuzz/gen-seeds`, never installed.
EXTRA_PROGRAMS = fuzz/gen-seeds
fuzz_gen_seeds_SOURCES = fuzz/gen-seeds.c tests/lib/pd-testlib.c tests/lib/pd-testlib.h
fuzz_gen_seeds_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib
fuzz_gen_seeds_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_gen_seeds_LDADD = $(FUZZ_LIBS)
CLEANFILES += fuzz/gen-seeds

EXTRA_DIST += fuzz/README.md fuzz/corpus fuzz/regressions

if ENABLE_FUZZING
FUZZ_PROGS = fuzz/fuzz-ring fuzz/fuzz-record fuzz/fuzz-sideband fuzz/fuzz-perfdata \
	fuzz/fuzz-json fuzz/fuzz-jitdump fuzz/fuzz-perfmap fuzz/fuzz-features
noinst_PROGRAMS += $(FUZZ_PROGS)
FUZZ_LINK = $(FUZZ_LINKFLAGS) -fsanitize=fuzzer

fuzz_fuzz_ring_SOURCES = fuzz/fuzz-ring.c $(FUZZ_COMMON)
fuzz_fuzz_ring_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_ring_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_ring_LDADD = $(FUZZ_LIBS)

fuzz_fuzz_record_SOURCES = fuzz/fuzz-record.c $(FUZZ_COMMON)
fuzz_fuzz_record_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_record_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_record_LDADD = $(FUZZ_LIBS)

fuzz_fuzz_sideband_SOURCES = fuzz/fuzz-sideband.c $(FUZZ_JSON) $(FUZZ_COMMON)
fuzz_fuzz_sideband_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_PLUGINS)
fuzz_fuzz_sideband_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_sideband_LDADD = $(FUZZ_LIBS)
EXTRA_fuzz_fuzz_sideband_DEPENDENCIES = $(plugin_LTLIBRARIES)

fuzz_fuzz_perfdata_SOURCES = fuzz/fuzz-perfdata.c $(FUZZ_COMMON)
fuzz_fuzz_perfdata_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_perfdata_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_perfdata_LDADD = $(FUZZ_LIBS)

fuzz_fuzz_json_SOURCES = $(FUZZ_JC_SOURCES) $(FUZZ_COMMON)
fuzz_fuzz_json_CPPFLAGS = $(FUZZ_JC_CPP)
fuzz_fuzz_json_CFLAGS = $(FUZZ_JC_CFLAGS)
fuzz_fuzz_json_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_json_LDADD = $(FUZZ_JC_LIBS)
EXTRA_fuzz_fuzz_json_DEPENDENCIES = $(plugin_LTLIBRARIES)

fuzz_fuzz_jitdump_SOURCES = fuzz/fuzz-jitdump.c $(FUZZ_COMMON)
fuzz_fuzz_jitdump_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_jitdump_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_jitdump_LDADD = $(FUZZ_LIBS)

fuzz_fuzz_perfmap_SOURCES = fuzz/fuzz-perfmap.c $(FUZZ_COMMON)
fuzz_fuzz_perfmap_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_perfmap_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_perfmap_LDADD = $(FUZZ_LIBS)

fuzz_fuzz_features_SOURCES = fuzz/fuzz-features.c $(FUZZ_COMMON)
fuzz_fuzz_features_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_features_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_features_LDADD = $(FUZZ_LIBS)

# Fuzz each target for FUZZ_SMOKE_TIME seconds from its committed corpus.
# New inputs go to fuzz/work/TARGET and crashes to fuzz/artifacts/ in the
# build directory; the committed corpus is only read.
fuzz-smoke: $(FUZZ_PROGS)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/work/$$t fuzz/artifacts; \
	  dirs="$(srcdir)/fuzz/corpus/$$t"; \
	  if test -d "$(srcdir)/fuzz/regressions/$$t"; then \
	    dirs="$$dirs $(srcdir)/fuzz/regressions/$$t"; fi; \
	  echo "fuzz-smoke: fuzz/fuzz-$$t for $(FUZZ_SMOKE_TIME) s"; \
	  ./fuzz/fuzz-$$t $(FUZZ_SMOKE_FLAGS) \
	    -artifact_prefix=fuzz/artifacts/$$t- fuzz/work/$$t $$dirs \
	    > fuzz/work/$$t.log 2>&1 || { tail -n 60 fuzz/work/$$t.log; \
	    echo "fuzz-smoke: fuzz/fuzz-$$t FAILED (log: fuzz/work/$$t.log)"; exit 1; }; \
	  grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+.*DONE' \
	    fuzz/work/$$t.log || true; \
	done; echo "fuzz-smoke: $(FUZZ_TARGETS): no finding"
else
fuzz-smoke: $(FUZZ_REPLAY_PROGS)
	@echo "fuzz-smoke: fuzzing is not enabled in this build."
	@echo "fuzz-smoke: to fuzz, configure with: CC=clang --enable-fuzzing"
	@echo "fuzz-smoke: replaying the committed corpora and regression inputs instead"
	@set -e; for t in $(FUZZ_TARGETS); do ./fuzz/replay-$$t; done
endif
.PHONY: fuzz-smoke

# fuzz-tracing: the tracing-data validator (lib/tracing/tracing-data.c), kept in
# one block so that it merges apart from the targets above.
FUZZ_TARGETS += tracing
FUZZ_REPLAY_PROGS += fuzz/replay-tracing
fuzz_replay_tracing_SOURCES = fuzz/fuzz-tracing.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_tracing_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"tracing"'
fuzz_replay_tracing_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_tracing_LDADD = $(FUZZ_LIBS)
if ENABLE_FUZZING
FUZZ_PROGS += fuzz/fuzz-tracing
fuzz_fuzz_tracing_SOURCES = fuzz/fuzz-tracing.c $(FUZZ_COMMON)
fuzz_fuzz_tracing_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_tracing_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_tracing_LDADD = $(FUZZ_LIBS)
endif

# fuzz-marks: the marker reader (perfring_mark_decode, marker ring files
# read as the tools read a program's rings).
FUZZ_TARGETS += marks
FUZZ_REPLAY_PROGS += fuzz/replay-marks
fuzz_replay_marks_SOURCES = fuzz/fuzz-marks.c $(FUZZ_REPLAY_COMMON)
fuzz_replay_marks_CPPFLAGS = $(FUZZ_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"marks"'
fuzz_replay_marks_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_marks_LDADD = $(FUZZ_LIBS)
if ENABLE_FUZZING
FUZZ_PROGS += fuzz/fuzz-marks
fuzz_fuzz_marks_SOURCES = fuzz/fuzz-marks.c $(FUZZ_COMMON)
fuzz_fuzz_marks_CPPFLAGS = $(FUZZ_CPP)
fuzz_fuzz_marks_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_marks_LDADD = $(FUZZ_LIBS)
endif

# fuzz-elfsym: perfring-export's ELF symbol reader (tools/export-elf.c,
# libelf underneath), kept in one block like the targets above.
FUZZ_TARGETS += elfsym
FUZZ_REPLAY_PROGS += fuzz/replay-elfsym
FUZZ_ELFSYM_SOURCES = fuzz/fuzz-elfsym.c tools/export-elf.c tools/export-elf.h
FUZZ_ELFSYM_CPP = $(FUZZ_CPP) -I$(top_srcdir)/tools
FUZZ_ELFSYM_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(LIBELF_CFLAGS) $(LZMA_CFLAGS)
FUZZ_ELFSYM_LIBS = $(FUZZ_LIBS) $(LIBELF_LIBS) $(LZMA_LIBS) $(GLIB_LIBS)
fuzz_replay_elfsym_SOURCES = $(FUZZ_ELFSYM_SOURCES) $(FUZZ_REPLAY_COMMON)
fuzz_replay_elfsym_CPPFLAGS = $(FUZZ_ELFSYM_CPP) $(FUZZ_DIRS) -DFUZZ_NAME='"elfsym"'
fuzz_replay_elfsym_CFLAGS = $(FUZZ_ELFSYM_CFLAGS)
fuzz_replay_elfsym_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_replay_elfsym_LDADD = $(FUZZ_ELFSYM_LIBS)
if ENABLE_FUZZING
FUZZ_PROGS += fuzz/fuzz-elfsym
fuzz_fuzz_elfsym_SOURCES = $(FUZZ_ELFSYM_SOURCES) $(FUZZ_COMMON)
fuzz_fuzz_elfsym_CPPFLAGS = $(FUZZ_ELFSYM_CPP)
fuzz_fuzz_elfsym_CFLAGS = $(FUZZ_ELFSYM_CFLAGS)
fuzz_fuzz_elfsym_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_elfsym_LDADD = $(FUZZ_ELFSYM_LIBS)
endif
