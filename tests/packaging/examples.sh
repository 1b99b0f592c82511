#!/bin/sh
# The examples build against the INSTALLED library with nothing but
# `pkg-config --cflags --libs perfring` (each example folder has a plain
# GNUmakefile), and run: install this tree into a temporary DESTDIR, build a
# copy of each example outside the tree, run it with LD_LIBRARY_PATH and
# PERFRING_PLUGIN_PATH pointing into the DESTDIR, and check what it wrote
# (perf report on the sigprof sampler's and the emulator's perf.data shows
# their own functions).  examples/plugin-switch is covered by
# example-plugin.sh.
. "$top_srcdir/tests/testlib.sh"

command -v pkg-config >/dev/null || skip "no pkg-config"
pr_install "$W/root" install-libLTLIBRARIES install-pluginLTLIBRARIES install-binPROGRAMS \
	install-perfringincludeHEADERS install-nodist_perfringincludeHEADERS install-perfringcoreHEADERS \
	install-pkgconfigDATA
pr_pkgconfig "$W/root"
LD_LIBRARY_PATH="$W/root$pr_libdir"
PERFRING_PLUGIN_PATH="$W/root$pr_pluginsdir"
PERFRING_PLUGIN_SYSTEM_PATH=	# exactly the staged plugins
PERFRING_NO_DLCLOSE=1
export LD_LIBRARY_PATH PERFRING_PLUGIN_PATH PERFRING_PLUGIN_SYSTEM_PATH PERFRING_NO_DLCLOSE
cflags="-O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer $pr_san"
perf=${PERF:-$(command -v perf || true)}
dump=$(find "$W/root" -path '*/bin/perfring-dump' | head -n 1)
[ -n "$dump" ] && ok "not: perfring-dump not installed" || die "perfring-dump not installed"

build() {	# example folder
	cp -r "$top_srcdir/examples/$1" "$W/$1" && chmod -R u+w "$W/$1" && ok "not: cannot copy examples/$1" ||
		die "cannot copy examples/$1"
	${MAKE:-make} -s -C "$W/$1" CFLAGS="$cflags" LDFLAGS="$pr_san" \
		>"$W/$1.build" 2>&1 && ok "not: examples/$1 does not build" || { cat "$W/$1.build"; die "examples/$1 does not build"; }
}

# ---- hello-ring: the one-liner in its comment ----
cc_cmd="${CC:-cc} $cflags $top_srcdir/examples/hello-ring.c $(pkg-config --cflags --libs perfring) $pr_san -o $W/hello-ring"
$cc_cmd >"$W/hello.build" 2>&1 && ok "not: hello-ring does not build: $cc_cmd" || { cat "$W/hello.build"; die "hello-ring does not build: $cc_cmd"; }
"$W/hello-ring" "$W/hello.ring" >"$W/hello.out" 2>&1 && ok "not: hello-ring failed" || { cat "$W/hello.out"; die "hello-ring failed"; }
cat "$W/hello.out"
[ "$(grep -c ' SAMPLE .*pid 42 ip 0x4010' "$W/hello.out")" -eq 5 ] && ok "not: hello-ring did not read back its 5 samples" ||
	die "hello-ring did not read back its 5 samples"

# ---- the README's five-minute tour, as printed there ----
awk '/^<!-- tour.c/ { want = 1; next } want && /^```c$/ { on = 1; next } on && /^```$/ { exit }
	on' "$top_srcdir/README.md" >"$W/tour.c"
[ -s "$W/tour.c" ] && ok "not: no tour.c block found in README.md" || die "no tour.c block found in README.md"
${CC:-cc} $cflags -o "$W/tour" "$W/tour.c" $(pkg-config --cflags --libs perfring) $pr_san \
	>"$W/tour.build" 2>&1 && ok "not: README's tour.c does not build'" || { cat "$W/tour.build"; die "README's tour.c does not build"; }
(cd "$W" && ./tour) >"$W/tour.out" 2>&1 && ok "not: README's tour failed'" || { cat "$W/tour.out"; die "README's tour failed"; }
cat "$W/tour.out"
[ "$(grep -c '^0x[0-9a-f]* COMM  *48 bytes$' "$W/tour.out")" -eq 1 ] &&
	[ "$(grep -c '^0x[0-9a-f]* SAMPLE 48 bytes$' "$W/tour.out")" -eq 3 ] && ok "not: README's tour did not read back a COMM and 3 SAMPLEs'" ||
	die "README's tour did not read back a COMM and 3 SAMPLEs"
"$dump" --stats "$W/tour.data" >"$W/tour.stats" 2>&1 && ok "not: tour.data unreadable" || { cat "$W/tour.stats"; die "tour.data unreadable"; }
awk '$1 == "COMM" && $2 == 1 { c = 1 } $1 == "SAMPLE" && $2 == 3 { s = 1 } END { exit !(c && s) }' \
	"$W/tour.stats" && ok "not: tour.data does not hold its records" || { cat "$W/tour.stats"; die "tour.data does not hold its records"; }
if [ -n "$PERF" ] && [ -x "$PERF" ]; then
	"$PERF" script -i "$W/tour.data" --show-task-events >"$W/tour.script" 2>&1 && ok "not: perf script on tour.data failed" ||
		{ cat "$W/tour.script"; die "perf script on tour.data failed"; }
	[ "$(grep -c '^ *guest  *42 .* cpu-clock:u: *4010[012]0 ' "$W/tour.script")" -eq 3 ] && ok "not: perf script does not show the tour's 3 samples of guest'" ||
		{ cat "$W/tour.script"; die "perf script does not show the tour's 3 samples of guest"; }
