/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test helper for tests/lib/writer-*.sh: writes a perf.data describing a
 * process that exec'ed a given ELF, forked a child, both sampled in two
 * functions of the ELF, then exited.  All through the perfring writer.
 *
 *   writer-gen -o OUT --elf PATH --start HEX --len HEX --pgoff HEX
 *              --f1 HEX --f2 HEX [--pipe] [--sources 2] [--events 2]
 *              [--samples N] [--unknown] [--keep-unknown] [--kallsyms PATH]
 *              [--window BYTES] [--round BYTES] [--name NAME] [--naive]
 *              [--no-kmap] [--clockid N] [--build-ids]
 *
 * Times start at 1e9 ns.  Parent pid 4242 "wgen-app", child 4243.  Samples
 * are 3 in f1 for 1 in f2.  With --sources 2 the parent's records go to
 * source 0 and the child's to source 1, fed in interleaved batches, so the
 * writer has to merge them.  With --unknown, records of types 22 and 200
 * are added.  --naive feeds the same interleaved batches into one source
 * (no merge: the negative control of the merge test).  Prints the writer's
 * stats as key=value lines on stdout (on stderr when the output is "-" or
 * under /dev/).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer-test.h"

#define PARENT 4242u
#define CHILD 4243u
#define T0 1000000000ull

struct rec {
	unsigned char b[512];
	size_t n;
};

struct list {
	struct rec *r;
	size_t nr, cap;
};

static void push(struct list *l, const unsigned char *b, size_t n)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->r = realloc(l->r, l->cap * sizeof(*l->r));
		if (!l->r) {
			perror("realloc");
			exit(2);
		}
	}
	memcpy(l->r[l->nr].b, b, n);
	l->r[l->nr].n = n;
	l->nr++;
}

