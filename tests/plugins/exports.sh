#!/bin/sh
# Each built plugin exports exactly one symbol: perfring_plugin_descriptor.
fails=0
n=0
for so in "$top_builddir"/plugins/*/.libs/*.so; do
	[ -f "$so" ] || continue
	# (ASan adds __odr_asan.* companions of exported globals.)
	syms=$(nm -D --defined-only "$so" | awk '{print $NF}' | grep -v '^__odr_asan' | sort)
	if [ "$syms" != "perfring_plugin_descriptor" ]; then
		echo "plugin-symbols.sh: $so exports:"; echo "$syms"; fails=1
	fi
	n=$((n + 1))
done
[ $n -ge 3 ] || { echo "plugin-symbols.sh: only $n plugins built"; exit 1; }
[ $fails -eq 0 ] || exit 1
echo "plugin-symbols.sh: $n plugins export only perfring_plugin_descriptor"
