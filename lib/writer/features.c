/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data writer: the start of the output (header, attrs, ids, kernel
 * map, tracing data) and the header features with the host facts and
 * build ids they hold (doc/perf-format.md section 5).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "util/internal.h"
#include "writer/private.h"

/* perf's do_write_string: u32 len, then the string, NUL, zeros to 64. */
static void wr_buf_str(struct pr_buf *b, const char *s)
{
	static const unsigned char zeros[64];
	size_t n = strlen(s) + 1;
	size_t len = (n + 63) & ~(size_t)63;

	buf_u32(b, (uint32_t)len);
	pr_buf_put(b, s, n - 1);
	pr_buf_put(b, zeros, len - (n - 1));
}

static uint32_t wr_attr_needed_size(const struct perfring_attr *a)
{
	static const uint32_t vers[] = {
		PERFRING_ATTR_SIZE_VER0, PERFRING_ATTR_SIZE_VER1,
		PERFRING_ATTR_SIZE_VER2, PERFRING_ATTR_SIZE_VER3,
		PERFRING_ATTR_SIZE_VER4, PERFRING_ATTR_SIZE_VER5,
		PERFRING_ATTR_SIZE_VER6, PERFRING_ATTR_SIZE_VER7,
	};
	const unsigned char *p = (const unsigned char *)a;
	size_t last = 0, i;

	for (i = 0; i < PERFRING_ATTR_SIZE_VER7; i++) {
		if (i >= 4 && i < 8)	/* the size field itself */
			continue;
		if (p[i])
			last = i + 1;
	}
	for (i = 0; i < sizeof(vers) / sizeof(vers[0]); i++)
		if (vers[i] >= last)
			return vers[i];
	return PERFRING_ATTR_SIZE_VER7;
}

static int wr_idmap_cmp(const void *a, const void *b)
{
	const struct wr_idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* ---- host facts for the features -------------------------------------------- */

/* Value of the first "key<spaces>: value" line of a /proc file, or NULL. */
static char *proc_field(const char *file, const char *key)
{
	FILE *f = fopen(file, "re");
	char *line = NULL, *res = NULL;
	size_t cap = 0, kl = strlen(key);

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *p, *e;

		if (strncmp(line, key, kl))
			continue;
		p = line + kl;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = 0;
		res = strdup(p);
		break;
	}
	free(line);
	fclose(f);
	return res;
}

static uint32_t nr_cpus_avail(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/present", "re");
	char buf[256];
	uint32_t max = 0;
	int found = 0;

	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			char *p = buf;

			/* "0-3,5,7-8": the largest number + 1 */
			while (*p) {
				if (isdigit((unsigned char)*p)) {
					unsigned long v = strtoul(p, &p, 10);

					if (v + 1 > max)
						max = (uint32_t)v + 1;
					found = 1;
				} else {
					p++;
				}
			}
		}
		fclose(f);
	}
	if (!found) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		max = n > 0 ? (uint32_t)n : 1;
	}
	return max;
}

int wr_read_cmdline(struct perfring_writer *w)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	char buf[4096];
	size_t n = 0, i, start;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	if (n == 0 || buf[n - 1] != 0)
		buf[n++] = 0;
	for (i = 0, start = 0; i < n; i++) {
		char **na;

		if (buf[i])
			continue;
		na = realloc(w->hd.argv, (size_t)(w->hd.argc + 1) * sizeof(char *));
		if (!na)
			return -ENOMEM;
		w->hd.argv = na;
		w->hd.argv[w->hd.argc] = strdup(buf + start);
		if (!w->hd.argv[w->hd.argc])
			return -ENOMEM;
		w->hd.argc++;
		start = i + 1;
	}
	return 0;
}

/*
 * Size of the kernel's text from /proc/iomem: the "Kernel code" resource
 * spans [__pa(_text), __pa(_etext)), so its size is _etext - _text.  Reading
 * it costs microseconds where finding _etext in /proc/kallsyms (near the end
 * of ~100k lines the kernel formats on the fly) costs ~100 ms.  Only root
 * sees real addresses there; 0 if unavailable.
 */
static uint64_t iomem_kernel_code_size(void)
{
	FILE *f = fopen("/proc/iomem", "re");
	char line[256];
	uint64_t size = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (strstr(line, " : Kernel code") &&
		    sscanf(line, " %llx-%llx", &lo, &hi) == 2) {
			if (hi > lo)
				size = hi - lo + 1;
			break;
		}
	}
	fclose(f);
	return size;
}

/*
 * Address of _text and _etext from a kallsyms file; 0 if unreadable/hidden.
 * For the running kernel's /proc/kallsyms, _text is among the first lines
 * and the text size comes from /proc/iomem when it can, so the scan stops
 * early.
 */
