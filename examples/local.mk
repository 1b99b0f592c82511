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
