/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * runstat -r RESULT [-i IN] [-o OUT] [-e ERR] -- CMD [ARG...]
 * Runs CMD (stdin from IN, stdout to OUT if given) and appends one line to
 * RESULT (stderr appended to ERR if given):
 * "wall=SECONDS rss_kb=PEAK_RSS rc=EXIT_STATUS cpu=SECONDS", where cpu is the
 * user + system time of CMD and every descendant it waited for.  Peak RSS is the
 * child's ru_maxrss (wait4), so the harness needs no /usr/bin/time.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-common.h"

int main(int argc, char **argv)
{
	const char *res = NULL, *in = NULL, *out = NULL, *err = NULL;
	struct rusage ru;
	double t0, t;
	int opt, st = 0, rc;
	pid_t pid;
	FILE *f;

	while ((opt = getopt(argc, argv, "+r:i:o:e:")) != -1) {
		switch (opt) {
		case 'r': res = optarg; break;
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'e': err = optarg; break;
		default: return 2;
		}
	}
	if (!res || optind >= argc) {
		fprintf(stderr, "usage: runstat -r RESULT [-i IN] [-o OUT] -- CMD [ARG...]\n");
		return 2;
	}
	t0 = bench_now();
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		if (in) {
			int fd = open(in, O_RDONLY);

			if (fd < 0 || dup2(fd, 0) < 0)
				_exit(127);
			close(fd);
		}
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(127);
			close(fd);
		}
		if (err) {
			int fd = open(err, O_WRONLY | O_CREAT | O_APPEND, 0644);

			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(127);
			close(fd);
		}
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0)
		return 2;
	t = bench_now() - t0;
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	f = fopen(res, "a");
	if (!f)
		return 2;
	fprintf(f, "wall=%.6f rss_kb=%ld rc=%d cpu=%.6f\n", t, ru.ru_maxrss, rc,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6);
	fclose(f);
	return 0;
}
