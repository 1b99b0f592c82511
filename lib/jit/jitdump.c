/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jitdump files: a stream reader (either byte order, records stepped by
 * their own size, a file still being written ends cleanly after its last
 * whole record) and a writer for runtimes written in C.  Layout: doc/jit.md.
 */
#include "config.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit/internal.h"

#define HDR_SIZE 40u
#define PREFIX 16u
/* Largest record read: far above any function or unwind table a JIT emits,
 * and a bound on what a damaged size field can make the reader allocate. */
#define REC_MAX (256u << 20)
#define READ_CHUNK (256u << 10)

/* Fixed part of each known record type, prefix included. */
static const uint32_t fixed_size[5] = { 56, 64, 32, 16, 40 };

struct perfring_jitdump {
	char name[256];
	int fd;			/* -1: memory */
	const uint8_t *mem;	/* memory input, or the buffer */
	uint8_t *buf;
	size_t cap;
	size_t pos, end;	/* valid bytes: mem[pos, end) */
	uint64_t base;		/* file offset of mem[0] */
	int eof;
	int failed;		/* sticky -errno */
	int done;
	struct perfring_jitdump_header hdr;
	struct perfring_jitdump_stats st;
};

static uint32_t rd32(const struct perfring_jitdump *r, const uint8_t *p)
{
	uint32_t v = pr_get32(p);

	return r->hdr.swapped ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct perfring_jitdump *r, const uint8_t *p)
{
	uint64_t v = pr_get64(p);

	return r->hdr.swapped ? __builtin_bswap64(v) : v;
}

/*
 * Make n bytes available at mem + pos if the input has them.  Returns the
 * number available (less than n only at the end of the input) or -errno.
 */
static ssize_t fill(struct perfring_jitdump *r, size_t n)
{
	if (r->fd < 0 || r->end - r->pos >= n || r->eof)
		return (ssize_t)(r->end - r->pos < n ? r->end - r->pos : n);
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->base += r->pos;
		r->end -= r->pos;
		r->pos = 0;
	}
	if (n > r->cap) {
		size_t cap = r->cap;
		uint8_t *nb;

		while (cap < n)
			cap *= 2;
		nb = realloc(r->buf, cap);
		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = cap;
		r->mem = nb;
	}
	while (r->end < n) {
		ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0) {
			r->eof = 1;
			break;
		}
		r->end += (size_t)got;
	}
	return (ssize_t)(r->end < n ? r->end : n);
}

