/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * guest: the program the emulator pretends to run.  It is never executed;
 * the build compiles it into a real ELF so that perf report can find these
 * functions in its symbol table when it resolves the emulator's samples.
 */
#include <stdlib.h>

#define GUEST_FN __attribute__((noinline, used))

GUEST_FN int guest_hot(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * i;
	return s;
}

GUEST_FN int guest_cold(int n)
{
	return n > 1 ? guest_cold(n - 1) + n : 1;
}

GUEST_FN int guest_child_work(int n)
{
	int s = 1;

	for (int i = 1; i < n; i++)
		s = s * 3 + i;
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	return (guest_hot(n) + guest_cold(n) + guest_child_work(n)) & 1;
}
