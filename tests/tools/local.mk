# The tools (tools/): perfring-record, perfring-dump and perfring-replay end
# to end (most against the real perf), the code they share, and the
# helpers and workloads those tests use.

# Workloads for the recording tests (here and tests/plugins/check_hw):
# named noinline functions, frame pointers, no sanitizers (they are
# profiled, not tested).  Their hot loops use volatile so that an -O2 in
# CFLAGS cannot fold them away.
WORKLOAD_CFLAGS = -O0 -fno-omit-frame-pointer -g
check_PROGRAMS += tests/workloads/wl-busy tests/workloads/wl-faults tests/workloads/wl-threads
tests_workloads_wl_busy_SOURCES = tests/workloads/wl-busy.c
tests_workloads_wl_busy_CFLAGS = $(WORKLOAD_CFLAGS)
tests_workloads_wl_busy_LDFLAGS =
tests_workloads_wl_faults_SOURCES = tests/workloads/wl-faults.c
tests_workloads_wl_faults_CFLAGS = $(WORKLOAD_CFLAGS)
tests_workloads_wl_faults_LDFLAGS =
tests_workloads_wl_threads_SOURCES = tests/workloads/wl-threads.c
tests_workloads_wl_threads_CFLAGS = $(WORKLOAD_CFLAGS) -pthread
tests_workloads_wl_threads_LDFLAGS = -pthread
# No frame pointers, optimised: only DWARF unwinding gets from its leaf
# (called by libc's qsort) back to main.
check_PROGRAMS += tests/workloads/wl-nofp
tests_workloads_wl_nofp_SOURCES = tests/workloads/wl-nofp.c
tests_workloads_wl_nofp_CFLAGS = -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -g
tests_workloads_wl_nofp_LDFLAGS =

# perfring-record against perf (perf report / script / record / stat):
# sampling, --stat, errors, tracepoints (-e SUBSYSTEM:EVENT), compression
# (-z), DWARF call graphs, the other perf record options, the progress line.
TOOLS_SH_TESTS = tests/tools/record-perf.sh tests/tools/record-stat.sh \
	tests/tools/record-errors.sh tests/tools/record-tracepoint.sh \
	tests/tools/record-compress.sh tests/tools/record-dwarf.sh \
	tests/tools/record-options.sh tests/tools/record-progress.sh
# An output that is not a regular file (/dev/null, a FIFO, -o -).
TOOLS_SH_TESTS += tests/tools/record-devnull.sh
# --switch-output: chunks that open alone, nothing lost at a switch,
# SIGUSR2, --switch-max-files, a full disk at a switch.
TOOLS_SH_TESTS += tests/tools/record-switch.sh

# perfring-dump: end-to-end tests against the real perf (dump-perf.sh),
# damaged input (dump-damage.sh), --check on inputs with known problems
# (dump-check.sh, with the dump-mkbad helper) and rings (dump-ring.sh).
check_PROGRAMS += tests/tools/dump-mkbad
tests_tools_dump_mkbad_SOURCES = tests/tools/dump-mkbad.c
tests_tools_dump_mkbad_LDADD = lib/libperfring.la
TOOLS_SH_TESTS += tests/tools/dump-perf.sh tests/tools/dump-damage.sh \
	tests/tools/dump-check.sh tests/tools/dump-ring.sh tests/tools/dump-usage.sh

# perfring-replay, the JSON-lines codec it shares with perfring-dump
# (tools/libtool-json.la), and the emulator example's end-to-end proof against
# the real perf.
check_PROGRAMS += tests/tools/check_json_codec
tests_tools_check_json_codec_SOURCES = tests/tools/check_json_codec.c tests/testutil.h
tests_tools_check_json_codec_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/tools \
	-DBUILD_PLUGINS_PATH='"$(BUILD_PLUGINS_PATH)"' \
	-DTEST_PLUGINS_DIR='"$(TEST_PLUGINS_DIR)"'
tests_tools_check_json_codec_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
tests_tools_check_json_codec_LDADD = tools/libtool-json.la $(TEST_LDADD) $(GLIB_LIBS)
EXTRA_tests_tools_check_json_codec_DEPENDENCIES = $(plugin_LTLIBRARIES) $(check_LTLIBRARIES)
TESTS += tests/tools/check_json_codec
TOOLS_SH_TESTS += tests/tools/replay-json.sh tests/tools/replay-damage.sh \
	tests/tools/replay-merge.sh tests/tools/replay-usage.sh tests/tools/emulator-perf.sh \
	tests/tools/kernel-qemu.sh