/* Bytes of the input from the current position on, as far as known now. */
static uint64_t remaining(struct perfring_jitdump *r)
{
	struct stat sb;

	if (r->fd < 0 || r->eof)
		return r->end - r->pos;
	/* A pipe: unknown, fill() finds out (with the REC_MAX bound). */
	if (fstat(r->fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		return UINT64_MAX;
	if ((uint64_t)sb.st_size < r->base + r->pos)
		return 0;
	return (uint64_t)sb.st_size - (r->base + r->pos);
}

static int bad(struct perfring_jitdump *r, struct perfring_diag *diag, uint64_t off,
	       const char *fmt, ...) PR_PRINTF(4, 5);

static int bad(struct perfring_jitdump *r, struct perfring_diag *diag, uint64_t off,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_diag_vset(diag, -EBADMSG, r->name, off, fmt, ap);
	va_end(ap);
	r->failed = -EBADMSG;
	return -EBADMSG;
}

static int read_failed(struct perfring_jitdump *r, struct perfring_diag *diag,
		       uint64_t off, int err)
{
	pr_diag_set(diag, err, r->name, off, "cannot read: %s", strerror(-err));
	return r->failed = err;
}

static int read_header(struct perfring_jitdump *r, struct perfring_diag *diag)
{
	ssize_t got = fill(r, HDR_SIZE);
	const uint8_t *p;
	uint32_t magic;

	if (got < 0)
		return read_failed(r, diag, 0, (int)got);
	if (got < 4)
		return bad(r, diag, 0, "not a jitdump file: %zd bytes, no magic", got);
	p = r->mem + r->pos;
	magic = pr_get32(p);
	if (magic == __builtin_bswap32(PERFRING_JITDUMP_MAGIC))
		r->hdr.swapped = 1;
	else if (magic != PERFRING_JITDUMP_MAGIC)
		return bad(r, diag, 0, "not a jitdump file: magic 0x%08" PRIx32
			   " (expected 0x%08x \"JiTD\" in either byte order)", magic,
			   PERFRING_JITDUMP_MAGIC);
	if (got < HDR_SIZE)
		return bad(r, diag, (uint64_t)got, "jitdump header cut short: %zd of %u bytes",
			   got, HDR_SIZE);
	r->hdr.magic = magic;
	r->hdr.version = rd32(r, p + 4);
	r->hdr.total_size = rd32(r, p + 8);
	r->hdr.elf_mach = rd32(r, p + 12);
	r->hdr.pad1 = rd32(r, p + 16);
	r->hdr.pid = rd32(r, p + 20);
	r->hdr.timestamp = rd64(r, p + 24);
	r->hdr.flags = rd64(r, p + 32);
	if (r->hdr.version != PERFRING_JITDUMP_VERSION)
		return bad(r, diag, 4, "jitdump version %" PRIu32 " (only version 1 exists)",
			   r->hdr.version);
	if (r->hdr.total_size < HDR_SIZE || r->hdr.total_size > REC_MAX)
		return bad(r, diag, 8, "jitdump header size %" PRIu32 " (expected 40 or more)",
			   r->hdr.total_size);
	if (r->hdr.flags & ~PERFRING_JITDUMP_FLAG_ARCH_TIMESTAMP)
		return bad(r, diag, 32, "unknown jitdump header flags 0x%" PRIx64, r->hdr.flags);
	/* Skip the header, extra bytes included. */
	got = fill(r, r->hdr.total_size);
	if (got < 0)
		return read_failed(r, diag, 0, (int)got);
	if ((size_t)got < r->hdr.total_size)
		return bad(r, diag, HDR_SIZE, "jitdump header of %" PRIu32 " bytes cut short",
			   r->hdr.total_size);
	r->pos += r->hdr.total_size;
	r->st.bytes = r->hdr.total_size;
	return 0;
}

static struct perfring_jitdump *new_reader(const char *name)
{
	struct perfring_jitdump *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "jitdump");
	r->fd = -1;
	return r;
}

PERFRING_API int perfring_jitdump_open(const char *path, struct perfring_diag *diag,
				       struct perfring_jitdump **out)
{
	struct perfring_jitdump *r;
	int err;

	if (!path || !out) {
		pr_diag_set(diag, -EINVAL, path, PR_NO_OFFSET, "no path");
		return -EINVAL;
	}
	*out = NULL;
	r = new_reader(path);
	if (!r)
		return -ENOMEM;
	r->cap = READ_CHUNK;
	r->buf = malloc(r->cap);
	r->mem = r->buf;
	if (!r->buf) {
		free(r);
		return -ENOMEM;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		err = -errno;
		pr_diag_set(diag, err, path, PR_NO_OFFSET, "cannot open: %s", strerror(-err));
		perfring_jitdump_close(r);
		return err;
	}
	err = read_header(r, diag);
	if (err) {
		perfring_jitdump_close(r);
		return err;
	}
	*out = r;
	return 0;
}

PERFRING_API int perfring_jitdump_open_mem(const void *data, size_t len, const char *name,
					   struct perfring_diag *diag,
					   struct perfring_jitdump **out)
{
	struct perfring_jitdump *r;
	int err;

	if (!out || (!data && len))
		return -EINVAL;
	*out = NULL;
	r = new_reader(name);
	if (!r)
		return -ENOMEM;
	r->mem = data;
	r->end = len;
	r->eof = 1;
	err = read_header(r, diag);
	if (err) {
		perfring_jitdump_close(r);
		return err;
	}
	*out = r;
	return 0;
}

PERFRING_API const struct perfring_jitdump_header *
perfring_jitdump_header(const struct perfring_jitdump *r)
{
	return r ? &r->hdr : NULL;
}

PERFRING_API void perfring_jitdump_close(struct perfring_jitdump *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r);
}

PERFRING_API int perfring_jitdump_get_stats(const struct perfring_jitdump *r,
					    struct perfring_jitdump_stats *st)
{
	struct perfring_jitdump_stats none = { .sz = sizeof(none) };

	if (!st)
		return -EINVAL;
	return perfring_struct_fill(st, sizeof(none), r ? &r->st : &none, sizeof(none));
}

