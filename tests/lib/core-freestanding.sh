#!/bin/sh
# The freestanding core (lib/libperfring-core.a, lib/core/*.c built with
# CORE_CFLAGS: -ffreestanding -nostdlib -fno-pic -mno-red-zone
# -mgeneral-regs-only) needs nothing from outside but memcpy and memset,
# includes only freestanding headers, and fits the size budget.
. "$top_srcdir/tests/testlib.sh"
a=$B/lib/libperfring-core.a
[ -f "$a" ] && ok "$a built" || die "$a not built"
flags=$(sed -n 's/^CORE_CFLAGS = //p' "$B/Makefile")
case " $flags " in *" -ffreestanding "*) ok "built with: $flags" ;; *) bad "CORE_CFLAGS lacks -ffreestanding: $flags" ;; esac
# One relocatable object of the whole archive: what it still needs.
(cd "$W" && ar x "$a") && ${CC:-cc} -nostdlib -r -o "$W/core.o" "$W"/*.o ||
	die "cannot link the archive's objects together"
nm -u "$W/core.o" | awk '{ print $NF }' | sort >"$W/undef"
printf 'memcpy\nmemset\n' >"$W/allowed"
comm -23 "$W/undef" "$W/allowed" >"$W/extra"
[ ! -s "$W/extra" ] && ok "nm -u of the core lists only: $(tr '\n' ' ' <"$W/undef")" ||
	bad "the core needs symbols beyond memcpy/memset: $(tr '\n' ' ' <"$W/extra")"
# No thread-local storage, no libc or GLib header.
nm "$W/core.o" | grep -q ' [bBdD] ' && bad "the core has mutable global data" ||
	ok "no global or thread-local data: the caller owns all state"
inc=$(grep -h '^#include' "$top_srcdir"/lib/core/*.c "$top_srcdir"/lib/core/*.h \
	"$top_srcdir"/include/perfring/core/*.h | sed 's/^#include *//' | sort -u | tr '\n' ' ')
bad_inc=$(printf '%s\n' $inc | grep '^<' | grep -vxE '<(stddef|stdint|stdbool|stdatomic)\.h>|<perfring/core/(core|wire)\.h>' || true)
[ -z "$bad_inc" ] && ok "only freestanding headers included: $inc" ||
	bad "non-freestanding headers in the core: $bad_inc"
for f in "$top_srcdir"/lib/core/*.[ch] "$top_srcdir"/include/perfring/core/*.h; do
	head -n 2 "$f" | grep -q 'SPDX-License-Identifier:' || bad "$f has no SPDX licence line"
done
ok "every core file states its licence (SPDX line)"
text=$(size -A "$W/core.o" | awk '$1 ~ /^\.text/ { t += $2 } END { print t + 0 }')
[ "$text" -le 16384 ] && ok "core .text $text bytes (budget 16384)" ||
	bad "core .text $text bytes is over the 16 KiB budget"
finish
