#!/bin/sh
# perfring-replay's command line: --help, --version, --list-plugins, and
# exit status 2 with a message for bad usage and unreadable input.
. "$top_srcdir/tests/testlib.sh"
use_build_plugins

"$REPLAY" --help >"$W/help" 2>&1
status "--help" 0 $?
has "--help: usage" "$W/help" "perfring-replay \[OPTION.*\] \[--\] RING\|PERF.DATA"
has "--help: --json-in" "$W/help" "--json-in=FILE"
has "--help: --keep-unknown" "$W/help" "--keep-unknown"
has "--help: exit codes" "$W/help" "Exit status: 0 ok, 1 problems"
"$REPLAY" --version >"$W/version" 2>&1
status "--version" 0 $?
has "--version: library" "$W/version" "^perfring-replay \(libperfring\) [0-9]"
has "--version: plugin ABI" "$W/version" "^plugin ABI [0-9]+\.[0-9]+$"
"$REPLAY" --list-plugins >"$W/list" 2>&1
status "--list-plugins" 0 $?
for p in comm mmap2 task; do has "--list-plugins: $p" "$W/list" "^$p "; done

replay_usage() {	# DESCRIPTION MESSAGE-PATTERN ARGS...
	d=$1 m=$2
	shift 2
	"$REPLAY" "$@" >"$W/out" 2>"$W/err" </dev/null
	status "$d" 2 $?
	has "$d: message" "$W/err" "^perfring-replay: $m"
}
echo garbage >"$W/text"
replay_usage "no arguments" "no input"
replay_usage "no output" "no output" "$W/text"
replay_usage "unknown option" ".*--bogus" --bogus
replay_usage "--json-in with an input" "--json-in takes no other input" --json-in "$W/text" -o "$W/o" x
replay_usage "--json-in without output" "--json-in needs either" --json-in "$W/text"
replay_usage "--json-in with both outputs" "--json-in needs either" --json-in "$W/text" -o "$W/o" --ring "$W/r"
replay_usage "--ring without --json-in" "--ring goes with --json-in" --ring "$W/r" -o "$W/o" x
replay_usage "bad --kernel-map" "--kernel-map: expected" --kernel-map=some -o "$W/o" x
replay_usage "missing input" "$W/nothere: No such file" -o "$W/o" "$W/nothere"
replay_usage "unknown kind of input" "$W/text: offset 0x0: unknown magic .*: neither a perf.data .*nor a perfring ring" -o "$W/o" "$W/text"
replay_usage "missing JSON input" ".*nothere" --json-in "$W/nothere" -o "$W/o"
echo '{"type":"SAMPLE","misc":0}' >"$W/noattr.json"
replay_usage "JSON without ATTR" "$W/noattr.json: no ATTR line" --json-in "$W/noattr.json" -o "$W/o"
[ ! -e "$W/o" ] && ok "nothing written on usage errors" || bad "output written"

finish