static uint64_t hex(const char *s)
{
	return strtoull(s, NULL, 16);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "elf", 1, 0, 'e' }, { "start", 1, 0, 's' }, { "len", 1, 0, 'l' },
		{ "pgoff", 1, 0, 'p' }, { "f1", 1, 0, '1' }, { "f2", 1, 0, '2' },
		{ "pipe", 0, 0, 'P' }, { "sources", 1, 0, 'S' },
		{ "events", 1, 0, 'E' }, { "samples", 1, 0, 'n' },
		{ "unknown", 0, 0, 'u' }, { "keep-unknown", 0, 0, 'k' },
		{ "kallsyms", 1, 0, 'K' }, { "window", 1, 0, 'w' },
		{ "round", 1, 0, 'r' }, { "name", 1, 0, 'N' },
		{ "naive", 0, 0, 'A' }, { "no-kmap", 0, 0, 'M' },
		{ "clockid", 1, 0, 'C' }, { "build-ids", 0, 0, 'B' },
		{ 0, 0, 0, 0 }
	};
	const char *out = NULL, *elf = NULL, *kallsyms = NULL, *name = NULL;
	uint64_t start = 0, len = 0, pgoff = 0, f1 = 0, f2 = 0;
	int pipe_mode = 0, nsrc = 1, nev = 1, unknown = 0, keep = 0, c, i;
	int naive = 0, no_kmap = 0, clockid = -1, build_ids = 0;
	long nsamples = 400;
	size_t window = 0, round = 0;
	struct perfring_attr a;
	struct perfring_writer *w;
	struct perfring_diag d;
	struct perfring_writer_stats st = { .sz = sizeof(st) };
	struct list src[2] = { { 0 }, { 0 } };
	unsigned char b[512];
	uint64_t id[2];
	char msg[1024];
	int r;

	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'e': elf = optarg; break;
		case 's': start = hex(optarg); break;
		case 'l': len = hex(optarg); break;
		case 'p': pgoff = hex(optarg); break;
		case '1': f1 = hex(optarg); break;
		case '2': f2 = hex(optarg); break;
		case 'P': pipe_mode = 1; break;
		case 'S': nsrc = atoi(optarg) == 2 ? 2 : 1; break;
		case 'E': nev = atoi(optarg) == 2 ? 2 : 1; break;
		case 'n': nsamples = atol(optarg); break;
		case 'u': unknown = 1; break;
		case 'k': keep = 1; break;
		case 'K': kallsyms = optarg; break;
		case 'w': window = strtoul(optarg, NULL, 0); break;
		case 'r': round = strtoul(optarg, NULL, 0); break;
		case 'N': name = optarg; break;
		case 'A': naive = 1; break;
		case 'M': no_kmap = 1; break;
		case 'C': clockid = atoi(optarg); break;
		case 'B': build_ids = 1; break;
		default: return 2;
		}
	}
	if (!out || !elf || !len || !f1 || !f2) {
		fprintf(stderr, "usage: writer-gen -o OUT --elf PATH --start HEX "
			"--len HEX --pgoff HEX --f1 HEX --f2 HEX [...]\n");
		return 2;
	}

	PERFRING_WRITER_OPTS(o, .path = out, .pipe_mode = pipe_mode,
			     .keep_unknown = keep, .kallsyms_path = kallsyms,
			     .window_bytes = window, .round_bytes = round,
			     .kmap = no_kmap ? PERFRING_WRITER_KMAP_NONE : 0,
			     .build_ids = build_ids,
			     .argc = argc, .argv = (const char *const *)argv);
	r = perfring_writer_open(&o, &d, &w);
	if (r < 0) {
		fprintf(stderr, "writer-gen: %s\n", perfring_diag_format(&d, msg, sizeof(msg)));
		return 1;
	}

	memset(&a, 0, sizeof(a));
	a.type = PERFRING_TYPE_SOFTWARE;
	a.config = 0;	/* cpu-clock */
	a.sample_period = 100000;
	a.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
			PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ID |
			PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD;
	if (nev == 2)
		a.sample_type |= PERFRING_SAMPLE_IDENTIFIER;
	a.flags = PERFRING_ATTR_DISABLED | PERFRING_ATTR_INHERIT |
		  PERFRING_ATTR_MMAP | PERFRING_ATTR_COMM | PERFRING_ATTR_TASK |
		  PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_GUEST |
		  PERFRING_ATTR_MMAP2 | PERFRING_ATTR_COMM_EXEC;
	a.size = PERFRING_ATTR_SIZE_VER7;
	if (clockid >= 0) {
		a.flags |= PERFRING_ATTR_USE_CLOCKID;
		a.clockid = clockid;
	}
	r = tw_add_event(w, &a, NULL, 0, name, &d);
	if (r >= 0 && nev == 2) {
		struct perfring_attr a2 = a;

		a2.config = 1;	/* task-clock */
		r = tw_add_event(w, &a2, NULL, 0, NULL, &d);
	}
	if (r < 0) {
		fprintf(stderr, "writer-gen: %s\n", perfring_diag_format(&d, msg, sizeof(msg)));
		perfring_writer_abort(w);
		return 1;
	}
	id[0] = perfring_writer_event_id(w, 0);
	id[1] = nev == 2 ? perfring_writer_event_id(w, 1) : id[0];
	if (nsrc == 2 && !naive)
		(void)perfring_writer_add_source(w), (void)perfring_writer_add_source(w);

	/* parent: exec, map, fork */
	push(&src[0], b, tw_comm(&a, b, 1, PARENT, PARENT, "wgen-app", T0 + 100, id[0]));
	push(&src[0], b, tw_mmap2(&a, b, PARENT, PARENT, start, len, pgoff, elf,
				  T0 + 200, id[0]));
	push(&src[0], b, tw_task(&a, b, PERFRING_RECORD_FORK, CHILD, PARENT, CHILD,
				 PARENT, T0 + 300, id[0]));
	if (unknown) {
		push(&src[0], b, tw_raw(b, 22, 24));
		push(&src[0], b, tw_raw(b, 200, 16));
		push(&src[0], b, tw_raw(b, 200, 16));
	}
	for (i = 0; i < nsamples; i++) {
		uint64_t ip = (i % 4 == 3 ? f2 : f1) + 4;
		int child = i % 2;
		struct list *l = &src[nsrc == 2 ? child : 0];

		push(l, b, tw_sample(&a, b, ip, child ? CHILD : PARENT,
				     child ? CHILD : PARENT,
				     T0 + 1000 + (uint64_t)i * 1000, id[i % nev],
				     (uint32_t)child, 100000));
	}
	push(&src[nsrc == 2 ? 1 : 0], b,
	     tw_task(&a, b, PERFRING_RECORD_EXIT, CHILD, PARENT, CHILD, PARENT,
		     T0 + 1000 + (uint64_t)nsamples * 1000 + 10, id[0]));
	push(&src[0], b, tw_task(&a, b, PERFRING_RECORD_EXIT, PARENT, PARENT,
				 PARENT, PARENT,
				 T0 + 1000 + (uint64_t)nsamples * 1000 + 20, id[0]));

	/* feed: batches of 7 from each source in turn */
	{
		size_t pos[2] = { 0, 0 };
		int s;

		while (pos[0] < src[0].nr || pos[1] < src[1].nr) {
			for (s = 0; s < nsrc; s++) {
				size_t k;

				for (k = 0; k < 7 && pos[s] < src[s].nr; k++, pos[s]++) {
					r = perfring_writer_write(w, naive ? 0 : s,
								  src[s].r[pos[s]].b,
								  src[s].r[pos[s]].n, &d);
					if (r < 0) {
						fprintf(stderr, "writer-gen: %s\n",
							perfring_diag_format(&d, msg, sizeof(msg)));
						perfring_writer_abort(w);
						free(src[0].r);
						free(src[1].r);
						return 1;
					}
				}
				if (pos[s] == src[s].nr && nsrc == 2 && !naive)
					perfring_writer_end_source(w, s, &d);
			}
		}
	}
	perfring_writer_get_stats(w, &st);
	r = perfring_writer_close(w, &d);
	if (r < 0) {
		fprintf(stderr, "writer-gen: %s\n", perfring_diag_format(&d, msg, sizeof(msg)));
		free(src[0].r);
		free(src[1].r);
		return 1;
	}
	/* stats on stdout, unless that is the perf.data stream */
	fprintf(strcmp(out, "-") && strncmp(out, "/dev/", 5) ? stdout : stderr,
		"records=%" PRIu64 "\nrounds=%" PRIu64 "\nlate=%" PRIu64
	       "\ndropped_unknown=%" PRIu64 "\nkernel_mmap=%d\nexclude_kernel_set=%d\n"
	       "pipe_mode=%d\nforced_flushes=%" PRIu64 "\n",
	       st.records, st.rounds, st.late, st.dropped_unknown, st.kernel_mmap,
	       st.exclude_kernel_set, st.pipe_mode, st.forced_flushes);
	free(src[0].r);
	free(src[1].r);
	return 0;
}
