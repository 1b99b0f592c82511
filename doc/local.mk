# Man pages, written in plain troff (man macros).  Each page is doc/X.in with
# `.\" @include FILE` lines replaced by the shared fragments doc/FILE
# (environment, diagnostics) and @VERSION@ by the package
# version, so what the pages have in common is written once.  (The awk
# patterns spell [@] so that configure does not substitute them.)
man_MANS = doc/perfring-record.1 doc/perfring-dump.1 doc/perfring-replay.1 \
	doc/libperfring.3 doc/perfring-export.1
MAN_FRAGMENTS = doc/common-env.man doc/common-tool.man
EXTRA_DIST += $(man_MANS:=.in) $(MAN_FRAGMENTS)
# The format notes the code cites ("doc/perf-format.md 3.4").
EXTRA_DIST += doc/perf-format.md
# For someone porting a kernel to the freestanding core (lib/core).
EXTRA_DIST += doc/porting-a-kernel.md
# The flame graph the README shows (a screenshot of perfring-export -f svg).
EXTRA_DIST += doc/flamegraph.png
CLEANFILES += $(man_MANS)

MAN_GEN = $(AM_V_GEN)$(MKDIR_P) doc && $(AWK) -v dir='$(srcdir)/doc' -v version='$(VERSION)' -v plugindir='$(plugindir)' \
	'/^\.\\" @include / { f = dir "/" $$3; while ((getline l < f) > 0) print l; close(f); next } \
	 { gsub(/@VERSION[@]/, version); gsub(/@PLUGINSDIR[@]/, plugindir); print }' $(srcdir)/$@.in >$@.tmp && mv $@.tmp $@
doc/perfring-record.1: $(srcdir)/doc/perfring-record.1.in $(MAN_FRAGMENTS) Makefile
	$(MAN_GEN)
doc/perfring-dump.1: $(srcdir)/doc/perfring-dump.1.in $(MAN_FRAGMENTS) Makefile
	$(MAN_GEN)
doc/perfring-replay.1: $(srcdir)/doc/perfring-replay.1.in $(MAN_FRAGMENTS) Makefile
	$(MAN_GEN)
doc/libperfring.3: $(srcdir)/doc/libperfring.3.in $(MAN_FRAGMENTS) Makefile
	$(MAN_GEN)
EXTRA_DIST += doc/perf-data-extras.md
doc/perfring-export.1: $(srcdir)/doc/perfring-export.1.in $(MAN_FRAGMENTS) Makefile
	$(MAN_GEN)
