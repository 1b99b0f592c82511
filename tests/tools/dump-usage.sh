#!/bin/sh
# perfring-dump usage: --help, --version, usage errors and unreadable
# inputs (exit 2 with a message), several files, --list-plugins.
. "$top_srcdir/tests/testlib.sh"

"$DUMP" --help > "$W/help" 2>&1
status "--help" 0 $?
for o in --json --stats --check --header --type --pid --list-plugins --version; do
	has "--help lists $o" "$W/help" "^ +(-[a-zA-Z], )?$o"
done
has "--help: exit codes" "$W/help" "Exit status: 0 ok, 1 problems"
"$DUMP" --version > "$W/version" 2>&1
status "--version" 0 $?
has "--version: library version" "$W/version" '^perfring-dump \(libperfring\) [0-9]+\.[0-9]+\.[0-9]+'
has "--version: plugin ABI" "$W/version" '^plugin ABI [0-9]+\.[0-9]+$'

dump_usage() {	# DESCRIPTION ERE ARGS...
	d=$1; re=$2; shift 2
	"$DUMP" "$@" > "$W/u.out" 2> "$W/u.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -Eq "^perfring-dump: .*$re" "$W/u.err" && [ ! -s "$W/u.out" ]; then
		ok "$d: exit 2, $(head -n 1 "$W/u.err")"
	else
		bad "$d: exit $rc:"; sed 's/^/#   /' "$W/u.err" "$W/u.out" | head -5
	fi
}
dump_usage "no FILE" "no input FILE"
dump_usage "unknown option" "Unknown option" --bogus "$FX/pd-file.data"
dump_usage "two modes" "one at a time" --json --stats "$FX/pd-file.data"
dump_usage "--json with two files" "--json takes one FILE" --json "$FX/pd-file.data" "$FX/pd-pipe.data"
dump_usage "--type of an unknown name" 'unknown record type "BOGUS"' --type SAMPLE,BOGUS "$FX/pd-file.data"
dump_usage "--pid not a number" "not a process id" --pid x "$FX/pd-file.data"
dump_usage "--check with a filter" "not --check" --check --type SAMPLE "$FX/pd-file.data"
dump_usage "missing file" "$W/nope.data: No such file" "$W/nope.data"
dump_usage "a directory" "is a directory" "$W"
dump_usage "--list-plugins with a FILE" "takes no FILE" --list-plugins "$FX/pd-file.data"
cat "$FX/pd-file.data" | "$DUMP" - > /dev/null 2> "$W/p.err"
status "file-mode perf.data through a pipe" 2 $?
has "file mode through a pipe: message" "$W/p.err" '^perfring-dump: -: '

"$DUMP" --list-plugins > "$W/plugins" 2>&1
status "--list-plugins" 0 $?
for p in comm mmap2 task; do
	has "--list-plugins: $p" "$W/plugins" "^$p +record "
done

# several files: one block each, the worst exit status
"$DUMP" --stats "$FX/pd-file.data" "$FX/pd-pipe.data" > "$W/two" 2>&1
status "--stats on two files" 0 $?
[ "$(grep -c '^TOTAL ' "$W/two")" -eq 2 ] && has "two files: named" "$W/two" "^$FX/pd-pipe.data:$" ||
	bad "two files: not two blocks"
"$DUMP" --check "$FX/pd-file.data" "$W/nope.data" > "$W/two" 2>&1
status "--check on a good file and a missing one" 2 $?
finish
