# hw backend plugin and perfring-record: the Check suite, the end-to-end
# scripts against perf, and the workloads they profile.

# Workloads: named noinline functions, frame pointers, no sanitizers (they
# are profiled, not tested).  Their hot loops use volatile so that an -O2
# in CFLAGS cannot fold them away.
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

check_PROGRAMS += tests/check_hw
tests_check_hw_SOURCES = tests/check_hw.c tests/testutil.h plugins/hw/evparse.c plugins/hw/evparse.h \
	plugins/hw/tracepoint.c plugins/hw/tracepoint.h
tests_check_hw_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/plugins/hw \
	-DHW_PLUGIN_PATH='"$(HW_PLUGIN_PATH)"' \
	-DWORKLOADS_DIR='"$(abs_top_builddir)/tests/workloads"' \
	-DRECORD_TOOL='"$(abs_top_builddir)/tools/perfring-record"'
tests_check_hw_LDADD = $(TEST_LDADD)
EXTRA_tests_check_hw_DEPENDENCIES = plugins/hw/hw.la tools/perfring-record

TESTS += tests/check_hw

# End to end against perf (perf report / script / record / stat).
TESTS += tests/record-perf.sh tests/record-stat.sh tests/record-errors.sh
EXTRA_DIST += tests/record-perf.sh tests/record-stat.sh tests/record-errors.sh
# Tracepoints (-e SUBSYSTEM:EVENT), compression (-z), DWARF call graphs and
# the other perf record options, against perf.
TESTS += tests/record-tracepoint.sh tests/record-compress.sh tests/record-dwarf.sh \
	tests/record-options.sh
EXTRA_DIST += tests/record-tracepoint.sh tests/record-compress.sh tests/record-dwarf.sh \
	tests/record-options.sh tests/record-lib.sh
