#!/bin/sh
# perfring-replay of a perf.data recorded on another machine keeps that
# machine's header (perfring-replay(1), HEADER FEATURES).  The other
# machine's file is a real recording here, rewritten by tests/pd-foreign
# with another hostname and os release and another build id for the kernel,
# so that perf must not name its kernel addresses with this machine's
# kallsyms:
#  - file mode, -z, pipe mode in, byte-swapped in: perf report --header-only
#    shows the same host lines for IN and OUT, perf buildid-list the same
#    build ids, perf script the same lines (the kernel frames [unknown]);
#  - an input that brings no host facts (a ring) gets none, and this
#    machine's with --host-features;
#  - inputs from two hosts: a warning, the first one's header, the build
#    ids of both (one per file: a clash of ids is counted in a warning).
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
use_build_plugins
FOREIGN="$B/tests/tools/pd-foreign"
SWAP="$B/tests/tools/pd-swap"
cd "$W" || exit 1

# perf report --header-only's lines that describe the host and the files
host_lines() {
	"$PERF" report --header-only -i "$1" 2>/dev/null |
		grep -E '^# (hostname|os release|perf version|arch|nrcpus|cpudesc|cpuid|total memory|sibling|CPU [0-9]|node[0-9]|pmu mappings|cache|clockid|clock reference)' |
		grep -v '^# cmdline'
}
script() { "$PERF" script -i "$1" 2>/dev/null; }
buildids() { "$PERF" buildid-list -i "$1" 2>/dev/null | sort; }

# A recording with kernel frames: dd spends its time in system calls.
"$PERF" record -q -g -o k.data -- dd if=/dev/zero of=/dev/null bs=1k count=200000 \
	>/dev/null 2>rec.err || die "perf record: $(cat rec.err)"
"$FOREIGN" k.data far.data farhost 5.14.0-far.x86_64 2>f.err
status "the other machine's file" 0 $?
host_lines far.data >far.host
has "its hostname is the other host's" far.host '^# hostname : farhost$'
has "its os release is the other kernel's" far.host '^# os release : 5.14.0-far.x86_64$'
script far.data >far.script
nk=$(grep -c '\[unknown\] (\[kernel.kallsyms\])' far.script)
[ "$nk" -gt 0 ] && ok "perf leaves its $nk kernel frames [unknown]" ||
	bad "perf names the other machine's kernel frames: $(grep -m3 kernel.kallsyms far.script)"
buildids far.data >far.ids
feature_bytes far.data 40 >far.f40
[ -s far.f40 ] && ok "the other machine's file has a feature no perf knows" ||
	bad "no feature 40 in far.data: $("$DUMP" --header far.data | grep '^feature')"

for mode in plain z; do
	opt=
	[ $mode = z ] && opt=-z
	"$REPLAY" $opt -o out-$mode.data far.data 2>out-$mode.err
	status "replay $opt" 0 $?
	empty "replay $opt: says nothing" out-$mode.err
	host_lines out-$mode.data >out-$mode.host
	same "replay $opt: the same host lines" far.host out-$mode.host
	buildids out-$mode.data >out-$mode.ids
	same "replay $opt: the same build ids" far.ids out-$mode.ids
	script out-$mode.data >out-$mode.script
	same "replay $opt: perf script prints the same lines" far.script out-$mode.script
	feature_bytes out-$mode.data 40 >out-$mode.f40
	same "replay $opt: a feature no perf knows, byte for byte" far.f40 out-$mode.f40
done
"$PERF" report --header-only -i out-plain.data 2>/dev/null | grep '^# cmdline' >cmd.txt
has "the command line is replay's (the rewrite's own)" cmd.txt 'perfring-replay -o out-plain.data far.data'

# pipe mode in (its features are HEADER_FEATURE records, its build ids
# HEADER_BUILD_ID records), file mode out
"$FOREIGN" k.data farp.data farhost 5.14.0-far.x86_64 pipe 2>fp.err
status "the other machine's file in pipe mode" 0 $?
"$REPLAY" -o outp.data farp.data 2>outp.err
status "replay of the pipe" 0 $?
host_lines outp.data >outp.host
same "pipe in: the same host lines" far.host outp.host
buildids farp.data >farp.ids
buildids outp.data >outp.ids
same "pipe in: the same build ids" farp.ids outp.ids
script outp.data >outp.script
same "pipe in: perf script prints the same lines" far.script outp.script
# file mode in, pipe mode out
"$REPLAY" -o - far.data >outs.data 2>outs.err
status "replay into a pipe" 0 $?
host_lines outs.data >outs.host
same "pipe out: the same host lines" far.host outs.host
script outs.data >outs.script
same "pipe out: perf script prints the same lines" far.script outs.script

# byte-swapped in: the features turned into this machine's order
"$SWAP" far.data far.be 2>swap.err
status "byte-swapped copy" 0 $?
"$REPLAY" -o outbe.data far.be 2>outbe.err
status "replay of the byte-swapped file" 0 $?
host_lines far.be >farbe.host
has "byte-swapped in: perf reads its pmu mappings" farbe.host '^# pmu mappings: '
same "byte-swapped in: perf reads the same host lines" far.host farbe.host
host_lines outbe.data >outbe.host
same "byte-swapped in: the same host lines" far.host outbe.host
buildids outbe.data >outbe.ids
same "byte-swapped in: the same build ids" far.ids outbe.ids

# a ring: no host facts of its own, unless --host-features
"$EMU" "$GUEST" g.ring >/dev/null || die "emulator"
"$REPLAY" -o ring.data g.ring 2>ring.err
status "replay of a ring" 0 $?
"$PERF" report --header-only -i ring.data >ring.hdr 2>&1
hasnt "a ring: no hostname presented as its own" ring.hdr '^# (hostname|os release|nrcpus|cpudesc|total memory) '
"$REPLAY" --host-features -o ringh.data g.ring 2>ringh.err
status "replay of a ring, --host-features" 0 $?
"$PERF" report --header-only -i ringh.data >ringh.hdr 2>&1
has "--host-features: this machine's hostname" ringh.hdr "^# hostname : $(uname -n)\$"
has "--host-features: this machine's os release" ringh.hdr "^# os release : $(uname -r)\$"

# two hosts merged
"$REPLAY" -o two.data far.data k.data 2>two.err
status "two hosts merged" 0 $?
has "two hosts: a warning naming both" two.err "warning: k.data was recorded on another host \($(uname -n), $(uname -r)\) than far.data \(farhost, 5.14.0-far.x86_64\)"
has "two hosts: the kernel build-id clash counted" two.err 'warning: 1 BUILD_ID entry of later inputs left out'
host_lines two.data >two.host
same "two hosts: the first one's header" far.host two.host
buildids two.data >two.ids
same "two hosts: the build ids of both, the first's kernel" far.ids two.ids
finish
