# tests/testlib.sh: the one helper every shell test sources first:
#	. "$top_srcdir/tests/testlib.sh"
# (top_srcdir, top_builddir and PERF come from AM_TESTS_ENVIRONMENT in
# tests/local.mk; tests/README.md, "Adding a test", says how to use it.)
#
# A test prints TAP: one "ok N - WHAT" or "not ok N - WHAT" line per check
# (ok, bad, die and the checks built on them), ends with finish (the plan
# "1..N" and the exit status), and skips with skip REASON ("1..0 # SKIP
# REASON", exit 77) before its first check when the machine lacks what it
# needs.  Lines that start with "#" are comments; other output is ignored by
# Automake's TAP driver but kept in the test's .log.
set -u

# --- the tree, the tools and the scratch directory -------------------------
B=$top_builddir
FX=$top_srcdir/tests/fixtures
DUMP=$B/tools/perfring-dump
REPLAY=$B/tools/perfring-replay
REC=$B/tools/perfring-record
WL=$B/tests/workloads
TP=$B/tests/plugins/modules	# the test plugins (tests/plugins/modules/*.c)
EMU=$B/examples/emulator/emulator
GUEST=$B/examples/emulator/guest
TINYJIT=$B/examples/jit/tinyjit
PERF=${PERF:-$(command -v perf 2>/dev/null || true)}
me=${0##*/}			# the test's file name, for messages
export PERFRING_NO_DLCLOSE=1	# sanitizers symbolize plugins at exit

# $W: a scratch directory (0755, so that another user can read what a test
# stages there), removed at exit with $bg (a background process) killed and
# $umount_at_exit (mount points) unmounted.  HOME is in it: no ~/.debug
# build-id cache, no user perf configuration.
W=$(mktemp -d "${TMPDIR:-/tmp}/${me%.sh}.XXXXXX") || exit 1
chmod 755 "$W"
bg=
umount_at_exit=
tl_cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	[ -n "$umount_at_exit" ] && umount $umount_at_exit 2>/dev/null
	rm -rf "$W"
}
trap tl_cleanup EXIT
HOME=$W/home
export HOME
mkdir "$HOME"

# --- TAP --------------------------------------------------------------------
# (tl_n checks so far, tl_fails of them failed: names no test uses)
tl_n=0
tl_fails=0
ok() { tl_n=$((tl_n + 1)); echo "ok $tl_n - $*"; }
bad() { tl_n=$((tl_n + 1)); tl_fails=$((tl_fails + 1)); echo "not ok $tl_n - $*"; }
# die WHAT: a failed check after which the test cannot go on.
die() { bad "$*"; finish; }
# skip REASON: the machine lacks what the test needs (before any check).
skip() {
	[ $tl_n -eq 0 ] || die "skip after $tl_n checks (a test skips whole or not at all): $*"
	echo "1..0 # SKIP $me: $*"
	exit 77
}
# finish: the plan, and exit 0 only if every check passed.
finish() {
	echo "1..$tl_n"
	[ $tl_fails -eq 0 ] && exit 0
	exit 1
}

# --- checks -----------------------------------------------------------------
has() {		# DESCRIPTION FILE ERE
	if grep -Eq -- "$3" "$2"; then ok "$1"; else
		bad "$1: no line matching '$3' in:"; sed 's/^/#   /' "$2" | head -40
	fi
}
hasnt() {	# DESCRIPTION FILE ERE
	if ! grep -Eq -- "$3" "$2"; then ok "$1"; else
		bad "$1: unexpected lines matching '$3':"; grep -E -- "$3" "$2" | head -20 | sed 's/^/#   /'
	fi
}
empty() {	# DESCRIPTION FILE
	if [ ! -s "$2" ]; then ok "$1"; else
		bad "$1: not empty:"; sed 's/^/#   /' "$2" | head -20
	fi
}
status() {	# DESCRIPTION EXPECTED ACTUAL
	if [ "$2" -eq "$3" ]; then ok "$1: exit $3"; else bad "$1: exit $3, expected $2"; fi
}
same() {	# DESCRIPTION FILE1 FILE2
	if cmp -s "$2" "$3"; then ok "$1"; else
		bad "$1:"; diff "$2" "$3" | head -20 | cut -c1-300 | sed 's/^/#   /'
	fi
}
dir_is() {	# DESCRIPTION DIR NAMES: DIR holds exactly NAMES ("a b ", or "")
	_got=$(ls -A "$2" | tr '\n' ' ')
	if [ "$_got" = "$3" ]; then ok "$1"; else bad "$1: directory holds '$_got', expected '$3'"; fi
}
# expect RC TEXT -- CMD...: CMD exits RC with TEXT in its stderr (and, when
# $expect_prefix is set, every stderr starts with it).  Its output is in
# ./out and ./err of the current directory.
expect_prefix=
expect() {
	_want=$1 _text=$2; shift 3
	"$@" >out 2>err
	_rc=$?
	[ $_rc -eq "$_want" ] && ok "$*: exit $_rc" || bad "$*: exit $_rc, want $_want: $(cat err)"
	grep -qF -- "$_text" err && ok "$*: says '$_text'" || bad "$*: stderr lacks '$_text': $(cat err)"
	if [ -n "$expect_prefix" ]; then
		grep -q "^$expect_prefix" err && ok "$*: stderr prefixed" ||
			bad "$*: stderr not prefixed: $(cat err)"
	fi
	echo "# ($_rc): $(head -1 err)"
}