/* Length of the NUL-terminated string at p within n bytes, or -1. */
static ssize_t str_in(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, 0, n);

	return z ? z - p : -1;
}

static int decode(struct perfring_jitdump *r, const uint8_t *p, uint32_t size,
		  struct perfring_jit_record *rec, struct perfring_diag *diag)
{
	uint64_t off = rec->offset;

	switch (rec->id) {
	case PERFRING_JIT_CODE_LOAD: {
		ssize_t nl;

		rec->u.load.pid = rd32(r, p + 16);
		rec->u.load.tid = rd32(r, p + 20);
		rec->u.load.vma = rd64(r, p + 24);
		rec->u.load.code_addr = rd64(r, p + 32);
		rec->u.load.code_size = rd64(r, p + 40);
		rec->u.load.code_index = rd64(r, p + 48);
		if (rec->u.load.code_size > size - 56u)
			return bad(r, diag, off, "CODE_LOAD: code_size %" PRIu64
				   " does not fit the record of %" PRIu32 " bytes",
				   rec->u.load.code_size, size);
		nl = str_in(p + 56, size - 56u - rec->u.load.code_size);
		if (nl < 0)
			return bad(r, diag, off + 56, "CODE_LOAD: function name without NUL");
		rec->u.load.name = (const char *)(p + 56);
		rec->u.load.code = p + size - rec->u.load.code_size;
		break;
	}
	case PERFRING_JIT_CODE_MOVE:
		rec->u.move.pid = rd32(r, p + 16);
		rec->u.move.tid = rd32(r, p + 20);
		rec->u.move.vma = rd64(r, p + 24);
		rec->u.move.old_code_addr = rd64(r, p + 32);
		rec->u.move.new_code_addr = rd64(r, p + 40);
		rec->u.move.code_size = rd64(r, p + 48);
		rec->u.move.code_index = rd64(r, p + 56);
		break;
	case PERFRING_JIT_CODE_DEBUG_INFO: {
		size_t pos = 32;

		rec->u.debug.code_addr = rd64(r, p + 16);
		rec->u.debug.nr_entry = rd64(r, p + 24);
		rec->u.debug.swapped = r->hdr.swapped;
		/* Walk by nr_entry (the record may be padded). */
		for (uint64_t i = 0; i < rec->u.debug.nr_entry; i++) {
			ssize_t nl;

			if (size - pos < 17)
				return bad(r, diag, off + pos, "DEBUG_INFO: entry %" PRIu64
					   " of %" PRIu64 " runs past the record",
					   i, rec->u.debug.nr_entry);
			nl = str_in(p + pos + 16, size - pos - 16);
			if (nl < 0)
				return bad(r, diag, off + pos + 16,
					   "DEBUG_INFO: entry %" PRIu64 ": file name without NUL", i);
			pos += 16 + (size_t)nl + 1;
		}
		rec->u.debug.entries = p + 32;
		rec->u.debug.entries_len = pos - 32;
		break;
	}
	case PERFRING_JIT_CODE_CLOSE:
		break;
	case PERFRING_JIT_CODE_UNWINDING_INFO:
		rec->u.unwind.unwinding_size = rd64(r, p + 16);
		rec->u.unwind.eh_frame_hdr_size = rd64(r, p + 24);
		rec->u.unwind.mapped_size = rd64(r, p + 32);
		if (rec->u.unwind.unwinding_size > size - 40u)
			return bad(r, diag, off + 16, "UNWINDING_INFO: unwinding_size %" PRIu64
				   " does not fit the record of %" PRIu32 " bytes",
				   rec->u.unwind.unwinding_size, size);
		if (rec->u.unwind.eh_frame_hdr_size > rec->u.unwind.unwinding_size)
			return bad(r, diag, off + 24, "UNWINDING_INFO: eh_frame_hdr_size %" PRIu64
				   " above unwinding_size %" PRIu64,
				   rec->u.unwind.eh_frame_hdr_size, rec->u.unwind.unwinding_size);
		rec->u.unwind.data = p + 40;
		break;
	}
	return 0;
}

