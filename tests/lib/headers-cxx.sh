#!/bin/sh
# The public headers compile as C++ (C++11, -Wall -Wextra -Werror; not
# -pedantic: the wire structs end in flexible arrays and hold anonymous
# structs, as the kernel's own perf_event.h does, which g++ and clang++
# take as extensions): perfring.h, and plugin.h and backend.h as a plugin author
# includes them, each in a translation unit of its own; and a C++ program
# links against the library's C symbols.
set -u
cxx=${CXX:-c++}
command -v "$cxx" >/dev/null 2>&1 || { echo "headers-cxx.sh: FAIL: no C++ compiler ($cxx)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc="-I$top_srcdir/include -I$top_builddir/include"
for h in perfring.h plugin.h backend.h; do
	printf '#include <perfring/%s>\nint main() { return 0; }\n' "$h" >"$tmp/t.cc"
	$cxx -std=c++11 -Wall -Wextra -Werror $inc -c "$tmp/t.cc" -o "$tmp/t.o" \
		>"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "headers-cxx.sh: FAIL: <perfring/$h> as C++"; exit 1; }
done
cat >"$tmp/link.cc" <<'CXX'
#include <perfring/perfring.h>
#include <cstdio>
int main()
{
	char buf[256];
	struct perfring_diag d = {};
	std::printf("%s %s\n", perfring_version_string(),
		    perfring_diag_format(&d, buf, sizeof(buf)));
	return perfring_record_type_name(PERFRING_RECORD_SAMPLE) ? 0 : 1;
}
CXX
san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile")
$cxx -std=c++11 -Wall -Wextra -Werror $san $inc "$tmp/link.cc" -o "$tmp/link" \
	-L"$top_builddir/lib/.libs" -lperfring -Wl,-rpath,"$top_builddir/lib/.libs" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; echo "headers-cxx.sh: FAIL: a C++ program does not link"; exit 1; }
"$tmp/link" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "headers-cxx.sh: FAIL: the C++ program failed"; exit 1; }
echo "headers-cxx.sh: perfring.h, plugin.h, backend.h compile as C++11; linked: $(cat "$tmp/out")"