static void read_kallsyms(const char *path, uint64_t *text, uint64_t *etext)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	uint64_t code_size = 0;

	*text = *etext = 0;
	if (!f)
		return;
	if (!strcmp(path, "/proc/kallsyms"))
		code_size = iomem_kernel_code_size();
	while (getline(&line, &cap, f) > 0 && (!*text || !*etext)) {
		char type, name[64];
		unsigned long long addr;

		if (sscanf(line, "%llx %c %63s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text")) {
			*text = addr;
			if (addr && code_size)
				*etext = addr + code_size;
		} else if (!strcmp(name, "_etext")) {
			*etext = addr;
		}
	}
	free(line);
	fclose(f);
}

/* ---- build ids ----------------------------------------------------------- */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Remember a mapped file (and its build id if the record carries one). */
static void dso_note(struct perfring_writer *w, const char *name,
		     uint16_t cpumode, const uint8_t *id, uint8_t id_size)
{
	size_t i;

	if (name[0] != '/' || w->hd.nr_dsos >= WR_MAX_DSOS)
		return;
	if (!w->hd.cap_dsos) {
		w->hd.dsos = calloc(2 * WR_MAX_DSOS, sizeof(*w->hd.dsos));
		if (!w->hd.dsos)
			return;
		w->hd.cap_dsos = 2 * WR_MAX_DSOS;
	}
	for (i = name_hash(name) % w->hd.cap_dsos; w->hd.dsos[i].name;
	     i = (i + 1) % w->hd.cap_dsos)
		if (!strcmp(w->hd.dsos[i].name, name))
			break;
	if (!w->hd.dsos[i].name) {
		w->hd.dsos[i].name = strdup(name);
		if (!w->hd.dsos[i].name)
			return;
		w->hd.dsos[i].cpumode = cpumode;
		w->hd.nr_dsos++;
	}
	if (id_size && !w->hd.dsos[i].id_size) {
		memcpy(w->hd.dsos[i].id, id, id_size);
		w->hd.dsos[i].id_size = id_size;
	}
}

/*
 * MMAP / MMAP2 of a user-space file: note its name (and build-id form).
 * Decoded without the attr: the writer does not resolve it here, and the
 * filename's NUL lies before the trailer whatever the trailer is.
 */
void wr_dso_from_record(struct perfring_writer *w, const unsigned char *p,
			    uint32_t size)
{
	struct perfring_mmap2 m;
	char name[4096];
	uint16_t mode;

	if (perfring_mmap2_decode(NULL, p, size, &m, NULL, NULL) < 0)
		return;
	mode = m.misc & PERFRING_MISC_CPUMODE_MASK;
	if (mode == PERFRING_MISC_KERNEL || mode == PERFRING_MISC_GUEST_KERNEL ||
	    m.filename_len >= sizeof(name))
		return;
	memcpy(name, m.filename, m.filename_len + 1);
	dso_note(w, name, mode, m.build_id, m.build_id_size);
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, buf, n, (off_t)off);

	return r == (ssize_t)n ? 0 : -1;
}

/*
 * GNU build id of an ELF file (native byte order, 32 or 64 bit) from its
 * PT_NOTE segments.  Returns its size (1..20) or 0.
 */