static int jd_next(struct perfring_jitdump *r, struct perfring_jit_record *rec,
		   struct perfring_diag *diag)
{
	for (;;) {
		const uint8_t *p;
		uint32_t id, size;
		uint64_t off;
		ssize_t got;
		int err;

		if (!r || !rec)
			return -EINVAL;
		if (r->failed)
			return r->failed;
		if (r->done)
			return 0;
		off = r->base + r->pos;
		got = fill(r, PREFIX);
		if (got < 0)
			return read_failed(r, diag, off, (int)got);
		if ((size_t)got < PREFIX) {
			r->st.truncated_bytes = (uint64_t)got;
			r->done = 1;
			return 0;
		}
		p = r->mem + r->pos;
		id = rd32(r, p);
		size = rd32(r, p + 4);
		if (size < PREFIX || (id < 5 && size < fixed_size[id]))
			return bad(r, diag, off, "record type %" PRIu32 ": size %" PRIu32
				   " below its fixed part of %" PRIu32 " bytes", id, size,
				   id < 5 ? fixed_size[id] : PREFIX);
		if (size > REC_MAX)
			return bad(r, diag, off, "record type %" PRIu32 ": size %" PRIu32
				   " above the %u MiB limit", id, size, REC_MAX >> 20);
		/* (fstat only when the buffer does not hold the record yet) */
		if (r->end - r->pos < size && remaining(r) < size) {
			/* A record still being written: stop after the last whole one. */
			r->st.truncated_bytes = remaining(r);
			r->done = 1;
			return 0;
		}
		got = fill(r, size);
		if (got < 0)
			return read_failed(r, diag, off, (int)got);
		if ((size_t)got < size) {
			r->st.truncated_bytes = (uint64_t)got;
			r->done = 1;
			return 0;
		}
		p = r->mem + r->pos;
		memset(rec, 0, sizeof(*rec));
		rec->id = id;
		rec->total_size = size;
		rec->timestamp = rd64(r, p + 8);
		rec->offset = off;
		if (id >= 5) {
			r->pos += size;
			r->st.bytes += size;
			r->st.unknown++;
			continue;
		}
		err = decode(r, p, size, rec, diag);
		if (err)
			return err;
		r->pos += size;
		r->st.bytes += size;
		r->st.records[id]++;
		if (id == PERFRING_JIT_CODE_CLOSE) {
			r->st.closed = 1;
			r->done = 1;
		}
		return 1;
	}
}

static int jd_debug_entry_next(const struct perfring_jit_record *rec, size_t *pos,
			       struct perfring_jit_debug_entry *e);

PERFRING_API int perfring_jit_debug_entry_next(const struct perfring_jit_record *rec,
					       size_t *pos,
					       struct perfring_jit_debug_entry *e)
{
	struct perfring_jit_debug_entry x = { .sz = sizeof(x) };
	int ret;

	if (!e || e->sz < sizeof(x))
		return -EINVAL;
	ret = jd_debug_entry_next(rec, pos, &x);
	if (ret == 1)
		perfring_struct_fill(e, sizeof(x), &x, sizeof(x));
	return ret;
}

PERFRING_API int perfring_jitdump_next(struct perfring_jitdump *r,
				       struct perfring_jit_record *rec,
				       struct perfring_diag *diag)
{
	struct perfring_jit_record x;
	int ret;

	if (!r || !rec || rec->sz < sizeof(x))
		return -EINVAL;
	ret = jd_next(r, &x, diag);
	if (ret == 1) {
		x.sz = sizeof(x);
		perfring_struct_fill(rec, sizeof(x), &x, sizeof(x));
	}
	return ret;
}

static int jd_debug_entry_next(const struct perfring_jit_record *rec, size_t *pos,
			       struct perfring_jit_debug_entry *e)
{
	const uint8_t *p;
	size_t left;
	uint64_t a;
	uint32_t l, d;

	if (!rec || !pos || !e || rec->id != PERFRING_JIT_CODE_DEBUG_INFO ||
	    *pos >= rec->u.debug.entries_len)
		return 0;
	p = rec->u.debug.entries + *pos;
	left = rec->u.debug.entries_len - *pos;
	if (left < 17 || !memchr(p + 16, 0, left - 16))
		return 0;
	a = pr_get64(p);
	l = pr_get32(p + 8);
	d = pr_get32(p + 12);
	if (rec->u.debug.swapped) {
		a = __builtin_bswap64(a);
		l = __builtin_bswap32(l);
		d = __builtin_bswap32(d);
	}
	e->addr = a;
	e->lineno = (int32_t)l;
	e->discrim = (int32_t)d;
	e->file = (const char *)(p + 16);
	*pos += 16 + strlen(e->file) + 1;
	return 1;
}