fi

# ---- self-profile: counts around one of its functions through the hw backend ----
build self-profile
"$W/self-profile/self-profile" >"$W/sp.out" 2>&1
rc=$?
cat "$W/sp.out"
if [ $rc -eq 1 ] && grep -qi 'paranoid\|not supported\|permission' "$W/sp.out"; then
	echo "# this machine refuses perf_event_open; self-profile's counts not checked"
else
	[ $rc -eq 0 ] && ok "self-profile exited with $rc" || die "self-profile exited with $rc"
	tc=$(awk '$2 == "task-clock" { print $1 }' "$W/sp.out")
	pf=$(awk '$2 == "page-faults" { print $1 }' "$W/sp.out")
	# work() computes over 64 MiB for 20 rounds: well over 1 ms of CPU, and
	# at least one fault per 2 MiB even with transparent huge pages.
	[ -n "$tc" ] && [ "$tc" -gt 1000000 ] && ok "not: task-clock not counted (got '$tc' ns)" || die "task-clock not counted (got '$tc' ns)"
	[ -n "$pf" ] && [ "$pf" -ge 32 ] && ok "not: page-faults not counted (got '$pf')" || die "page-faults not counted (got '$pf')"
fi

# ---- sigprof-sampler: SIGPROF samples -> ring -> perf.data ----
build sigprof-sampler
(cd "$W" && "$W/sigprof-sampler/sigprof-sampler" "$W/ss.data" 400) >"$W/ss.out" 2>&1 && ok "not: sigprof-sampler failed" ||
	{ cat "$W/ss.out"; die "sigprof-sampler failed"; }
cat "$W/ss.out"
n=$(sed -n 's/^sigprof-sampler: \([0-9]*\) SIGPROF samples.*/\1/p' "$W/ss.out")
[ -n "$n" ] && [ "$n" -ge 10 ] && ok "not: too few SIGPROF samples ($n) for 400 ms of CPU" || die "too few SIGPROF samples ($n) for 400 ms of CPU"
grep -q ', 0 dropped$' "$W/ss.out" && ok "not: the sampler dropped records" || die "the sampler dropped records"
# About 40% of the CPU time runs inside an open main-thread write.
nested=$(sed -n 's/^sigprof-sampler: [0-9]* SIGPROF samples (\([0-9]*\) written while.*/\1/p' "$W/ss.out")
[ -n "$nested" ] && [ "$nested" -ge 1 ] && ok "not: no SIGPROF sample nested inside a main-thread write" || die "no SIGPROF sample nested inside a main-thread write"
"$dump" --check "$W/ss.data" >"$W/ss.check" 2>&1 && ok "not: perfring-dump --check: problems" || { cat "$W/ss.check"; die "perfring-dump --check: problems"; }
"$dump" --stats "$W/ss.data" >"$W/ss.stats" 2>&1 && ok "not: perfring-dump --stats failed" || { cat "$W/ss.stats"; die "perfring-dump --stats failed"; }
cat "$W/ss.stats"
awk '$1 == "COMM" && $2 == 1 { c = 1 } $1 == "MMAP2" && $2 >= 1 { m = 1 }
	END { exit !(c && m) }' "$W/ss.stats" && ok "not: no COMM and MMAP2 records in the sampler's perf.data'" || die "no COMM and MMAP2 records in the sampler's perf.data"
if [ -n "$PERF" ] && [ -x "$PERF" ]; then
	"$PERF" report -i "$W/ss.data" --stdio --no-children --sort comm,dso,sym \
		>"$W/ss.report" 2>"$W/ss.report.err" && ok "not: perf report failed" || { cat "$W/ss.report.err"; die "perf report failed"; }
	grep -v '^#' "$W/ss.report" | grep -v '^$' | head -n 8
	grep -i 'warning\|error' "$W/ss.report.err" && die "perf report warned" || ok "not: perf report warned"
	for f in sampler_work_heavy sampler_work_light; do
		grep -q "sigprof-sampler  *\[\.\] $f\$" "$W/ss.report" && ok "not: perf report does not show $f@sigprof-sampler" ||
			die "perf report does not show $f@sigprof-sampler"
	done
else
	echo "# perf not installed: the sampler's perf report not checked"
fi

# ---- emulator: a non-Linux producer, through the writer API ----
build emulator
(cd "$W/emulator" && ./emulator -o "$W/emu.data" ./guest "$W/emu.ring") >"$W/emu.out" 2>&1 && ok "not: emulator failed" ||
	{ cat "$W/emu.out"; die "emulator failed"; }
if [ -n "$PERF" ] && [ -x "$PERF" ]; then
	"$PERF" report -i "$W/emu.data" --stdio --no-children --sort dso,sym \
		>"$W/emu.report" 2>"$W/emu.report.err" && ok "not: perf report failed" || { cat "$W/emu.report.err"; die "perf report failed"; }
	grep -v '^#' "$W/emu.report" | grep -v '^$' | head -n 5
	grep -q "guest  *\[\.\] guest_hot\$" "$W/emu.report" && ok "not: perf report does not show guest_hot@guest" ||
		die "perf report does not show guest_hot@guest"
fi
echo "# every example built with pkg-config against the installed library and ran"
finish
