noinst_PROGRAMS += examples/hello-ring
examples_hello_ring_SOURCES = examples/hello-ring.c
examples_hello_ring_LDADD = lib/libperfring.la

# The emulator example (a non-Linux producer) and the guest ELF it
# pretends to run; tests/tools/emulator-perf.sh runs both against the real perf.
# The guest is a plain program (no sanitizers: it is never run, perf reads
# its symbol table).
noinst_PROGRAMS += examples/emulator/emulator examples/emulator/guest
examples_emulator_emulator_SOURCES = examples/emulator/emulator.c
examples_emulator_emulator_LDADD = lib/libperfring.la
examples_emulator_guest_SOURCES = examples/emulator/guest.c
examples_emulator_guest_CFLAGS = -O0 -g
examples_emulator_guest_LDFLAGS =
EXTRA_DIST += examples/emulator/README.md

# examples/kernel: a small x86-64 kernel that profiles itself with the
# freestanding core (its sources compiled with the kernel's flags, as a
# kernel tree takes them), booted by QEMU in tests/tools/kernel-qemu.sh.
# Explicit rules: it is not a program of this machine.
KERNEL_CFLAGS = -std=gnu11 -O2 -ffreestanding -nostdlib -fno-pic -fno-pie -mno-red-zone \
	-mgeneral-regs-only -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fcf-protection=none \
	$(WARN_CFLAGS) -I$(srcdir)/include -I$(srcdir)/lib/core
KERNEL_OBJS = examples/kernel/boot.o examples/kernel/kernel.o examples/kernel/core-ring.o \
	examples/kernel/core-records.o
KERNEL_DEPS = $(CORE_HDRS) $(CORE_PRIV_HDRS)
if KERNEL_X86_64
noinst_DATA = examples/kernel/kernel.elf
endif
examples/kernel/boot.o: examples/kernel/boot.S
	$(AM_V_CC)$(MKDIR_P) examples/kernel && $(CC) $(KERNEL_CFLAGS) -c -o $@ $(srcdir)/examples/kernel/boot.S
examples/kernel/kernel.o: examples/kernel/kernel.c $(KERNEL_DEPS)
	$(AM_V_CC)$(MKDIR_P) examples/kernel && $(CC) $(KERNEL_CFLAGS) -c -o $@ $(srcdir)/examples/kernel/kernel.c
examples/kernel/core-ring.o: lib/core/ring.c $(KERNEL_DEPS)
	$(AM_V_CC)$(MKDIR_P) examples/kernel && $(CC) $(KERNEL_CFLAGS) -c -o $@ $(srcdir)/lib/core/ring.c
examples/kernel/core-records.o: lib/core/records.c $(KERNEL_DEPS)
	$(AM_V_CC)$(MKDIR_P) examples/kernel && $(CC) $(KERNEL_CFLAGS) -c -o $@ $(srcdir)/lib/core/records.c
examples/kernel/kernel.elf: $(KERNEL_OBJS) examples/kernel/kernel.ld
	$(AM_V_CCLD)$(CC) -nostdlib -static -no-pie -Wl,-T,$(srcdir)/examples/kernel/kernel.ld \
	  -Wl,--build-id=sha1 -Wl,-z,max-page-size=0x1000 -Wl,-z,noseparate-code \
	  -Wl,--no-warn-rwx-segments -o $@ $(KERNEL_OBJS)
CLEANFILES += $(KERNEL_OBJS) examples/kernel/kernel.elf
EXTRA_DIST += examples/kernel/boot.S examples/kernel/kernel.c examples/kernel/kernel.ld \
	examples/kernel/README.md

# examples/markers: a threaded program with nested spans and a signal
# handler that marks (include/perfring/marks.h); tests/tools/markers-example.sh
# records it with perfring-record.  Frame pointers, for perf's call chains.
noinst_PROGRAMS += examples/markers/markers
examples_markers_markers_SOURCES = examples/markers/markers.c
examples_markers_markers_CFLAGS = $(AM_CFLAGS) -O2 -fno-omit-frame-pointer -pthread
examples_markers_markers_LDFLAGS = -pthread
examples_markers_markers_LDADD = lib/libperfring.la
EXTRA_DIST += examples/markers/GNUmakefile examples/markers/README.md

# examples/markers-preload: an LD_PRELOAD shim that marks dlopen() spans and
# pthread_setname_np() in any program (tests/tools/markers-preload.sh).
# A module built in the tree only (-rpath /nowhere: never installed).
noinst_LTLIBRARIES += examples/markers-preload/libperfring-marks-preload.la
examples_markers_preload_libperfring_marks_preload_la_SOURCES = \
	examples/markers-preload/marks-preload.c
examples_markers_preload_libperfring_marks_preload_la_LDFLAGS = $(AM_LDFLAGS) -module \
	-avoid-version -no-undefined -rpath /nowhere
examples_markers_preload_libperfring_marks_preload_la_LIBADD = lib/libperfring.la -ldl -lpthread