PERFRING_API int perfring_jitdump_is_marker(const char *path, uint32_t pid)
{
	const char *b, *d;
	uint64_t v = 0;

	if (!path)
		return 0;
	b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (strncmp(b, "jit-", 4) != 0)
		return 0;
	d = b + 4;
	if (!isdigit((unsigned char)*d))
		return 0;
	for (; isdigit((unsigned char)*d); d++) {
		v = v * 10 + (uint64_t)(*d - '0');
		if (v > UINT32_MAX)
			return 0;
	}
	if (strcmp(d, ".dump") != 0)
		return 0;
	return pid == 0 || v == pid;
}

/* ---- writer ----------------------------------------------------------------- */

struct perfring_jitdump_writer {
	int fd;
	void *marker;
	size_t marker_len;
	uint64_t next_index;
	int err;		/* first write error */
	char path[4096];
};

PERFRING_API uint64_t perfring_jit_timestamp(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t pr_jit_host_machine(void)
{
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#elif defined(__i386__)
	return EM_386;
#elif defined(__arm__)
	return EM_ARM;
#elif defined(__powerpc64__)
	return EM_PPC64;
#elif defined(__s390x__)
	return EM_S390;
#elif defined(__riscv)
	return EM_RISCV;
#else
	return EM_NONE;
#endif
}

/* One write(2) per record, so a concurrent reader sees whole records. */
static int put(struct perfring_jitdump_writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;

	if (w->err)
		return w->err;
	while (n) {
		ssize_t got = write(w->fd, b, n);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return w->err = -errno;
		}
		b += got;
		n -= (size_t)got;
	}
	return 0;
}

PERFRING_API int perfring_jitdump_writer_open(const char *dir, struct perfring_diag *diag,
					      struct perfring_jitdump_writer **out)
{
	struct perfring_jitdump_writer *w;
	uint8_t h[HDR_SIZE];
	long page = sysconf(_SC_PAGESIZE);
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	snprintf(w->path, sizeof(w->path), "%s/jit-%ld.dump", dir ? dir : ".",
		 (long)getpid());
	/* Readable as well: a PROT_READ mapping of a write-only fd fails. */
	w->fd = open(w->path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = -errno;
		pr_diag_set(diag, err, w->path, PR_NO_OFFSET, "cannot create: %s", strerror(-err));
		free(w);
		return err;
	}
	pr_put32(h, PERFRING_JITDUMP_MAGIC);
	pr_put32(h + 4, PERFRING_JITDUMP_VERSION);
	pr_put32(h + 8, HDR_SIZE);
	pr_put32(h + 12, pr_jit_host_machine());
	pr_put32(h + 16, 0);
	pr_put32(h + 20, (uint32_t)getpid());
	pr_put64(h + 24, perfring_jit_timestamp());
	pr_put64(h + 32, 0);
	err = put(w, h, sizeof(h));
	if (err) {
		pr_diag_set(diag, err, w->path, 0, "cannot write: %s", strerror(-err));
		goto fail;
	}
	/* The marker: an executable mapping, so the kernel reports it even
	 * without data-mmap recording. */
	w->marker_len = page > 0 ? (size_t)page : 4096;
	w->marker = mmap(NULL, w->marker_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, w->fd, 0);
	if (w->marker == MAP_FAILED) {
		err = -errno;
		w->marker = NULL;
		pr_diag_set(diag, err, w->path, PR_NO_OFFSET, "cannot map the marker: %s",
			    strerror(-err));
		goto fail;
	}
	*out = w;
	return 0;
fail:
	close(w->fd);
	unlink(w->path);
	free(w);
	return err;
}

PERFRING_API const char *perfring_jitdump_writer_path(const struct perfring_jitdump_writer *w)
{
	return w ? w->path : NULL;
}

static void prefix(uint8_t *p, uint32_t id, uint32_t size)
{
	pr_put32(p, id);
	pr_put32(p + 4, size);
	pr_put64(p + 8, perfring_jit_timestamp());
}

