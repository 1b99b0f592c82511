#!/bin/sh
# Writer failures through tests/lib/writer-gen: a full filesystem (a 256 KiB
# tmpfs), a file size limit (ulimit -f with SIGXFSZ ignored) and a full
# device in pipe mode: a clear error naming the file, exit status 1, no file
# under the final name and no temporary file left.
GEN="$top_builddir/tests/lib/writer-gen"
. "$top_srcdir/tests/testlib.sh"
M="$W/small"
A="--elf /bin/true --start 401000 --len 1000 --pgoff 1000 --f1 401100 --f2 401200"

# 1. file size limit
mkdir "$W/fsize"
echo old > "$W/fsize/out.data"
( trap '' XFSZ; ulimit -f 100; exec "$GEN" -o "$W/fsize/out.data" --samples 40000 $A ) \
	> "$W/out" 2> "$W/err"
rc=$?
[ $rc -eq 1 ] && ok "fsize: exit status 1" || bad "fsize: exit status $rc"
has "fsize: error names the file and the cause" "$W/err" \
	"writer-gen: $W/fsize/out.data: .*File too large"
dir_is "fsize: old file kept, no temporary left" "$W/fsize" "out.data "
[ "$(cat "$W/fsize/out.data")" = old ] && ok "fsize: old content intact" ||
	bad "fsize: old file changed"

# 2. device full, pipe mode to standard output
"$GEN" -o - $A --samples 40000 > /dev/full 2> "$W/err"
rc=$?
[ $rc -eq 1 ] && ok "/dev/full: exit status 1" || bad "/dev/full: exit status $rc"
has "/dev/full: error says no space" "$W/err" 'writer-gen: -: .*No space left on device'

# 3. full filesystem: needs a small tmpfs
mkdir "$M"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=256k tmpfs "$M" 2>/dev/null; then
	umount_at_exit="$M"
	"$GEN" -o "$M/out.data" --samples 40000 $A > "$W/out" 2> "$W/err"
	rc=$?
	[ $rc -eq 1 ] && ok "full fs: exit status 1" || bad "full fs: exit status $rc"
	has "full fs: error names the file and the cause" "$W/err" \
		"writer-gen: $M/out.data: .*No space left on device"
	dir_is "full fs: no file and no temporary left" "$M" ""
	# and the same file small enough succeeds there
	"$GEN" -o "$M/out.data" --samples 100 $A > "$W/out" 2> "$W/err"
	rc=$?
	[ $rc -eq 0 ] && ok "full fs: a small file fits" || bad "full fs: small file: $rc"
	dir_is "full fs: only the final file" "$M" "out.data "
else
	echo "# full-filesystem case not run: cannot mount a small tmpfs (needs root and mount permission)"
fi

finish
