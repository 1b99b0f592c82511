#!/bin/sh
# The examples build against the INSTALLED library with nothing but
# `pkg-config --cflags --libs perfring` (each example folder has a plain
# GNUmakefile), and run: install this tree into a temporary DESTDIR, build a
# copy of each example outside the tree, run it with LD_LIBRARY_PATH and
# PERFRING_PLUGIN_PATH pointing into the DESTDIR, and check what it wrote
# (perf report on the sigprof sampler's and the emulator's perf.data shows
# their own functions).  examples/plugin-switch is covered by
# example-plugin.sh.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "examples.sh: FAIL: $*"; exit 1; }

command -v pkg-config >/dev/null || { echo "examples.sh: SKIP: no pkg-config"; exit 77; }
. "$top_srcdir/tests/lib-install.sh"
pr_install "$tmp/root" install-libLTLIBRARIES install-pluginLTLIBRARIES install-binPROGRAMS \
	install-perfringincludeHEADERS install-nodist_perfringincludeHEADERS \
	install-pkgconfigDATA
pr_pkgconfig "$tmp/root"
LD_LIBRARY_PATH="$tmp/root$pr_libdir"
PERFRING_PLUGIN_PATH="$tmp/root$pr_pluginsdir"
PERFRING_PLUGIN_SYSTEM_PATH=	# exactly the staged plugins
PERFRING_NO_DLCLOSE=1
export LD_LIBRARY_PATH PERFRING_PLUGIN_PATH PERFRING_PLUGIN_SYSTEM_PATH PERFRING_NO_DLCLOSE
cflags="-O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer $pr_san"
perf=${PERF:-$(command -v perf || true)}
dump=$(find "$tmp/root" -path '*/bin/perfring-dump' | head -n 1)
[ -n "$dump" ] || die "perfring-dump not installed"

build() {	# example folder
	cp -r "$top_srcdir/examples/$1" "$tmp/$1" && chmod -R u+w "$tmp/$1" ||
		die "cannot copy examples/$1"
	${MAKE:-make} -s -C "$tmp/$1" CFLAGS="$cflags" LDFLAGS="$pr_san" \
		>"$tmp/$1.build" 2>&1 || { cat "$tmp/$1.build"; die "examples/$1 does not build"; }
}

# ---- hello-ring: the one-liner in its comment ----
cc_cmd="${CC:-cc} $cflags $top_srcdir/examples/hello-ring.c $(pkg-config --cflags --libs perfring) $pr_san -o $tmp/hello-ring"
$cc_cmd >"$tmp/hello.build" 2>&1 || { cat "$tmp/hello.build"; die "hello-ring does not build: $cc_cmd"; }
"$tmp/hello-ring" "$tmp/hello.ring" >"$tmp/hello.out" 2>&1 || { cat "$tmp/hello.out"; die "hello-ring failed"; }
cat "$tmp/hello.out"
[ "$(grep -c ' SAMPLE .*pid 42 ip 0x4010' "$tmp/hello.out")" -eq 5 ] ||
	die "hello-ring did not read back its 5 samples"

# ---- the README's five-minute tour, as printed there ----
awk '/^<!-- tour.c/ { want = 1; next } want && /^```c$/ { on = 1; next } on && /^```$/ { exit }
	on' "$top_srcdir/README.md" >"$tmp/tour.c"
[ -s "$tmp/tour.c" ] || die "no tour.c block found in README.md"
${CC:-cc} $cflags -o "$tmp/tour" "$tmp/tour.c" $(pkg-config --cflags --libs perfring) $pr_san \
	>"$tmp/tour.build" 2>&1 || { cat "$tmp/tour.build"; die "README's tour.c does not build"; }
(cd "$tmp" && ./tour) >"$tmp/tour.out" 2>&1 || { cat "$tmp/tour.out"; die "README's tour failed"; }
cat "$tmp/tour.out"
[ "$(grep -c '^0x[0-9a-f]* COMM  *48 bytes$' "$tmp/tour.out")" -eq 1 ] &&
	[ "$(grep -c '^0x[0-9a-f]* SAMPLE 48 bytes$' "$tmp/tour.out")" -eq 3 ] ||
	die "README's tour did not read back a COMM and 3 SAMPLEs"
"$dump" --stats "$tmp/tour.data" >"$tmp/tour.stats" 2>&1 || { cat "$tmp/tour.stats"; die "tour.data unreadable"; }
awk '$1 == "COMM" && $2 == 1 { c = 1 } $1 == "SAMPLE" && $2 == 3 { s = 1 } END { exit !(c && s) }' \
	"$tmp/tour.stats" || { cat "$tmp/tour.stats"; die "tour.data does not hold its records"; }
