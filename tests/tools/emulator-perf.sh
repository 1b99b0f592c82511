#!/bin/sh
# End-to-end proof with the real perf: examples/emulator plays a non-Linux
# kernel running examples/emulator/guest (a real ELF built with the tree),
# writes COMM / MMAP2 / FORK / COMM / EXIT and 100 SAMPLEs into a ring, and
# perfring-replay turns the ring into a perf.data (file mode, and pipe mode
# straight into perf).  perf report must attribute every sample to the
# intended function of the guest binary and comm, perf script must show the
# side-band records with the fields written, and neither may warn.  The
# emulator's own perf.data (through the writer API) must say the same.
. "$top_srcdir/tests/testlib.sh"
need_perf
if ! command -v readelf >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
	skip "no readelf / nm to read the guest ELF"
fi
use_build_plugins

"$EMU" -o "$W/direct.data" "$GUEST" "$W/guest.ring" 2>"$W/emu.err" ||
	{ cat "$W/emu.err"; echo "emulator failed"; exit 1; }
empty "emulator writes without a message" "$W/emu.err"
guest=$(cd "$(dirname "$GUEST")" && pwd -P)/guest

# What the ELF says: the functions' addresses (PIE, loaded at the emulator's
# base) and the executable segment's file offset.
base=0x555555554000
sym() { nm "$GUEST" | awk -v s="$1" '$3 == s { print $1 }'; }
hot=$(printf '%x' $((base + 0x$(sym guest_hot))))
seg=$(readelf -lW "$GUEST" | awk '$1 == "LOAD" && / E +0x/ { print $2, $3; exit }')
pgoff=$(printf '0x%x' $((${seg% *} & ~0xfff)))
start=$(printf '0x%x' $((base + (${seg#* } & ~0xfff))))

"$REPLAY" -o "$W/file.data" "$W/guest.ring" 2>"$W/replay.err"
rc=$?
[ $rc -eq 0 ] && ok "perfring-replay exit 0" || bad "perfring-replay exit $rc"
empty "perfring-replay says nothing" "$W/replay.err"

check_report() {	# NAME REPORT-OUTPUT STDERR
	has "$1: guest_hot 60%" "$2" "^ +60\.00% +guest +guest +\[\.\] guest_hot$"
	has "$1: guest_cold 30%" "$2" "^ +30\.00% +guest +guest +\[\.\] guest_cold$"
	has "$1: child 10% under its own comm" "$2" \
		"^ +10\.00% +guest-child +guest +\[\.\] guest_child_work$"
	if grep -Eq 'unknown|\[\.\] 0x' "$2"; then
		bad "$1: unresolved samples"; grep -E 'unknown|0x' "$2" | sed 's/^/#   /'
	else ok "$1: no unresolved sample"; fi
	empty "$1: perf report stderr clean" "$3"
}
"$PERF" report -i "$W/file.data" --stdio --sort comm,dso,sym >"$W/rep" 2>"$W/rep.err"
check_report "file mode" "$W/rep" "$W/rep.err"

"$PERF" script -i "$W/file.data" --show-task-events --show-mmap-events \
	>"$W/script" 2>"$W/script.err"
has "COMM exec" "$W/script" "guest +4242 .*PERF_RECORD_COMM exec: guest:4242/4242$"
has "MMAP2 with the ELF's pgoff" "$W/script" \
	"PERF_RECORD_MMAP2 4242/4242: \[$start\(0x[0-9a-f]+\) @ $pgoff 00:00 0 0\]: r-xp $guest$"
has "FORK" "$W/script" "PERF_RECORD_FORK\(4243:4243\):\(4242:4242\)"
has "child COMM" "$W/script" "guest-child +4243 .*PERF_RECORD_COMM: guest-child:4243/4243$"
has "EXIT" "$W/script" "guest-child +4243 .*PERF_RECORD_EXIT\(4243:4243\):\(4242:4242\)"
has "a sample at guest_hot+0" "$W/script" " $hot guest_hot\+0x0 \($guest\)$"
c=$(grep -c 'cpu-clock:' "$W/script")
[ "$c" -eq 100 ] && ok "100 samples in perf script" || bad "$c samples in perf script"
empty "perf script stderr clean" "$W/script.err"
# every sample: the intended comm, function and binary
for want in "guest guest_hot 60" "guest guest_cold 30" "guest-child guest_child_work 10"; do
	set -- $want
	c=$(grep 'cpu-clock:' "$W/script" |
		awk -v comm=$1 -v fn=$2 -v dso="($guest)" '$1 == comm && $(NF - 1) ~ "^" fn "\\+" && $NF == dso' |
		wc -l)
	[ "$c" -eq "$3" ] && ok "perf script: $3 samples of $1 in $2 of the guest" ||
		bad "perf script: $c samples of $1 in $2, expected $3"
done

# Pipe mode, straight into perf.
"$REPLAY" -o - "$W/guest.ring" 2>"$W/preplay.err" |
	"$PERF" report -i - --stdio --sort comm,dso,sym >"$W/prep" 2>"$W/prep.err"
empty "pipe mode: perfring-replay says nothing" "$W/preplay.err"
check_report "pipe mode" "$W/prep" "$W/prep.err"
"$REPLAY" -o - "$W/guest.ring" 2>/dev/null |
	"$PERF" script -i - --show-task-events --show-mmap-events >"$W/pscript" 2>"$W/pscript.err"
if diff "$W/script" "$W/pscript" >/dev/null; then ok "pipe mode: perf script prints the same"
else bad "pipe mode: perf script differs"; diff "$W/script" "$W/pscript" | head | sed 's/^/#   /'; fi
empty "pipe mode: perf script stderr clean" "$W/pscript.err"

# The emulator's own perf.data (writer API) says the same.
"$PERF" report -i "$W/direct.data" --stdio --sort comm,dso,sym >"$W/drep" 2>"$W/drep.err"
check_report "writer API" "$W/drep" "$W/drep.err"

finish
