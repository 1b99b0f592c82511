/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Workload for the counting tests: touches PAGES (default 2000) fresh
 * anonymous pages, one page fault each, then spins a little in
 * spin_function so task-clock has something to count.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) void touch_pages(char *p, long pages, long psz)
{
	for (long i = 0; i < pages; i++)
		p[i * psz] = 1;
}

__attribute__((noinline)) void spin_function(int n)
{
	volatile double s = 0;

	for (int i = 0; i < n; i++)
		s += i * 0.5;
	sink += s;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 2000;
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	touch_pages(p, pages, psz);
	spin_function(20000000);
	return 0;
}
