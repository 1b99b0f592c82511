#!/bin/sh
# perfring-replay and perfring-record when the output cannot be written: a
# file size limit (ulimit -f, SIGXFSZ ignored), a full filesystem (a 128 KiB
# tmpfs, when mount works), a full device in pipe mode, an output directory
# that does not exist or is not a directory, a read-only filesystem.  Each
# gives a clear error naming the file and the cause, a non-zero exit, no
# file under the final name (or the old file intact) and no temporary left.
# (tests/lib/writer-fail.sh does the same for the library's writer.)
. "$top_srcdir/tests/testlib.sh"
use_build_plugins
IN="$top_srcdir/tests/fixtures/pd-syswide.data"	# 74 KB of records
M="$W/small"
RO="$W/ro"
# fails DESCRIPTION RC ERR-FILE ERE: a non-zero exit (not a signal) and the message
fails() {
	if [ "$2" -ne 0 ] && [ "$2" -lt 124 ]; then ok "$1: exit $2"; else bad "$1: exit $2"; fi
	has "$1: the message names the file and the cause" "$3" "$4"
}
LOOP='i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done'
perf_ok=false
"$REC" -e cpu-clock -o "$W/probe.data" -- true >/dev/null 2>&1 && perf_ok=true
rm -f "$W/probe.data"

# 1. file size limit: replay, then record; an old output survives
mkdir "$W/fsize"
echo old > "$W/fsize/out.data"
( trap '' XFSZ; ulimit -f 20; exec timeout 20 "$REPLAY" -o "$W/fsize/out.data" "$IN" ) 2>"$W/err"
fails "replay, file size limit" $? "$W/err" "^perfring-replay: $W/fsize/out.data: .*File too large"
dir_is "replay, file size limit: old file kept, no temporary" "$W/fsize" "out.data "
[ "$(cat "$W/fsize/out.data")" = old ] && ok "replay, file size limit: old content intact" ||
	bad "replay, file size limit: the old file changed"
if $perf_ok; then
	( trap '' XFSZ; ulimit -f 10
	  exec timeout 20 "$REC" -e cpu-clock -F 999 -o "$W/fsize/out.data" -- sh -c "$LOOP" ) \
		>/dev/null 2>"$W/err"
	fails "record, file size limit" $? "$W/err" "^perfring-record: $W/fsize/out.data: .*File too large"
	# as perf record does, the old file is also kept as out.data.old
	dir_is "record, file size limit: old file kept, no temporary" "$W/fsize" "out.data out.data.old "
	[ "$(cat "$W/fsize/out.data")" = old ] && ok "record, file size limit: old content intact" ||
		bad "record, file size limit: the old file changed"
else
	echo "# perfring-record cases not run: perf_event_open of cpu-clock fails here"
fi

# 2. a full device, pipe mode to standard output
timeout 20 "$REPLAY" -o - "$IN" > /dev/full 2>"$W/err"
fails "replay to /dev/full" $? "$W/err" "^perfring-replay: .*No space left on device"
if $perf_ok; then
	timeout 20 "$REC" -e cpu-clock -o - -- sh -c "$LOOP" > /dev/full 2>"$W/err"
	fails "record to /dev/full" $? "$W/err" "^perfring-record: .*No space left on device"
fi

# 3. no such directory, a file where a directory should be
timeout 20 "$REPLAY" -o "$W/none/out.data" "$IN" 2>"$W/err"
fails "replay, missing directory" $? "$W/err" "^perfring-replay: $W/none/out.data: .*No such file or directory"
: > "$W/afile"
timeout 20 "$REPLAY" -o "$W/afile/out.data" "$IN" 2>"$W/err"
fails "replay, output under a regular file" $? "$W/err" "^perfring-replay: $W/afile/out.data: .*Not a directory"
if $perf_ok; then
	timeout 20 "$REC" -e cpu-clock -o "$W/none/out.data" -- true >/dev/null 2>"$W/err"
	fails "record, missing directory" $? "$W/err" "^perfring-record: $W/none/out.data: .*No such file or directory"
fi

# 4. a full filesystem and a read-only one: need mount (root)
mkdir "$M" "$RO"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=128k tmpfs "$M" 2>/dev/null &&
   mount -t tmpfs -o size=128k,ro tmpfs "$RO" 2>/dev/null; then
	umount_at_exit="$M $RO"
	timeout 20 "$REPLAY" -o "$M/out.data" "$IN" "$IN" 2>"$W/err"
	fails "replay, full filesystem" $? "$W/err" "^perfring-replay: $M/out.data: .*No space left on device"
	dir_is "replay, full filesystem: no file, no temporary" "$M" ""
	timeout 20 "$REPLAY" -o "$RO/out.data" "$IN" 2>"$W/err"
	fails "replay, read-only filesystem" $? "$W/err" "^perfring-replay: $RO/out.data: .*Read-only file system"
	if $perf_ok; then
		# fill it first, so the recording cannot fit
		head -c 120k /dev/zero > "$M/filler" 2>/dev/null
		timeout 20 "$REC" -e cpu-clock -F 999 -o "$M/out.data" -- sh -c "$LOOP" >/dev/null 2>"$W/err"
		fails "record, full filesystem" $? "$W/err" "^perfring-record: $M/out.data: .*No space left on device"
		dir_is "record, full filesystem: no file, no temporary" "$M" "filler "
		timeout 20 "$REC" -e cpu-clock -o "$RO/out.data" -- true >/dev/null 2>"$W/err"
		fails "record, read-only filesystem" $? "$W/err" "^perfring-record: $RO/out.data: .*Read-only file system"
	fi
else
	echo "# full and read-only filesystem cases not run: cannot mount a tmpfs (needs root)"
fi
finish
