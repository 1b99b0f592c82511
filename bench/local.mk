# Benchmarks: built and run only by `make bench`, never by
# `make` or `make check`.  bench/run-bench.sh prints one BENCH line per
# comparison; BENCH_SCALE=0.1 for a quick run, BENCH_REPS for repetitions.
BENCH_PROGS = bench/ring-bench bench/runstat bench/mkring bench/wl-bench bench/marks-bench
EXTRA_PROGRAMS += $(BENCH_PROGS)
CLEANFILES += $(BENCH_PROGS) bench/lttng-bench

bench_ring_bench_SOURCES = bench/ring-bench.c bench/bench-common.h
bench_ring_bench_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS) -pthread
bench_ring_bench_LDADD = lib/libperfring.la $(GLIB_LIBS)
bench_ring_bench_LDFLAGS = -no-install -pthread

bench_runstat_SOURCES = bench/runstat.c bench/bench-common.h

bench_marks_bench_SOURCES = bench/marks-bench.c bench/bench-common.h
bench_marks_bench_LDADD = lib/libperfring.la
bench_marks_bench_LDFLAGS = -no-install

bench_mkring_SOURCES = bench/mkring.c
bench_mkring_LDADD = lib/libperfring.la
bench_mkring_LDFLAGS = -no-install

# frame pointers, so perf record -g sees the deep callchains
bench_wl_bench_SOURCES = bench/wl-bench.c bench/bench-common.h
bench_wl_bench_CFLAGS = $(AM_CFLAGS) -O2 -fno-omit-frame-pointer -pthread
bench_wl_bench_LDFLAGS = -pthread

EXTRA_DIST += bench/run-bench.sh bench/jit-bench.sh bench/switch-measure.sh bench/RESULTS.md bench/lttng-bench.c bench/lttng-tp.h \
	bench/lttng-run.sh

.PHONY: bench
bench: $(lib_LTLIBRARIES) $(plugin_LTLIBRARIES) $(bin_PROGRAMS) $(BENCH_PROGS)
	BENCH_BUILD='$(abs_top_builddir)' BENCH_SRC='$(abs_top_srcdir)' \
	  $(SHELL) '$(srcdir)/bench/run-bench.sh'