# Rings that wrap, and flight-recorder rings, for replay-ring.sh (and dump-ring.sh).
check_PROGRAMS += tests/tools/replay-mkring
tests_tools_replay_mkring_SOURCES = tests/tools/replay-mkring.c
tests_tools_replay_mkring_LDADD = lib/libperfring.la
TOOLS_SH_TESTS += tests/tools/replay-ring.sh
# Inputs through the sources API: byte-swapped perf.data (pd-swap writes
# them), FIFOs, directories, unknown ring record types.
check_PROGRAMS += tests/tools/pd-swap
tests_tools_pd_swap_SOURCES = tests/tools/pd-swap.c tests/lib/pd-testlib.c tests/lib/pd-testlib.h
tests_tools_pd_swap_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib
tests_tools_pd_swap_LDADD = lib/libperfring.la
TOOLS_SH_TESTS += tests/tools/replay-sources.sh
# Other machines' perf.data: the header, build ids and tracing data of the
# input carried through replay (pd-foreign makes a recording look as if
# another host had made it).
check_PROGRAMS += tests/tools/pd-foreign
tests_tools_pd_foreign_SOURCES = tests/tools/pd-foreign.c
tests_tools_pd_foreign_LDADD = lib/libperfring.la
TOOLS_SH_TESTS += tests/tools/replay-foreign.sh tests/tools/replay-tracing.sh
# The legacy "PERFFILE" format (perf 2.6.31 .. 3.x), as legacy-mk writes
# it, in both byte orders, against the real perf.
check_PROGRAMS += tests/tools/legacy-mk
tests_tools_legacy_mk_SOURCES = tests/tools/legacy-mk.c
TOOLS_SH_TESTS += tests/tools/legacy-perffile.sh
# Other kernels' and other perfs' records (issue 24): COMPRESSED2 and the
# early MMAP2 layout, made from real recordings by pd-rewrite.
check_PROGRAMS += tests/tools/pd-rewrite
tests_tools_pd_rewrite_SOURCES = tests/tools/pd-rewrite.c
tests_tools_pd_rewrite_LDADD =
TOOLS_SH_TESTS += tests/tools/replay-compressed2.sh tests/tools/replay-early-mmap2.sh
# Filtered rewrites against perf report with the same filter (issue 29).
TOOLS_SH_TESTS += tests/tools/replay-filter.sh

# Hostile conditions through the tools: perf.data files cut at every record
# boundary (truncated-input.sh), an output that cannot be written
# (unwritable-output.sh), names, records and pid counts at their limits
# (resource-edges.sh).
TOOLS_SH_TESTS += tests/tools/truncated-input.sh tests/tools/unwritable-output.sh \
	tests/tools/resource-edges.sh

# JIT code: perfring-replay --jit and perfring-record's baked symbols, with
# the real perf (and node, java, hotspot-perfparser where installed: those
# tests skip with the reason otherwise).  examples/jit/tinyjit writes
# jitdump through the library.
noinst_PROGRAMS += examples/jit/tinyjit
examples_jit_tinyjit_SOURCES = examples/jit/tinyjit.c
examples_jit_tinyjit_LDADD = lib/libperfring.la
TOOLS_SH_TESTS += tests/tools/jit-replay.sh tests/tools/jit-node.sh \
	tests/tools/jit-perfparser.sh tests/tools/jit-record.sh tests/tools/jit-java.sh \
	tests/tools/jit-perfmap-dups.sh
# Markers (issue 26): a program's marker rings merged into the perf.data as
# perfring:mark tracepoint samples by perfring-replay and perfring-record;
# marks-mkring writes rings (also damaged and full ones) with the ring API.
check_PROGRAMS += tests/tools/marks-mkring
tests_tools_marks_mkring_SOURCES = tests/tools/marks-mkring.c
tests_tools_marks_mkring_LDADD = lib/libperfring.la
TOOLS_SH_TESTS += tests/tools/markers.sh tests/tools/markers-example.sh
# (bench/jit-bench.sh is in bench/local.mk, the corpora in fuzz/local.mk)
EXTRA_DIST += doc/jit.md examples/jit/README.md examples/jit/GNUmakefile

TESTS += $(TOOLS_SH_TESTS)
EXTRA_DIST += $(TOOLS_SH_TESTS)
# perfring-replay --span: the outermost spans of a name, per thread.
check_PROGRAMS += tests/tools/check_marks_span
tests_tools_check_marks_span_SOURCES = tests/tools/check_marks_span.c tools/marks-span.c \
	tools/marks-span.h
tests_tools_check_marks_span_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/tools
tests_tools_check_marks_span_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) $(CHECK_CFLAGS)
tests_tools_check_marks_span_LDADD = $(CHECK_LIBS) $(GLIB_LIBS)
TESTS += tests/tools/check_marks_span
# perfring-export (issue 28): pprof read by go tool pprof and npm's
# pprof-format against perf report, folded stacks and the SVG flame graph
# rendered by headless chromium, the reader's corpus, damaged input.
EXPORT_SH_TESTS = tests/tools/export-pprof.sh tests/tools/export-flame.sh \
	tests/tools/export-corpus.sh tests/tools/export-jit-node.sh tests/tools/export-minidebuginfo.sh
TESTS += $(EXPORT_SH_TESTS)
EXTRA_DIST += $(EXPORT_SH_TESTS) tests/tools/export-lib.sh
