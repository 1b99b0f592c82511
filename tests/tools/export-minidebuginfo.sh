#!/bin/sh
# perfring-export symbolizes a binary that carries only MiniDebugInfo: a
# copy of tests/workloads/wl-busy stripped to .dynsym, with its other
# function symbols in an xz-compressed ELF in .gnu_debugdata (the recipe
# Fedora's find-debuginfo uses).  Recorded with perf record -N -g (no
# build-id cache, so the binary is read from its path):
#  - the folded stacks name main, hot_function and cold_function, and equal
#    those of the same recording with the unstripped binary (same build id)
#    put back at the path;
#  - hot_function's share is perf report's on that unstripped binary
#    (within 1 point);
#  - without .gnu_debugdata the frames are unsymbolized: the check can fail.
# Skips (77) without perf sampling, binutils (nm, objcopy, strip) or xz.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
for t in nm objcopy strip xz; do
	command -v $t >/dev/null || skip "$t is not installed (Debian: binutils, xz-utils)"
done
EXP=$B/tools/perfring-export
cd "$W" || die "cd $W"

cp "$WL/wl-busy" full || die "cp wl-busy"
nm -D full --format=posix --defined-only | awk '{ print $1 }' | sort >dynsyms
nm full --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort >funcsyms
comm -13 dynsyms funcsyms >keep
grep -qx hot_function keep || die "hot_function is not a symbol of wl-busy"
objcopy --only-keep-debug full debug || die "objcopy --only-keep-debug"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep debug mini ||
	die "objcopy --keep-symbols"
xz -f mini || die "xz"
cp full wl-mini && strip --strip-all -R .comment wl-mini &&
	objcopy --add-section .gnu_debugdata=mini.xz wl-mini || die "strip / objcopy --add-section"
if nm wl-mini 2>&1 | grep -q hot_function; then
	die "the stripped copy still has a .symtab"
fi

"$PERF" record -N -q -e cpu-clock -g -o mdi.data -- ./wl-mini 0.5 >/dev/null 2>&1 ||
	die "perf record -g failed"
"$EXP" -f folded -o mini.folded mdi.data 2>err
status "folded, MiniDebugInfo" 0 $?
empty "folded, MiniDebugInfo: nothing on stderr" err
for f in main hot_function cold_function; do
	has "MiniDebugInfo: $f named" mini.folded ";$f(;| )"
done

# The same recording with the unstripped binary (same build id) at the path.
cp wl-mini saved
cp full wl-mini
"$EXP" -f folded -o full.folded mdi.data 2>err
status "folded, full .symtab" 0 $?
cmp -s mini.folded full.folded && ok "MiniDebugInfo gives the stacks .symtab gives" ||
	bad "MiniDebugInfo and .symtab differ: $(diff mini.folded full.folded | head -5)"
n=$(awk '{ t += $NF } END { print t + 0 }' mini.folded)
hot=$(awk '$1 ~ /;hot_function$/ { t += $2 } END { print t + 0 }' mini.folded)
a=$(awk -v h="$hot" -v n="$n" 'BEGIN { printf "%.2f", n ? 100 * h / n : 0 }') b=$(share mdi.data hot_function)
within "$a" "$b" 1 && ok "hot_function $a% vs perf $b%" || bad "hot_function $a% vs perf report $b%"

# Without the section, nothing names the static functions.
cp saved wl-mini
objcopy --remove-section .gnu_debugdata wl-mini || die "objcopy --remove-section"
"$EXP" -f folded -o none.folded mdi.data 2>err
status "folded, no .gnu_debugdata" 0 $?
hasnt "no .gnu_debugdata: hot_function unnamed" none.folded ';hot_function(;| )'
finish
