#!/bin/sh
# Only perfring_* symbols are exported by libperfring.so.
lib="$top_builddir/lib/.libs/libperfring.so"
[ -f "$lib" ] || { echo "symbols.sh: $lib not built"; exit 1; }
bad=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^perfring_' | grep -v '^PERFRING_')
if [ -n "$bad" ]; then
	echo "symbols.sh: exported symbols outside perfring_*:"; echo "$bad"; exit 1
fi
n=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -c '^perfring_')
[ "$n" -gt 10 ] || { echo "symbols.sh: only $n perfring_ symbols exported"; exit 1; }
echo "symbols.sh: $n perfring_* symbols exported, nothing else"
