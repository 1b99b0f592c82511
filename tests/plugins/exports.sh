#!/bin/sh
# Each built plugin exports exactly one symbol: perfring_plugin_descriptor
# (everything else hidden by -fvisibility=hidden); one check per plugin.
. "$top_srcdir/tests/testlib.sh"
plugins=0
for so in "$top_builddir"/plugins/*/.libs/*.so; do
	[ -f "$so" ] || continue
	# (ASan adds __odr_asan.* companions of exported globals.)
	syms=$(nm -D --defined-only "$so" | awk '{print $NF}' | grep -v '^__odr_asan' | sort)
	if [ "$syms" = "perfring_plugin_descriptor" ]; then
		ok "$so exports only perfring_plugin_descriptor"
	else
		bad "$so exports: $(echo $syms)"
	fi
	plugins=$((plugins + 1))
done
[ $plugins -ge 3 ] && ok "$plugins plugins built" || bad "only $plugins plugins built"
finish