if [ -n "$perf" ] && [ -x "$perf" ]; then
	"$perf" script -i "$tmp/tour.data" --show-task-events >"$tmp/tour.script" 2>&1 ||
		{ cat "$tmp/tour.script"; die "perf script on tour.data failed"; }
	[ "$(grep -c '^ *guest  *42 .* cpu-clock:u: *4010[012]0 ' "$tmp/tour.script")" -eq 3 ] ||
		{ cat "$tmp/tour.script"; die "perf script does not show the tour's 3 samples of guest"; }
fi

# ---- self-profile: counts around one of its functions through the hw backend ----
build self-profile
"$tmp/self-profile/self-profile" >"$tmp/sp.out" 2>&1
rc=$?
cat "$tmp/sp.out"
if [ $rc -eq 1 ] && grep -qi 'paranoid\|not supported\|permission' "$tmp/sp.out"; then
	echo "examples.sh: this machine refuses perf_event_open; self-profile's counts not checked"
else
	[ $rc -eq 0 ] || die "self-profile exited with $rc"
	tc=$(awk '$2 == "task-clock" { print $1 }' "$tmp/sp.out")
	pf=$(awk '$2 == "page-faults" { print $1 }' "$tmp/sp.out")
	# work() computes over 64 MiB for 20 rounds: well over 1 ms of CPU, and
	# at least one fault per 2 MiB even with transparent huge pages.
	[ -n "$tc" ] && [ "$tc" -gt 1000000 ] || die "task-clock not counted (got '$tc' ns)"
	[ -n "$pf" ] && [ "$pf" -ge 32 ] || die "page-faults not counted (got '$pf')"
fi

# ---- sigprof-sampler: SIGPROF samples -> ring -> perf.data ----
build sigprof-sampler
(cd "$tmp" && "$tmp/sigprof-sampler/sigprof-sampler" "$tmp/ss.data" 400) >"$tmp/ss.out" 2>&1 ||
	{ cat "$tmp/ss.out"; die "sigprof-sampler failed"; }
cat "$tmp/ss.out"
n=$(sed -n 's/^sigprof-sampler: \([0-9]*\) SIGPROF samples.*/\1/p' "$tmp/ss.out")
[ -n "$n" ] && [ "$n" -ge 10 ] || die "too few SIGPROF samples ($n) for 400 ms of CPU"
grep -q ', 0 dropped$' "$tmp/ss.out" || die "the sampler dropped records"
# About 40% of the CPU time runs inside an open main-thread write.
nested=$(sed -n 's/^sigprof-sampler: [0-9]* SIGPROF samples (\([0-9]*\) written while.*/\1/p' "$tmp/ss.out")
[ -n "$nested" ] && [ "$nested" -ge 1 ] || die "no SIGPROF sample nested inside a main-thread write"
"$dump" --check "$tmp/ss.data" >"$tmp/ss.check" 2>&1 || { cat "$tmp/ss.check"; die "perfring-dump --check: problems"; }
"$dump" --stats "$tmp/ss.data" >"$tmp/ss.stats" 2>&1 || { cat "$tmp/ss.stats"; die "perfring-dump --stats failed"; }
cat "$tmp/ss.stats"
awk '$1 == "COMM" && $2 == 1 { c = 1 } $1 == "MMAP2" && $2 >= 1 { m = 1 }
	END { exit !(c && m) }' "$tmp/ss.stats" || die "no COMM and MMAP2 records in the sampler's perf.data"
if [ -n "$perf" ] && [ -x "$perf" ]; then
	"$perf" report -i "$tmp/ss.data" --stdio --no-children --sort comm,dso,sym \
		>"$tmp/ss.report" 2>"$tmp/ss.report.err" || { cat "$tmp/ss.report.err"; die "perf report failed"; }
	grep -v '^#' "$tmp/ss.report" | grep -v '^$' | head -n 8
	grep -i 'warning\|error' "$tmp/ss.report.err" && die "perf report warned"
	for f in sampler_work_heavy sampler_work_light; do
		grep -q "sigprof-sampler  *\[\.\] $f\$" "$tmp/ss.report" ||
			die "perf report does not show $f@sigprof-sampler"
	done
else
	echo "examples.sh: perf not installed: the sampler's perf report not checked"
fi

# ---- emulator: a non-Linux producer, through the writer API ----
build emulator
(cd "$tmp/emulator" && ./emulator -o "$tmp/emu.data" ./guest "$tmp/emu.ring") >"$tmp/emu.out" 2>&1 ||
	{ cat "$tmp/emu.out"; die "emulator failed"; }
if [ -n "$perf" ] && [ -x "$perf" ]; then
	"$perf" report -i "$tmp/emu.data" --stdio --no-children --sort dso,sym \
		>"$tmp/emu.report" 2>"$tmp/emu.report.err" || { cat "$tmp/emu.report.err"; die "perf report failed"; }
	grep -v '^#' "$tmp/emu.report" | grep -v '^$' | head -n 5
	grep -q "guest  *\[\.\] guest_hot\$" "$tmp/emu.report" ||
		die "perf report does not show guest_hot@guest"
fi
echo "examples.sh: every example built with pkg-config against the installed library and ran"