# --- scale ------------------------------------------------------------------
# PERFRING_TEST_SCALE multiplies the work of the tests that scale (default
# 1; 0.5 halves it, 10 is ten times as much); tests/testutil.h reads it the
# same way for the Check suites (an unset, unparsable or non-positive value
# means 1).  scaled N: N times the scale, at least 1.
scaled() {
	awk -v n="$1" -v s="${PERFRING_TEST_SCALE:-1}" 'BEGIN {
		if (s !~ /^([0-9]+\.?[0-9]*|\.[0-9]+)$/ || s + 0 <= 0) s = 1
		v = int(n * s); print v < 1 ? 1 : v }'
}

# --- what the machine has ---------------------------------------------------
need_perf() {		# perf runs
	[ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1 || skip "perf is not installed"
}
need_perf_sampling() {	# perf record can sample cpu-clock
	need_perf
	"$PERF" record -k mono -e cpu-clock -q -o "$W/probe.data" -- true >"$W/probe.err" 2>&1 ||
		skip "perf record cannot sample cpu-clock here: $(head -n 3 "$W/probe.err")"
}
need_event_open() {	# perf_event_open works for perfring-record
	"$REC" --stat -e task-clock:u -- true 2>"$W/probe.err" ||
		skip "perf_event_open is not usable here: $(cat "$W/probe.err")"
}
# The build tree's plugins, and only them.
use_build_plugins() {
	PERFRING_PLUGIN_PATH="$B/plugins/comm:$B/plugins/mmap2:$B/plugins/task"
	export PERFRING_PLUGIN_PATH
}

# --- bytes ------------------------------------------------------------------
u16() { od -An -t u2 -j "$2" -N 2 "$1" | tr -d ' '; }	# FILE OFFSET
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }	# FILE OFFSET
# poke FILE OFFSET OCTAL-ESCAPES: overwrite bytes in place
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
# feature_bytes FILE ID: the payload of perf.data feature ID in hex, where
# perfring-dump --header says it lies (nothing if the file has none)
feature_bytes() {
	set -- "$1" $("$DUMP" --header "$1" |
		sed -n "s/^feature $2 .*(offset \\(0x[0-9a-f]*\\), \\([0-9]*\\) bytes)\$/\\1 \\2/p")
	[ $# -eq 3 ] || return 0
	dd if="$1" bs=1 skip=$(($2)) count="$3" 2>/dev/null | od -An -tx1
}
# The records of a JSON dump without what the perf.data writer manages
# itself (ATTR lines, FINISHED_ROUND, FEATURE, COMPRESSED, TRACING_DATA).
records() {
	grep -v '"type":"\(ATTR\|FINISHED_ROUND\|FEATURE\|COMPRESSED\|TRACING_DATA\)"' "$@"
}
# "offset size" of each record of an unwrapped normal-mode ring file, from
# its descriptor (desc_size @24, page_size @16) and control page (data_head).
ring_records() {
	_u() { od -An -t "u$1" -j "$2" -N "$1" "$3" | tr -d ' '; }
	_desc=$(_u 8 24 "$1"); _page=$(_u 4 16 "$1")
	_pos=$((_desc + _page)); _end=$((_pos + $(_u 8 $((_desc + 1024)) "$1")))
	while [ $_pos -lt $_end ]; do
		_s=$(_u 2 $((_pos + 6)) "$1"); echo "$_pos $_s"; _pos=$((_pos + _s))
	done
}

# --- perf report ------------------------------------------------------------
# report DATA: "PERCENT<TAB>SYMBOL" lines; perf's stderr in $W/report.err
report() {
	"$PERF" report -i "$1" --stdio --sort sym --no-children -q 2>"$W/report.err" |
		sed -n 's/^ *\([0-9.]*\)%  *\[[^]]*\] \(.*[^ ]\) *$/\1\t\2/p'
}
# share DATA SYM: the percentage of samples perf report gives symbol SYM
share() {
	report "$1" | awk -F '\t' -v s="$2" '$2 == s { t += $1 } END { printf "%.2f\n", t + 0 }'
}
# within A B POINTS: |A - B| <= POINTS
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p) }'
}
# at_least A B: A >= B
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}
# no_warnings DATA: perf report on DATA prints nothing on stderr
no_warnings() {
	report "$1" >/dev/null
	if [ -s "$W/report.err" ]; then
		bad "perf report $1 warned: $(head -n 5 "$W/report.err")"
	else
		ok "perf report $1: no warning"
	fi
}

