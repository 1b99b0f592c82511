#!/bin/sh
# The public headers compile as C++ (C++11, -Wall -Wextra -Werror; not
# -pedantic: the wire structs end in flexible arrays and hold anonymous
# structs, as the kernel's own perf_event.h does, which g++ and clang++
# take as extensions): perfring.h, and plugin.h and backend.h as a plugin author
# includes them, each in a translation unit of its own; and a C++ program
# links against the library's C symbols.
. "$top_srcdir/tests/testlib.sh"
cxx=${CXX:-c++}
command -v "$cxx" >/dev/null 2>&1 && ok "C++ compiler $cxx" || die "no C++ compiler ($cxx)"
inc="-I$top_srcdir/include -I$top_builddir/include"
for h in perfring.h plugin.h backend.h; do
	printf '#include <perfring/%s>\nint main() { return 0; }\n' "$h" >"$W/t.cc"
	$cxx -std=c++11 -Wall -Wextra -Werror $inc -c "$W/t.cc" -o "$W/t.o" \
		>"$W/log" 2>&1 && ok "<perfring/$h> compiles as C++11" ||
		{ sed 's/^/# /' "$W/log"; die "<perfring/$h> as C++"; }
done
cat >"$W/link.cc" <<'CXX'
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
$cxx -std=c++11 -Wall -Wextra -Werror $san $inc "$W/link.cc" -o "$W/link" \
	-L"$top_builddir/lib/.libs" -lperfring -Wl,-rpath,"$top_builddir/lib/.libs" >"$W/log" 2>&1 ||
	{ sed 's/^/# /' "$W/log"; die "a C++ program does not link"; }
ok "a C++ program links"
"$W/link" >"$W/out" 2>&1 && ok "the C++ program runs: $(cat "$W/out")" ||
	{ sed 's/^/# /' "$W/out"; die "the C++ program failed"; }
finish