PERFRING_API int perfring_jitdump_write_load(struct perfring_jitdump_writer *w,
					     const char *name, uint64_t addr,
					     const void *code, uint64_t size,
					     uint64_t *code_index)
{
	size_t nl, total;
	uint8_t *p;
	int err;

	if (!w || !name || (!code && size))
		return -EINVAL;
	nl = strlen(name) + 1;
	if (size > REC_MAX || nl > REC_MAX || 56 + nl + size > REC_MAX)
		return -E2BIG;
	total = 56 + nl + (size_t)size;
	p = malloc(total);
	if (!p)
		return -ENOMEM;
	prefix(p, PERFRING_JIT_CODE_LOAD, (uint32_t)total);
	pr_put32(p + 16, (uint32_t)getpid());
	pr_put32(p + 20, (uint32_t)gettid());
	pr_put64(p + 24, addr);
	pr_put64(p + 32, addr);
	pr_put64(p + 40, size);
	pr_put64(p + 48, w->next_index);
	memcpy(p + 56, name, nl);
	if (size)
		memcpy(p + 56 + nl, code, (size_t)size);
	err = put(w, p, total);
	free(p);
	if (err)
		return err;
	if (code_index)
		*code_index = w->next_index;
	w->next_index++;
	return 0;
}

PERFRING_API int perfring_jitdump_write_move(struct perfring_jitdump_writer *w,
					     uint64_t code_index, uint64_t old_addr,
					     uint64_t new_addr, uint64_t size)
{
	uint8_t p[64];

	if (!w)
		return -EINVAL;
	prefix(p, PERFRING_JIT_CODE_MOVE, sizeof(p));
	pr_put32(p + 16, (uint32_t)getpid());
	pr_put32(p + 20, (uint32_t)gettid());
	pr_put64(p + 24, new_addr);
	pr_put64(p + 32, old_addr);
	pr_put64(p + 40, new_addr);
	pr_put64(p + 48, size);
	pr_put64(p + 56, code_index);
	return put(w, p, sizeof(p));
}

PERFRING_API int perfring_jitdump_write_debug_info(struct perfring_jitdump_writer *w,
						   uint64_t code_addr,
						   const struct perfring_jit_debug_entry *e,
						   size_t nr)
{
	size_t total = 32, pos;
	uint8_t *p;
	int err;

	struct perfring_jit_debug_entry x;

	if (!w || (!e && nr))
		return -EINVAL;
	for (size_t i = 0; i < nr; i++) {
		/* a versioned array: strided by e[0].sz (perfring.h) */
		if (pr_array_load(&x, sizeof(x), e, i, sizeof(x), "perfring_jit_debug_entry",
				  NULL, NULL) || !x.file)
			return -EINVAL;
		total += 16 + strlen(x.file) + 1;
		if (total > REC_MAX)
			return -E2BIG;
	}
	total = PR_ALIGN8(total);
	p = calloc(1, total);
	if (!p)
		return -ENOMEM;
	prefix(p, PERFRING_JIT_CODE_DEBUG_INFO, (uint32_t)total);
	pr_put64(p + 16, code_addr);
	pr_put64(p + 24, nr);
	pos = 32;
	for (size_t i = 0; i < nr; i++) {
		size_t fl;

		pr_array_load(&x, sizeof(x), e, i, sizeof(x), "perfring_jit_debug_entry", NULL,
			      NULL);	/* checked above */
		fl = strlen(x.file) + 1;
		pr_put64(p + pos, x.addr);
		pr_put32(p + pos + 8, (uint32_t)x.lineno);
		pr_put32(p + pos + 12, (uint32_t)x.discrim);
		memcpy(p + pos + 16, x.file, fl);
		pos += 16 + fl;
	}
	err = put(w, p, total);
	free(p);
	return err;
}

PERFRING_API int perfring_jitdump_writer_close(struct perfring_jitdump_writer *w)
{
	uint8_t p[PREFIX];
	int err;

	if (!w)
		return 0;
	prefix(p, PERFRING_JIT_CODE_CLOSE, PREFIX);
	err = put(w, p, sizeof(p));
	if (w->marker)
		munmap(w->marker, w->marker_len);
	if (close(w->fd) < 0 && !err)
		err = -errno;
	free(w);
	return err;
}