static uint8_t elf_build_id(const char *path, uint8_t id[20])
{
	unsigned char eh[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t got = 0;
	uint64_t phoff;
	unsigned phnum, phentsize, i;
	int is64;

	if (fd < 0)
		return 0;
	if (read_at(fd, eh, sizeof(eh), 0) || memcmp(eh, "\177ELF", 4) ||
	    (eh[4] != 1 && eh[4] != 2))
		goto out;
	is64 = eh[4] == 2;
	phoff = is64 ? pr_get64(eh + 32) : pr_get32(eh + 28);
	phentsize = pr_get16(eh + (is64 ? 54 : 42));
	phnum = pr_get16(eh + (is64 ? 56 : 44));
	if (phentsize < (is64 ? 56u : 32u) || phnum > 256)
		goto out;
	for (i = 0; i < phnum && !got; i++) {
		unsigned char ph[56], note[4096];
		uint64_t off, sz, pos = 0;

		if (read_at(fd, ph, is64 ? 56 : 32, phoff + (uint64_t)i * phentsize))
			goto out;
		if (pr_get32(ph) != 4)		/* PT_NOTE */
			continue;
		off = is64 ? pr_get64(ph + 8) : pr_get32(ph + 4);
		sz = is64 ? pr_get64(ph + 32) : pr_get32(ph + 16);
		if (sz > sizeof(note))
			sz = sizeof(note);
		if (read_at(fd, note, (size_t)sz, off))
			continue;
		while (pos + 12 <= sz) {
			uint32_t nsz = pr_get32(note + pos), dsz = pr_get32(note + pos + 4);
			uint32_t ntype = pr_get32(note + pos + 8);
			uint64_t name_off = pos + 12;
			uint64_t desc_off = name_off + ((nsz + 3u) & ~3u);

			if (desc_off + dsz > sz)
				break;
			if (ntype == 3 && nsz == 4 && !memcmp(note + name_off, "GNU", 4) &&
			    dsz >= 1 && dsz <= 20) {
				memcpy(id, note + desc_off, dsz);
				got = (uint8_t)dsz;
				break;
			}
			pos = desc_off + ((dsz + 3u) & ~3ull);
		}
	}
out:
	close(fd);
	return got;
}

/*
 * BUILD_ID feature: perf's build-id table, one entry per mapped file whose
 * id is known: header {type 0, misc cpumode | BUILD_ID_SIZE, size}, pid -1
 * (host: another pid makes perf create a guest machine), build_id[20],
 * size u8, 3 reserved bytes, then the name NUL-padded to a multiple of 64.
 */
/* Does the given BUILD_ID table have an entry for file name? */
static int given_build_id_names(const struct perfring_writer *w, const char *name)
{
	const struct pr_buf *g = &w->hd.given[PERFRING_FEAT_BUILD_ID];
	size_t off = 0, nl = strlen(name);

	while (g->len - off >= 36) {
		size_t sz = pr_get16(g->p + off + 6);

		if (sz < 36 || sz > g->len - off)
			break;
		if (sz - 36 > nl && !memcmp(g->p + off + 36, name, nl) &&
		    !g->p[off + 36 + nl])
			return 1;
		off += sz;
	}
	return 0;
}

static int build_id_feature(struct perfring_writer *w, struct pr_buf *b)
{
	static const unsigned char zeros[64];
	size_t i, n = 0;
	int given = wr_given(w, PERFRING_FEAT_BUILD_ID);

	if (w->out.pipe)
		return 0;
	if (given) {
		pr_buf_put(b, w->hd.given[PERFRING_FEAT_BUILD_ID].p, w->hd.given[PERFRING_FEAT_BUILD_ID].len);
		n = w->hd.given[PERFRING_FEAT_BUILD_ID].len > 0;
	}
	for (i = 0; w->hd.build_ids && i < w->hd.cap_dsos; i++) {
		struct wr_dso *d = &w->hd.dsos[i];
		unsigned char ent[36];
		size_t len, pad;

		if (!d->name || (given && given_build_id_names(w, d->name)))
			continue;
		if (!d->id_size)
			d->id_size = elf_build_id(d->name, d->id);
		if (!d->id_size)
			continue;
		len = strlen(d->name) + 1;
		pad = (len + 63) & ~(size_t)63;
		if (36 + pad > 0xffff)
			continue;
		memset(ent, 0, sizeof(ent));
		pr_put32(ent, 0);
		pr_put16(ent + 4, (uint16_t)(d->cpumode | PERFRING_MISC_EXT_RESERVED));
		pr_put16(ent + 6, (uint16_t)(36 + pad));
		pr_put32(ent + 8, UINT32_MAX);
		memcpy(ent + 12, d->id, d->id_size);
		ent[32] = d->id_size;
		pr_buf_put(b, ent, sizeof(ent));
		pr_buf_put(b, d->name, len - 1);
		pr_buf_put(b, zeros, pad - (len - 1));
		n++;
	}
	return n > 0;
}

/* ---- features ------------------------------------------------------------- */

/* Features that describe the machine that recorded: only built here for
 * PERFRING_WRITER_HOST_LOCAL. */
static int host_fact(int feat)
{
	switch (feat) {
	case PERFRING_FEAT_NRCPUS: case PERFRING_FEAT_CPUDESC: case PERFRING_FEAT_CPUID: case PERFRING_FEAT_TOTAL_MEM:
	case PERFRING_FEAT_CLOCKID: case PERFRING_FEAT_CLOCK_DATA:
		return 1;
	}
	return 0;
}

/* A string feature: 1, or 0 if the string is empty. */
static int feat_string(struct pr_buf *b, const char *str)
{
	if (!*str)
		return 0;
	wr_buf_str(b, str);
	return 1;
}

static int feat_compressed(struct perfring_writer *w, struct pr_buf *b)
{
	/* ratio: input over output, rounded; not known yet in pipe mode */
	uint64_t out = w->st.compressed ? w->zs.z_out : 0;

	if (!w->zs.z)
		return 0;
	buf_u32(b, 0);			/* version */
	buf_u32(b, 1);			/* PERF_COMP_ZSTD */
	buf_u32(b, (uint32_t)w->zs.zlevel);
	buf_u32(b, out ? (uint32_t)((w->st.compressed_input + out / 2) / out) : 0);
	buf_u32(b, PR_WZ_CHUNK);	/* most bytes one record holds */
	return 1;
}

static int feat_nrcpus(struct pr_buf *b)
{
	long onl = sysconf(_SC_NPROCESSORS_ONLN);

	/* available (max present + 1) first, then online: perf's order */
	buf_u32(b, nr_cpus_avail());
	buf_u32(b, onl > 0 ? (uint32_t)onl : 1);
	return 1;
}

static int feat_cpudesc(struct pr_buf *b)
{
	char *s = proc_field("/proc/cpuinfo", "model name");

	if (!s)
		return 0;
	wr_buf_str(b, s);
	free(s);
	return 1;
}

static int feat_cpuid(struct pr_buf *b)
{
	char *ven = proc_field("/proc/cpuinfo", "vendor_id");
	char *fam = proc_field("/proc/cpuinfo", "cpu family");
	char *mod = proc_field("/proc/cpuinfo", "model");
	char *stp = proc_field("/proc/cpuinfo", "stepping");
	char cpuid[128];
	int ok = ven && fam && mod && stp;

	/* x86 format: vendor,family,model,stepping (perf's get_cpuid) */
	if (ok) {
		snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", ven, fam, mod, stp);
		wr_buf_str(b, cpuid);
	}
	free(ven);
	free(fam);
	free(mod);
	free(stp);
	return ok;
}

static int feat_total_mem(struct pr_buf *b)
{
	char *m = proc_field("/proc/meminfo", "MemTotal");
	uint64_t kb;

	if (!m)
		return 0;
	kb = strtoull(m, NULL, 10);	/* "16384 kB": perf writes kB */
	free(m);
	if (!kb)
		return 0;
	buf_u64(b, kb);
	return 1;
}

static int feat_cmdline(struct perfring_writer *w, struct pr_buf *b)
{
	buf_u32(b, (uint32_t)w->hd.argc);
	for (uint32_t i = 0; i < (uint32_t)w->hd.argc; i++)
		wr_buf_str(b, w->hd.argv[i]);
	return 1;
}

static int feat_event_desc(struct perfring_writer *w, struct pr_buf *b)
{
	buf_u32(b, (uint32_t)w->evs.nr_ev);
	buf_u32(b, w->hd.attr_size);
	for (uint32_t i = 0; i < (uint32_t)w->evs.nr_ev; i++) {
		const struct wr_event *e = &w->evs.ev[i];

		pr_buf_put(b, &e->attr, w->hd.attr_size);
		buf_u32(b, e->nr_ids);
		wr_buf_str(b, e->name);
		for (uint32_t j = 0; j < e->nr_ids; j++)
			buf_u64(b, e->ids[j]);
	}
	return 1;
}

static int feat_clock_data(struct perfring_writer *w, struct pr_buf *b)
{
	if (!w->hd.have_clock)
		return 0;
	buf_u32(b, 1);	/* version */
	buf_u32(b, (uint32_t)w->evs.ev[0].attr.clockid);
	buf_u64(b, (uint64_t)w->hd.clk_tod.tv_sec * 1000000000ull +
		   (uint64_t)w->hd.clk_tod.tv_nsec);
	buf_u64(b, (uint64_t)w->hd.clk_ref.tv_sec * 1000000000ull +
		   (uint64_t)w->hd.clk_ref.tv_nsec);
	return 1;
}

/*
 * Payload of feature feat into b: 1, or 0 if the output has none.  A
 * feature given by perfring_writer_set_feature() is written as given
 * (BUILD_ID: followed by the writer's own entries).
 */
static int feat_build(struct perfring_writer *w, int feat, struct pr_buf *b)
{
	if (feat != PERFRING_FEAT_TRACING_DATA && feat != PERFRING_FEAT_BUILD_ID && wr_given(w, (uint32_t)feat)) {
		pr_buf_put(b, w->hd.given[feat].p, w->hd.given[feat].len);
		return w->hd.given[feat].len > 0;
	}
	if (w->hd.host_none && host_fact(feat))
		return 0;
	switch (feat) {
	case PERFRING_FEAT_TRACING_DATA:	/* pipe mode: a record (write_pipe_start) */
		if (w->out.pipe || !w->hd.tdata.len)
			return 0;
		pr_buf_put(b, w->hd.tdata.p, w->hd.tdata.len);
		return 1;
	case PERFRING_FEAT_COMPRESSED:
		return feat_compressed(w, b);
	case PERFRING_FEAT_BUILD_ID:
		return build_id_feature(w, b);
	case PERFRING_FEAT_HOSTNAME:
		return feat_string(b, w->hd.hostname);
	case PERFRING_FEAT_OSRELEASE:
		return feat_string(b, w->hd.osrelease);
	case PERFRING_FEAT_VERSION:
		wr_buf_str(b, w->hd.version);
		return 1;
	case PERFRING_FEAT_ARCH:
		return feat_string(b, w->hd.arch);
	case PERFRING_FEAT_NRCPUS:
		return feat_nrcpus(b);
	case PERFRING_FEAT_CPUDESC:
		return feat_cpudesc(b);
	case PERFRING_FEAT_CPUID:
		return feat_cpuid(b);
	case PERFRING_FEAT_TOTAL_MEM:
		return feat_total_mem(b);
	case PERFRING_FEAT_CMDLINE:
		return feat_cmdline(w, b);
	case PERFRING_FEAT_EVENT_DESC:
		return feat_event_desc(w, b);
	case PERFRING_FEAT_SAMPLE_TIME:
		if (w->out.pipe || !w->hd.have_sample_time)
			return 0;
		buf_u64(b, w->hd.first_sample);
		buf_u64(b, w->hd.last_sample);
		return 1;
	case PERFRING_FEAT_CLOCKID:
		if (!w->hd.have_clock)
			return 0;
		buf_u64(b, (uint64_t)w->hd.clk_res.tv_sec * 1000000000ull +
			   (uint64_t)w->hd.clk_res.tv_nsec);
		return 1;
	case PERFRING_FEAT_CLOCK_DATA:
		return feat_clock_data(w, b);
	}
	return 0;
}

static const int feat_list[] = {
	PERFRING_FEAT_TRACING_DATA, PERFRING_FEAT_BUILD_ID, PERFRING_FEAT_HOSTNAME, PERFRING_FEAT_OSRELEASE, PERFRING_FEAT_VERSION, PERFRING_FEAT_ARCH, PERFRING_FEAT_NRCPUS,
	PERFRING_FEAT_CPUDESC, PERFRING_FEAT_CPUID, PERFRING_FEAT_TOTAL_MEM, PERFRING_FEAT_CMDLINE, PERFRING_FEAT_EVENT_DESC,
	PERFRING_FEAT_SAMPLE_TIME, PERFRING_FEAT_CLOCKID, PERFRING_FEAT_COMPRESSED, PERFRING_FEAT_CLOCK_DATA,
};
#define NR_FEATS (int)(sizeof(feat_list) / sizeof(feat_list[0]))

/* The next feature id after id that the output may hold (given or built
 * here), or PR_PD_NR_FEAT_IDS: ascending, as the file's table wants them. */
static int next_feat(const struct perfring_writer *w, int id)
{
	for (id++; id < (int)PR_PD_NR_FEAT_IDS; id++) {
		if (wr_given(w, (uint32_t)id))
			return id;
		for (int i = 0; i < NR_FEATS; i++)
			if (feat_list[i] == id)
				return id;
	}
	return id;
}

/*
 * Pipe mode: the given BUILD_ID table as HEADER_BUILD_ID records (the
 * same entries, with the record type), as perf writes build ids into a
 * stream.
 */
static int pipe_build_ids(struct perfring_writer *w)
{
	const struct pr_buf *g;
	size_t off = 0;
	int r = 0;

	if (!wr_given(w, PERFRING_FEAT_BUILD_ID))
		return 0;
	g = &w->hd.given[PERFRING_FEAT_BUILD_ID];
	while (!r && g->len - off >= 36) {
		unsigned char h[8];
		size_t sz = pr_get16(g->p + off + 6);

		if (sz < 36 || sz > g->len - off)
			break;
		memcpy(h, g->p + off, 8);
		pr_put32(h, PERFRING_RECORD_HEADER_BUILD_ID);
		r = wr_out(w, h, 8);
		if (!r)
			r = wr_out(w, g->p + off + 8, sz - 8);
		off += sz;
	}
	return r;
}

/* ---- start: header, attrs, ids, kernel map --------------------------------- */

static int write_kernel_mmap(struct perfring_writer *w)
{
	unsigned char rec[128];
	size_t name_len = PR_ALIGN8(sizeof(WR_KERNEL_MMAP_NAME));
	size_t tsz = 0, size;
	struct perfring_event_header h;

	if (w->evs.ev[0].attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL)
		tsz = perfring_sample_id_size(w->evs.ev[0].attr.sample_type);
	size = 40 + name_len + tsz;
	memset(rec, 0, sizeof(rec));
	h.type = PERFRING_RECORD_MMAP;
	h.misc = PERFRING_MISC_KERNEL;
	h.size = (uint16_t)size;
	memcpy(rec, &h, 8);
	pr_put32(rec + 8, UINT32_MAX);		/* pid -1: host kernel */
	pr_put32(rec + 12, 0);
	pr_put64(rec + 16, w->hd.kstart);
	pr_put64(rec + 24, w->hd.klen);
	pr_put64(rec + 32, w->hd.kstart);		/* pgoff = reference symbol addr */
	memcpy(rec + 40, WR_KERNEL_MMAP_NAME, sizeof(WR_KERNEL_MMAP_NAME));
	/* zero trailer: id 0 means "synthesised", perf maps it to event 0 */
	w->st.kernel_mmap = 1;
	return wr_data(w, rec, size);
}

static void put_attr(unsigned char *dst, const struct perfring_attr *a,
		     uint32_t size)
{
	struct perfring_attr c = *a;

	c.size = size;
	memcpy(dst, &c, size);
}

static int write_pipe_start(struct perfring_writer *w)
{
	unsigned char hdr[16];
	struct pr_buf b = { 0 };
	int i, r = 0;

	pr_put64(hdr, PR_PD_MAGIC);
	pr_put64(hdr + 8, PR_PD_PIPE_HEADER_SIZE);
	r = wr_out(w, hdr, sizeof(hdr));
	for (i = 0; i < w->evs.nr_ev && !r; i++) {
		const struct wr_event *e = &w->evs.ev[i];
		size_t size = 8 + WR_PIPE_ATTR_SIZE + 8u * e->nr_ids;
		unsigned char ah[8 + WR_PIPE_ATTR_SIZE];
		struct perfring_event_header h = {
			PERFRING_RECORD_HEADER_ATTR, 0, (uint16_t)size
		};

		if (size > 0xffff)
			return wr_fail(w, -E2BIG, "event %d has %" PRIu32 " ids: too "
				       "many for a pipe-mode HEADER_ATTR record",
				       i, e->nr_ids);
		memcpy(ah, &h, 8);
		put_attr(ah + 8, &e->attr, WR_PIPE_ATTR_SIZE);
		r = wr_out(w, ah, sizeof(ah));
		if (!r)
			r = wr_out(w, e->ids, 8u * e->nr_ids);
	}
	for (i = next_feat(w, 0); i < (int)PR_PD_NR_FEAT_IDS && !r; i = next_feat(w, i)) {
		struct perfring_event_header h = { PERFRING_RECORD_HEADER_FEATURE, 0, 0 };
		uint64_t id = (uint64_t)i;

		b.len = 0;
		if (i >= (int)PR_PD_FEAT_LAST_61) {
			/* perf 6.1 ends the features at PR_PD_FEAT_LAST_61 (and warns
			 * about ids past it in a stream) */
			pr_log(PERFRING_LOG_WARN, "%s: feature %d left out: a pipe-mode "
			       "stream ends its features at %d", w->out.dname, i, PR_PD_FEAT_LAST_61);
			continue;
		}
		if (!feat_build(w, i, &b))
			continue;
		if (b.oom) {
			free(b.p);
			return wr_fail(w, -ENOMEM, "out of memory");
		}
		if (16 + b.len > 0xffff) {
			pr_log(PERFRING_LOG_WARN, "%s: feature %d left out: %zu bytes "
			       "is too large for a pipe-mode record", w->out.dname,
			       i, b.len);
			continue;
		}
		h.size = (uint16_t)(16 + b.len);
		r = wr_out(w, &h, 8);
		if (!r)
			r = wr_out(w, &id, 8);
		if (!r)
			r = wr_out(w, b.p, b.len);
	}
	free(b.p);
	if (!r) {
		/* end marker, as perf record writes it */
		struct perfring_event_header h = { PERFRING_RECORD_HEADER_FEATURE, 0, 16 };
		uint64_t id = PR_PD_FEAT_LAST_61;

		r = wr_out(w, &h, 8);
		if (!r)
			r = wr_out(w, &id, 8);
	}
	if (!r && w->hd.tdata.len) {
		/*
		 * As perf record: a 12-byte record giving the payload's size
		 * padded to 8, the payload, the padding.
		 */
		static const unsigned char zeros[8];
		unsigned char th[12];
		size_t al = PR_ALIGN8(w->hd.tdata.len);
		struct perfring_event_header h = {
			PERFRING_RECORD_HEADER_TRACING_DATA, 0, sizeof(th)
		};

		memcpy(th, &h, 8);
		pr_put32(th + 8, (uint32_t)al);
		r = wr_out(w, th, sizeof(th));
		if (!r)
			r = wr_out(w, w->hd.tdata.p, w->hd.tdata.len);
		if (!r)
			r = wr_out(w, zeros, al - w->hd.tdata.len);
		w->st.tracing_data = 1;
	}
	if (!r)
		r = pipe_build_ids(w);
	w->hd.data_offset = 0;
	return r;
}

static int write_file_start(struct perfring_writer *w)
{
	unsigned char zero[PR_PD_FILE_HEADER_SIZE] = { 0 };
	uint64_t ids_off = PR_PD_FILE_HEADER_SIZE;
	int i, r;

	r = wr_out(w, zero, sizeof(zero));	/* patched at close */
	for (i = 0; i < w->evs.nr_ev && !r; i++)
		r = wr_out(w, w->evs.ev[i].ids, 8u * w->evs.ev[i].nr_ids);
	for (i = 0; i < w->evs.nr_ev && !r; i++) {
		unsigned char ent[WR_MAX_ATTR_SIZE + 16];

		put_attr(ent, &w->evs.ev[i].attr, w->hd.attr_size);
		pr_put64(ent + w->hd.attr_size, ids_off);
		pr_put64(ent + w->hd.attr_size + 8, 8u * w->evs.ev[i].nr_ids);
		ids_off += 8u * w->evs.ev[i].nr_ids;
		r = wr_out(w, ent, w->hd.attr_size + 16);
	}
	w->hd.data_offset = wr_pos(w);
	return r;
}

/*
 * The tracefs name ("sys", "event") of tracepoint event e into sys/ev: its
 * name when that is "sys:event[:...]" with the event's id, else the
 * tracepoint of tracefs that has its id (*all: every tracepoint, listed
 * once when first needed).  0 or -ENOENT.
 */
static int tracepoint_of(const char *root, const struct wr_event *e,
			 struct perfring_tracepoint **all, int *nall,
			 char *sys, char *ev, size_t len)
{
	struct perfring_tracepoint *one = NULL;
	const char *c = strchr(e->name, ':'), *found = NULL;
	char pat[2 * PERFRING_TRACEPOINT_NAME_MAX];
	int i, n;

	if (c && c != e->name && !strpbrk(e->name, "*?[")) {
		snprintf(pat, sizeof(pat), "%s", e->name);
		c = strchr(pat, ':');
		if (strchr(c + 1, ':'))
			*strchr(c + 1, ':') = 0;	/* modifiers */
		n = perfring_tracepoints_find(root, pat, &one, NULL);
		if (n == 1 && one[0].id == e->attr.config)
			found = one[0].name;
	}
	if (!found) {
		if (!*all && *nall == 0)
			*nall = perfring_tracepoints_find(root, "*:*", all, NULL);
		for (i = 0; i < *nall && !found; i++)
			if ((*all)[i].id == e->attr.config)
				found = (*all)[i].name;
	}
	if (found) {
		size_t sl = strcspn(found, ":");

		snprintf(sys, len, "%.*s", (int)sl, found);
		snprintf(ev, len, "%s", found + sl + 1);
	}
	free(one);
	return found ? 0 : -ENOENT;
}

/* HEADER_TRACING_DATA of the tracepoint events, from tracefs. */
static void build_tracing_data(struct perfring_writer *w)
{
	struct perfring_tracepoint *all = NULL;
	struct perfring_diag d;
	struct pr_tp_ref *tps;
	char root[4096], err[600], (*names)[2][PERFRING_TRACEPOINT_NAME_MAX];
	size_t n = 0;
	int i, nall = 0;

	if (w->hd.tdata_given)
		return;
	for (i = 0; i < w->evs.nr_ev; i++)
		n += w->evs.ev[i].attr.type == PERFRING_TYPE_TRACEPOINT;
	if (!n)
		return;
	if (perfring_tracefs_dir(w->hd.tracefs, root, sizeof(root), &d) < 0) {
		char m[1024];

		pr_log(PERFRING_LOG_WARN, "%s: HEADER_TRACING_DATA left out (perf "
		       "script and perf report will not show the tracepoint "
		       "fields): %s", w->out.dname, perfring_diag_format(&d, m, sizeof(m)));
		return;
	}
	tps = calloc(n, sizeof(*tps));
	names = calloc(n, sizeof(*names));
	if (!tps || !names) {
		free(tps);
		free(names);
		pr_log(PERFRING_LOG_WARN, "%s: out of memory for the tracing data",
		       w->out.dname);
		return;
	}
	n = 0;
	for (i = 0; i < w->evs.nr_ev; i++) {
		const struct wr_event *e = &w->evs.ev[i];

		if (e->attr.type != PERFRING_TYPE_TRACEPOINT)
			continue;
		if (tracepoint_of(root, e, &all, &nall, names[n][0], names[n][1],
				  PERFRING_TRACEPOINT_NAME_MAX) < 0) {
			pr_log(PERFRING_LOG_WARN, "%s: HEADER_TRACING_DATA left out: "
			       "event %d (%s): no tracepoint with id %" PRIu64 " in "
			       "%s/events", w->out.dname, i, e->name, e->attr.config, root);
			goto out;
		}
		tps[n].sys = names[n][0];
		tps[n].name = names[n][1];
		n++;
	}
	if (pr_tracing_data(root, tps, n, &w->hd.tdata, err, sizeof(err)) < 0) {
		pr_log(PERFRING_LOG_WARN, "%s: HEADER_TRACING_DATA left out: %s",
		       w->out.dname, err);
		free(w->hd.tdata.p);
		memset(&w->hd.tdata, 0, sizeof(w->hd.tdata));
	}
out:
	free(all);
	free(tps);
	free(names);
}

int wr_start(struct perfring_writer *w)
{
	int i, need_kernel = 0, r;
	size_t k;

	if (w->started)
		return w->err;
	if (w->err)
		return w->err;
	if (!w->evs.nr_ev)
		return wr_fail(w, -EINVAL, "no event was added before the first "
			       "record (perfring_writer_add_event)");

	for (i = 0; i < w->evs.nr_ev; i++)
		if (!(w->evs.ev[i].attr.flags & PERFRING_ATTR_EXCLUDE_KERNEL))
			need_kernel = 1;
	if (need_kernel && w->hd.kmap == PERFRING_WRITER_KMAP_AUTO) {
		uint64_t text, etext;

		read_kallsyms(w->hd.kallsyms, &text, &etext);
		if (text) {
			w->hd.kstart = text;
			w->hd.klen = etext > text ? etext - text : UINT64_MAX - text;
		}
	}
	if (need_kernel && !w->hd.klen && w->hd.kmap != PERFRING_WRITER_KMAP_NONE) {
		for (i = 0; i < w->evs.nr_ev; i++)
			w->evs.ev[i].attr.flags |= PERFRING_ATTR_EXCLUDE_KERNEL;
		w->st.exclude_kernel_set = 1;
		if (w->hd.kmap == PERFRING_WRITER_KMAP_AUTO)
			pr_log(PERFRING_LOG_WARN, "%s: %s gives no address for _text: "
			       "exclude_kernel set in the written events so that perf "
			       "report does not warn about kernel maps", w->out.dname,
			       w->hd.kallsyms);
	}

	w->hd.attr_size = PERFRING_ATTR_SIZE_VER0;
	for (i = 0; i < w->evs.nr_ev; i++) {
		uint32_t s = wr_attr_needed_size(&w->evs.ev[i].attr);

		if (s > w->hd.attr_size)
			w->hd.attr_size = s;
	}
	if (w->out.pipe)
		w->hd.attr_size = WR_PIPE_ATTR_SIZE;
	for (i = 0; i < w->evs.nr_ev; i++)
		w->evs.ev[i].attr.size = w->hd.attr_size;

	w->evs.nr_idmap = 0;
	for (i = 0; i < w->evs.nr_ev; i++)
		w->evs.nr_idmap += w->evs.ev[i].nr_ids;
	w->evs.idmap = calloc(w->evs.nr_idmap ? w->evs.nr_idmap : 1, sizeof(*w->evs.idmap));
	if (!w->evs.idmap)
		return wr_fail(w, -ENOMEM, "out of memory");
	for (i = 0, k = 0; i < w->evs.nr_ev; i++) {
		uint32_t j;

		for (j = 0; j < w->evs.ev[i].nr_ids; j++, k++) {
			w->evs.idmap[k].id = w->evs.ev[i].ids[j];
			w->evs.idmap[k].ev = (uint32_t)i;
		}
	}
	qsort(w->evs.idmap, w->evs.nr_idmap, sizeof(*w->evs.idmap), wr_idmap_cmp);

	if (w->evs.ev[0].attr.flags & PERFRING_ATTR_USE_CLOCKID) {
		clockid_t c = w->evs.ev[0].attr.clockid;

		w->hd.have_clock = !clock_getres(c, &w->hd.clk_res) &&
				!clock_gettime(CLOCK_REALTIME, &w->hd.clk_tod) &&
				!clock_gettime(c, &w->hd.clk_ref);
	}

	build_tracing_data(w);
	if (!w->out.pipe)
		w->st.tracing_data = w->hd.tdata.len > 0;

	w->started = 1;
	r = w->out.pipe ? write_pipe_start(w) : write_file_start(w);
	if (!r && w->hd.klen)
		r = write_kernel_mmap(w);
	return r;
}


int wr_write_features(struct perfring_writer *w)
{
	struct pr_buf tab = { 0 }, pay = { 0 }, b = { 0 };
	uint64_t bitmap[4] = { 0 };
	uint64_t data_size, table_off, off;
	unsigned char hdr[PR_PD_FILE_HEADER_SIZE];
	int i, nr = 0, r;
	struct { int feat; size_t off, len; } got[PR_PD_NR_FEAT_IDS];

	r = wr_flush(w);
	if (r < 0)
		return r;
	data_size = w->out.opos - w->hd.data_offset;
	table_off = w->out.opos;
	for (i = next_feat(w, 0); i < (int)PR_PD_NR_FEAT_IDS; i = next_feat(w, i)) {
		size_t before = pay.len;

		b.len = 0;
		if (!feat_build(w, i, &b))
			continue;
		pr_buf_put(&pay, b.p, b.len);
		got[nr].feat = i;
		got[nr].off = before;
		got[nr].len = b.len;
		nr++;
		bitmap[i / 64] |= 1ull << (i % 64);
	}
	off = table_off + 16u * (uint64_t)nr;
	for (i = 0; i < nr; i++) {
		buf_u64(&tab, off + got[i].off);
		buf_u64(&tab, got[i].len);
	}
	if (tab.oom || pay.oom || b.oom) {
		r = wr_fail(w, -ENOMEM, "out of memory");
		goto out;
	}
	r = wr_out(w, tab.p, tab.len);
	if (!r)
		r = wr_out(w, pay.p, pay.len);
	if (!r)
		r = wr_flush(w);
	if (r < 0)
		goto out;

	memset(hdr, 0, sizeof(hdr));
	pr_put64(hdr, PR_PD_MAGIC);
	pr_put64(hdr + 8, PR_PD_FILE_HEADER_SIZE);
	pr_put64(hdr + 16, w->hd.attr_size + 16u);
	pr_put64(hdr + 24, w->hd.data_offset - (uint64_t)w->evs.nr_ev * (w->hd.attr_size + 16u));
	pr_put64(hdr + 32, (uint64_t)w->evs.nr_ev * (w->hd.attr_size + 16u));
	pr_put64(hdr + 40, w->hd.data_offset);
	pr_put64(hdr + 48, data_size);
	/* event_types: zeros */
	for (i = 0; i < 4; i++)
		pr_put64(hdr + 72 + 8 * i, bitmap[i]);
	r = wr_write_all(w, hdr, sizeof(hdr), 0);
	/* a caller's file may be longer; blocks reserved past the end are given back */
	if (!r && (w->out.file_on_fd || w->out.reserved) &&
	    ftruncate(w->out.fd, (off_t)w->out.opos) < 0)
		r = wr_fail(w, -errno, "truncating: %s", strerror(errno));
out:
	free(tab.p);
	free(pay.p);
	free(b.p);
	return r;
}
