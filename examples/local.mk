noinst_PROGRAMS += examples/hello-ring
examples_hello_ring_SOURCES = examples/hello-ring.c
examples_hello_ring_LDADD = lib/libperfring.la
