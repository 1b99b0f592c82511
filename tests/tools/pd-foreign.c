/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-foreign IN OUT HOST OSRELEASE [pipe]: IN as if another machine had
 * recorded it, written with the library's writer: every record and every
 * header feature of IN, but HOSTNAME and OSRELEASE say HOST and OSRELEASE,
 * and the kernel's BUILD_ID entry ([kernel.kallsyms]) gets another build
 * id (each byte inverted), so that perf will not name its addresses with
 * this machine's kallsyms.  It also gets a feature no perf knows (id 40,
 * "opaque ..." and 0..255), as a newer perf's would be (file mode only:
 * a stream ends its features at 32).  "pipe": OUT in pipe mode.  Exit 0, or 1 with the reason.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>

static int die(const struct perfring_diag *d, const char *what)
{
	char m[1024];

	fprintf(stderr, "pd-foreign: %s: %s\n", what, perfring_diag_format(d, m, sizeof(m)));
	return 1;
}

/* A perf string feature: u32 len (a multiple of 64, as perf pads) + text. */
static int set_str(struct perfring_writer *w, uint32_t id, const char *s,
		   struct perfring_diag *d)
{
	unsigned char buf[4 + 256] = { 0 };
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);

	if (len > 256)
		return -1;
	memcpy(buf, &len, 4);
	memcpy(buf + 4, s, strlen(s));
	return perfring_writer_set_feature(w, id, buf, 4 + len, d);
}

/* The BUILD_ID table of pd with the kernel's id inverted, set into w. */
static int foreign_kernel(struct perfring_writer *w, struct perfring_perfdata *pd,
			  struct perfring_diag *d)
{
	for (uint32_t i = 0; i < perfring_perfdata_nr_features(pd); i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };
		unsigned char *t;
		size_t off = 0;
		int r;

		if (perfring_perfdata_feature(pd, i, &f, d) < 0 || f.id != PERFRING_FEAT_BUILD_ID)
			continue;
		t = malloc(f.size ? f.size : 1);
		if (!t)
			return -1;
		memcpy(t, f.data, f.size);
		while (f.size - off >= 36) {
			uint16_t sz;

			memcpy(&sz, t + off + 6, 2);
			if (sz < 36 || sz > f.size - off)
				break;
			if (!strncmp((char *)t + off + 36, "[kernel.kallsyms]", sz - 36))
				for (int k = 0; k < 20; k++)
					t[off + 12 + k] ^= 0xff;
			off += sz;
		}
		r = perfring_writer_set_feature(w, PERFRING_FEAT_BUILD_ID, t, f.size, d);
		free(t);
		return r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct perfring_perfdata *pd = NULL;
	struct perfring_writer *w = NULL;
	struct perfring_perfdata_record r = { .sz = sizeof(r) };
	struct perfring_diag d = { 0 };
	int ret;

	if (argc != 5 && !(argc == 6 && !strcmp(argv[5], "pipe"))) {
		fprintf(stderr, "usage: pd-foreign IN OUT HOST OSRELEASE [pipe]\n");
		return 2;
	}
	if (perfring_perfdata_open(argv[1], NULL, &d, &pd) < 0)
		return die(&d, argv[1]);
	{
		PERFRING_WRITER_OPTS(o, .path = argv[2], .pipe_mode = argc == 6,
				     .kmap = PERFRING_WRITER_KMAP_NONE,
				     .host = PERFRING_WRITER_HOST_NONE);

		if (perfring_writer_open(&o, &d, &w) < 0)
			return die(&d, argv[2]);
	}
	for (uint32_t i = 0; i < perfring_perfdata_nr_attrs(pd); i++) {
		PERFRING_EVENT_DESC(e);

		perfring_perfdata_event(pd, i, &e);
		if (!e.nr_ids)
			e.ids = NULL;
		if (perfring_writer_add_event(w, &e, &d) < 0)
			return die(&d, "event");
	}
	if (perfring_writer_copy_features(w, pd, PERFRING_WRITER_COPY_ALL, NULL, &d) < 0 ||
	    set_str(w, PERFRING_FEAT_HOSTNAME, argv[3], &d) < 0 ||
	    set_str(w, PERFRING_FEAT_OSRELEASE, argv[4], &d) < 0 ||
	    foreign_kernel(w, pd, &d) < 0)
		return die(&d, "features");
	{
		unsigned char opaque[16 + 256] = "opaque feature";

		for (int i = 0; i < 256; i++)
			opaque[16 + i] = (unsigned char)i;
		if (argc == 5 && perfring_writer_set_feature(w, 40, opaque, sizeof(opaque), &d) < 0)
			return die(&d, "feature 40");
	}
	while ((ret = perfring_perfdata_next(pd, &r, &d)) == 1)
		if (perfring_writer_write(w, 0, r.header, r.size, &d) < 0)
			return die(&d, "record");
	if (ret < 0)
		return die(&d, argv[1]);
	if (perfring_writer_close(w, &d) < 0)
		return die(&d, argv[2]);
	perfring_perfdata_close(pd);
	return 0;
}