# --- a staged install (tests/packaging, tests/plugins/example-plugin.sh) ----
# pr_install ROOT [TARGET...]
#	Build a fresh copy of this tree in $W/build, configured like this
#	build, and `make TARGET...` (default: install) with DESTDIR=ROOT.
#	A fresh build because `make install` in this build directory would
#	make libtool relink the plugins in place (moving .libs/X.so aside for
#	a moment) under the tests running in parallel.  A source tree
#	configured in place (the README's way) refuses a second, out-of-tree
#	configure: it is then copied and distcleaned first.  The recursive
#	make must not inherit our make's jobserver.  Sets pr_build (the build
#	directory, for a later pr_make) and pr_pc (the installed perfring.pc).
# pr_copy_source DEST
#	Copy the source tree to DEST (without .git and _build*), distcleaned
#	if it was configured in place.
# pr_make ARGS...
#	make in $pr_build, quietly (log in $W/make.log, tail shown on failure).
# pr_var NAME
#	The value of the make variable NAME in $pr_build (e.g. mandir).
# pr_pkgconfig ROOT
#	Export PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR for the installed
#	perfring.pc, and set pr_libdir and pr_pluginsdir (without ROOT).
# pr_san: the build's sanitizer flags, so that a program built against the
#	installed library agrees with it (ASan must be linked into the
#	executable).
pr_make() {
	(cd "$pr_build" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} "$@") \
		>"$W/make.log" 2>&1 || { tail -30 "$W/make.log" | sed 's/^/# /'; return 1; }
}

pr_copy_source() {
	mkdir -p "$1" || die "cannot create $1"
	(cd "$top_srcdir" && tar --exclude=./.git --exclude='./_build*' --exclude=./autom4te.cache \
		-cf - .) | (cd "$1" && tar -xf -) || die "copying the source tree failed"
	chmod -R u+w "$1"
	if [ -f "$1/config.status" ]; then
		(cd "$1" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s distclean) \
			>"$W/distclean.log" 2>&1 ||
			{ tail -20 "$W/distclean.log" | sed 's/^/# /'; die "distclean of the copy failed"; }
	fi
	ok "source tree copied to $1"
}

pr_install() {
	_root=$1; shift
	[ $# -gt 0 ] || set -- install
	_cfg=$(cd "$top_builddir" && ./config.status --config) || die "config.status --config"
	# (distcheck configures with --srcdir=..: we name the source tree ourselves.)
	_cfg=$(printf '%s\n' "$_cfg" | sed "s/'--srcdir=[^']*'//g; s/--srcdir=[^ ]*//g")
	_src=$top_srcdir
	if [ -f "$top_srcdir/config.status" ]; then
		pr_copy_source "$W/srctree"
		_src=$W/srctree
	fi
	pr_build=$W/build
	mkdir "$pr_build"
	(cd "$pr_build" && eval "\"$_src/configure\" -q $_cfg") >"$W/configure.log" 2>&1 ||
		{ tail -20 "$W/configure.log" | sed 's/^/# /'; die "configure of a fresh build failed"; }
	ok "a fresh build configured"
	pr_make -j2 DESTDIR="$_root" "$@" || die "make $* DESTDIR=$_root failed"
	ok "make $* DESTDIR=$_root"
	pr_pc=$(find "$_root" -name perfring.pc | head -n 1)
	[ -n "$pr_pc" ] && ok "perfring.pc installed" || die "perfring.pc not installed"
}

pr_var() {
	printf 'include Makefile\npr-print-var:\n\t@echo $(%s)\n' "$1" |
		(cd "$pr_build" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s \
			--no-print-directory -f - pr-print-var)
}

pr_pkgconfig() {
	PKG_CONFIG_PATH=$(dirname "$pr_pc")
	PKG_CONFIG_SYSROOT_DIR=$1
	export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
	pr_libdir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=libdir perfring)
	pr_pluginsdir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=pluginsdir perfring)
	[ -n "$pr_libdir" ] && [ -n "$pr_pluginsdir" ] && ok "perfring.pc names libdir and pluginsdir" ||
		die "perfring.pc lacks libdir or pluginsdir"
}

pr_san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile")
