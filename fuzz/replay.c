/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Replay driver: a main() for a fuzz target when libFuzzer is not linked.
 * Runs every file named on the command line (a folder: every file in it)
 * through LLVMFuzzerTestOneInput once.  Without arguments it replays the
 * target's committed seed corpus and its regression inputs
 * (FUZZ_CORPUS_ROOT/FUZZ_NAME and FUZZ_REGRESSION_ROOT/FUZZ_NAME, set by
 * fuzz/local.mk), so every input that once crashed stays a test of
 * `make check`.  A crash aborts the program (the test fails); the exit
 * status is 0 once everything ran, 1 if an input could not be read or
 * nothing was found.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*data = buf;
	*size = len;
	return 0;
}

static int run_file(const char *path, unsigned *count)
{
	uint8_t *data = NULL, *exact;
	size_t size = 0;	/* set by read_file; gcc -O1 cannot see it */
	int err = read_file(path, &data, &size);

	if (err) {
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		return 1;
	}
	/* An exact-size copy, as libFuzzer passes it, so ASan sees overreads. */
	exact = fuzz_dup(data, size);
	free(data);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	(*count)++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every regular file in a folder (in name order, dot files
 * skipped).  A missing folder is fine when optional. */
static int run_path(const char *path, int optional, unsigned *count)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int bad = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		if (optional && errno == ENOENT)
			return 0;
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path, count);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn;

			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				abort();
			names = nn;
		}
		names[n] = malloc(strlen(path) + strlen(de->d_name) + 2);
		if (!names[n])
			abort();
		sprintf(names[n], "%s/%s", path, de->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			bad |= run_file(names[i], count);
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int bad = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			bad |= run_path(argv[i], 0, &count);
	} else {
#if defined(FUZZ_CORPUS_ROOT) && defined(FUZZ_REGRESSION_ROOT) && defined(FUZZ_NAME)
		bad |= run_path(FUZZ_CORPUS_ROOT "/" FUZZ_NAME, 0, &count);
		bad |= run_path(FUZZ_REGRESSION_ROOT "/" FUZZ_NAME, 1, &count);
#else
		fprintf(stderr, "usage: %s FILE-OR-FOLDER...\n", argv[0]);
		return 2;
#endif
	}
	if (!bad && count == 0) {
		fprintf(stderr, "%s: no input found\n", argv[0]);
		bad = 1;
	}
	printf("%s: %u inputs replayed%s\n", argv[0], count, bad ? ", some unreadable" : "");
	return bad ? 1 : 0;
}
