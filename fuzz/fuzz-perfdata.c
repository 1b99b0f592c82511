/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the perf.data reader (lib/perfdata*.c), file and pipe mode.
 *
 * Input: the bytes of a perf.data file, as is.  The last byte picks how
 * they are read (see LLVMFuzzerTestOneInput): in short reads of 1..97
 * bytes, as a slow writer gives, or whole; and a pipe-mode stream from a
 * memfd or from a pipe.  File-mode data is read:
 * - from a memfd (seekable), through the sources API and the validator;
 * - from a pipe, which must refuse it with -ESPIPE;
 * - and, padded past the read window, mapped (mapped_vs_read), which must
 *   give what the memfd gave.
 * Short reads and the reads of larger inputs are served from memory (see
 * below); a whole read of a small input goes through the kernel (a real
 * pipe, or the memfd).  Every record is read (SAMPLE records are also run
 * through perfring_sample_decode with the attr the reader resolved), every
 * attr is looked at, and every feature is loaded and formatted, before and
 * after the records.
 * Checked: no memory error or leak; record sizes are 8..65535 and the
 * whole record is readable; errors are the documented ones, sticky, with a
 * NUL-terminated diagnostic; feature_format keeps snprintf semantics; and
 * the mapped read gives the records and the error of the memfd read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "fuzz.h"

/*
 * Reads served from memory: while short_fd is set, read(2) and pread(2)
 * on it, and on the duplicate the reader makes of it (short_dup: it reads
 * from its own fd), copy the input from memory (short_src, short_len;
 * short_off is the shared file position), at most short_chunk bytes per
 * call, as a pipe fed by a slow writer gives.  These definitions interpose
 * on the library's calls (it is a shared library); everything else
 * (libFuzzer, stdio) reads through other entry points.
 *
 * Not through the kernel: with chunks of 1..97 bytes a real fd took one
 * system call per chunk, thousands per input, and that was most of an
 * execution.  The fd itself is real (a pipe, or the memfd of the input's
 * size), so fstat and lseek answer as for the real thing; the file
 * position of the memfd stays 0, where the emulated one starts.  pread on
 * a pipe gives ESPIPE, as the kernel does.  Whole reads of small inputs go
 * through the kernel (see LLVMFuzzerTestOneInput).
 */
static int short_fd = -1, short_dup = -1, short_is_pipe;
static size_t short_chunk = SIZE_MAX;
static const uint8_t *short_src;
static size_t short_len, short_off, short_calls;

__attribute__((visibility("default"))) ssize_t read(int fd, void *buf, size_t n);
__attribute__((visibility("default"))) ssize_t pread(int fd, void *buf, size_t n, off_t off);
__attribute__((visibility("default"))) int fcntl(int fd, int cmd, ...);

/* Not instrumented for coverage: called once per chunk, thousands of times. */
#if defined(__clang__)
#define FUZZ_NO_COV __attribute__((no_sanitize("coverage")))
#else
#define FUZZ_NO_COV
#endif

FUZZ_NO_COV static ssize_t short_copy(void *buf, size_t n, size_t off)
{
	if (n > short_chunk)
		n = short_chunk;
	if (off >= short_len)
		return 0;
	if (n > short_len - off)
		n = short_len - off;
	memcpy(buf, short_src + off, n);
	return (ssize_t)n;
}

/* fd is the one served from memory, or the reader's duplicate of it? */
FUZZ_NO_COV static int served(int fd)
{
	return short_src && fd >= 0 && (fd == short_fd || fd == short_dup);
}

FUZZ_NO_COV ssize_t read(int fd, void *buf, size_t n)
{
	if (served(fd)) {
		ssize_t k = short_copy(buf, n, short_off);

		short_calls++;
		short_off += (size_t)k;
		return k;
	}
	return syscall(SYS_read, fd, buf, n);
}

FUZZ_NO_COV ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (served(fd)) {
		short_calls++;
		if (short_is_pipe) {
			errno = ESPIPE;
			return -1;
		}
		if (off < 0) {
			errno = EINVAL;
			return -1;
		}
		return short_copy(buf, n, (size_t)off);
	}
	return syscall(SYS_pread64, fd, buf, n, off);
}

/* As the C library's (the third argument read as glibc does); notes short_dup. */
FUZZ_NO_COV int fcntl(int fd, int cmd, ...)
{
	unsigned long arg;
	va_list ap;
	long r;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	r = syscall(SYS_fcntl, fd, cmd, arg);
	if (r >= 0 && fd == short_fd && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		short_dup = (int)r;
	return (int)r;
}

/* Serve reads of fd from data[0, size) in chunks of short_chunk bytes. */
static void short_from_memory(int fd, const uint8_t *data, size_t size, int is_pipe)
{
	short_fd = fd;
	short_is_pipe = is_pipe;
	short_src = data;
	short_len = size;
	short_off = 0;
	short_calls = 0;
}

/* The reads were served: the reader reads the first 16 bytes of any input. */
static void short_off_all(void)
{
	FUZZ_ASSERT(!short_src || short_len < 16 || short_calls > 0);
	short_fd = -1;
	short_dup = -1;
	short_src = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static int make_memfd(void)
{
#ifdef SYS_memfd_create
	int fd = (int)syscall(SYS_memfd_create, "fuzz-perfdata", 0);

	if (fd >= 0)
		return fd;
#endif
	{
		char tmpl[] = "/tmp/fuzz-perfdata-XXXXXX";
		int fd2 = mkstemp(tmpl);

		if (fd2 >= 0)
			unlink(tmpl);
		return fd2;
	}
}

/* Write d[0, n) to fd at off, or (off < 0) at its file position. */
static int write_all(int fd, const uint8_t *d, size_t n, off_t off)
{
	while (n) {
		ssize_t w = off < 0 ? write(fd, d, n) : pwrite(fd, d, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		d += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

/* The way this input is read (see LLVMFuzzerTestOneInput). */
static uint64_t way;

/*
 * A buffer of n bytes for a formatted feature (fuzz_kept: a malloc per
 * feature was a tenth of an execution; a write past n is still reported).
 */
static char *format_buf(size_t n)
{
	static void *buf;
	static size_t cap;

	return fuzz_kept(&buf, &cap, n);
}

/*
 * Before the records (after 0): load and format every feature.  After
 * them: load one, which the way picks.  Reading records must not change
 * what a feature load gives, and formatting again (three calls per
 * feature) or loading all again was a third of an execution.
 */
static void check_features(struct perfring_perfdata *pd, int after)
{
	size_t nf = perfring_perfdata_nr_features(pd);

	for (size_t i = after && nf ? (way >> 16) % nf : 0; i < nf; i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };
		struct perfring_diag diag;
		char small[16], *big;
		int err, need;

		memset(&diag, 0, sizeof(diag));
		err = perfring_perfdata_feature(pd, i, &f, &diag);
		if (err) {
			FUZZ_ASSERT(err == -EBADMSG || err == -EIO || err == -ENOMEM ||
				    err == -EFBIG);
			FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
		} else if (f.size) {
			const volatile uint8_t *b = f.data;
			uint8_t x = 0;

			FUZZ_ASSERT(f.data != NULL);
			x ^= b[0];
			x ^= b[f.size - 1];	/* ASan: the whole payload is there */
			(void)x;
		}
		if (after)
			break;
		if (err)
			continue;
		(void)perfring_perfdata_feature_name(f.id);
		need = perfring_perfdata_feature_format(pd, &f, NULL, 0);
		if (need < 0) {
			FUZZ_ASSERT(need == -EINVAL);
			continue;
		}
		big = format_buf((size_t)need + 1);
		FUZZ_ASSERT(perfring_perfdata_feature_format(pd, &f, big, (size_t)need + 1) == need);
		FUZZ_ASSERT(strlen(big) == (size_t)need);
		FUZZ_ASSERT(perfring_perfdata_feature_format(pd, &f, small, sizeof(small)) == need);
		FUZZ_ASSERT(memchr(small, '\0', sizeof(small)) != NULL);
		FUZZ_ASSERT(strncmp(small, big, sizeof(small) - 1) == 0);
	}
}

static void check_attrs(const struct perfring_perfdata *pd)
{
	size_t na = perfring_perfdata_nr_attrs(pd);

	for (size_t i = 0; i < na; i++) {
		const struct perfring_attr *attr;
		const uint64_t *ids;
		const char *name;
		uint32_t nr_ids;

		FUZZ_ASSERT(perfring_perfdata_attr(pd, i, &attr, &ids, &nr_ids, &name) == 0);
		FUZZ_ASSERT(attr != NULL);
		if (nr_ids) {
			volatile uint64_t x = ids[0] ^ ids[nr_ids - 1];

			(void)x;
			(void)perfring_perfdata_attr_by_id(pd, ids[nr_ids - 1]);
		}
		if (name)
			(void)strlen(name);
	}
	FUZZ_ASSERT(perfring_perfdata_attr(pd, na, NULL, NULL, NULL, NULL) == -ENOENT);
}

/* What a reader returned: its records (hashed) and how it ended. */
struct outcome {
	int open_err, err;
	uint64_t n, hash, diag_offset;
	char msg[512];
};

/* The harness's own work: not instrumented, as short_copy; by words. */
FUZZ_NO_COV static void hash_in(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		*h = (*h ^ w) * 0xff51afd7ed558ccdull;
		*h ^= *h >> 32;
	}
	for (; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

static void outcome_start(struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->hash = 0xcbf29ce484222325ull;
}

/*
 * Count a record into o: what the sources API and the perf.data reader
 * both give of it (a source record's flags are the source's own).
 */
static void outcome_add(struct outcome *o, const struct perfring_event_header *hdr,
			uint64_t offset, uint64_t inner_offset, uint64_t extra_size, int attr_idx)
{
	hash_in(&o->hash, &offset, sizeof(offset));
	hash_in(&o->hash, &inner_offset, sizeof(inner_offset));
	hash_in(&o->hash, &extra_size, sizeof(extra_size));
	hash_in(&o->hash, &attr_idx, sizeof(attr_idx));
	hash_in(&o->hash, hdr, hdr->size);
	o->n++;
}

static void outcome_end(struct outcome *o, int err, const struct perfring_diag *diag)
{
	o->err = err;
	if (err < 0) {
		snprintf(o->msg, sizeof(o->msg), "%s", diag->msg);
		o->diag_offset = diag->has_offset ? diag->offset : UINT64_MAX;
	}
}

/* Look at a record the reader gave: all of it is there; decode a SAMPLE. */
static void check_record(const struct perfring_event_header *hdr, uint32_t type,
			 const struct perfring_attr *attr)
{
	const volatile uint8_t *b = (const uint8_t *)hdr;
	uint16_t sz = hdr->size;
	uint8_t x = 0;

	FUZZ_ASSERT(sz >= 8);
	FUZZ_ASSERT(type == hdr->type);
	x ^= b[0];
	x ^= b[sz - 1];		/* ASan: the whole record is there */
	(void)x;
	if (type == 9 && attr) {
		struct perfring_sample smp;

		(void)perfring_sample_decode(attr, hdr, sz, &smp, NULL);
	}
}

/* How a read of a perf.data ended: err from next(), count records. */
static void check_end(struct perfring_perfdata *pd, int err, const struct perfring_diag *diag,
		      uint64_t count)
{
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_perfdata_stats st0 = { .sz = sizeof(st0) };
	const struct perfring_perfdata_stats *st = &st0;

	FUZZ_ASSERT(perfring_perfdata_get_stats(pd, &st0) == 0);

	if (err < 0) {
		FUZZ_ASSERT(err == -EBADMSG || err == -EIO || err == -ENOMEM ||
			    err == -ENOTSUP || err == -EFBIG);
		FUZZ_ASSERT(memchr(diag->msg, '\0', sizeof(diag->msg)) != NULL);
		/* errors are sticky */
		FUZZ_ASSERT(perfring_perfdata_next(pd, &rec, NULL) == err);
	} else {
		/* the end stays the end */
		FUZZ_ASSERT(perfring_perfdata_next(pd, &rec, NULL) == 0);
	}
	FUZZ_ASSERT(st != NULL && st->total >= count);
	check_attrs(pd);
	check_features(pd, 1);
}

/*
 * Read the input from a regular file (the memfd) through the sources API
 * (probe, then the perf.data reader), every record also through the
 * validator with its attr; look at every attr and feature before the
 * records and at the attrs and one feature after them (check_features).
 * What it read goes to o (see mapped_vs_read).
 */
static void read_source(int fd, struct outcome *o)
{
	PERFRING_SOURCE_OPTS(opts, .name = "source");
	struct perfring_source_record rec = { .sz = sizeof(rec) };
	struct perfring_source *s = NULL;
	struct perfring_perfdata *pd;
	struct perfring_diag diag;
	int err;

	memset(&diag, 0, sizeof(diag));
	outcome_start(o);
	err = perfring_source_open_fd(fd, &opts, &diag, &s);
	o->open_err = err;
	if (err) {
		FUZZ_ASSERT(err < 0 && s == NULL);
		FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
		FUZZ_ASSERT(strcmp(diag.file, "source") == 0);
		return;
	}
	pd = perfring_source_perfdata(s);
	if (pd) {
		check_attrs(pd);
		check_features(pd, 0);
	}
	while ((err = perfring_source_next(s, &rec, &diag)) == 1) {
		FUZZ_ASSERT(rec.size == rec.hdr->size);
		FUZZ_ASSERT(rec.event < (int)perfring_source_nr_events(s));
		FUZZ_ASSERT((rec.event < 0) == (rec.attr == NULL));
		check_record(rec.hdr, rec.type, rec.attr);
		(void)perfring_record_validate(NULL, rec.attr, rec.hdr, rec.size, rec.offset,
					       &diag);
		outcome_add(o, rec.hdr, rec.offset, rec.inner_offset, rec.extra_size, rec.event);
	}
	outcome_end(o, err, &diag);
	if (pd)
		check_end(pd, err, &diag, o->n);
	else if (err < 0)
		FUZZ_ASSERT(perfring_source_next(s, &rec, NULL) == err);
	perfring_source_close(s);
}

/*
 * Read the input from a pipe through the perf.data reader: every record,
 * with the attrs and features looked at as read_source does.
 */
static void read_pipe(int fd)
{
	PERFRING_PERFDATA_OPTS(opts, .name = "pipe");
	struct perfring_perfdata *pd = NULL;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag diag;
	uint64_t count = 0;
	int err;

	memset(&diag, 0, sizeof(diag));
	err = perfring_perfdata_open_fd(fd, &opts, &diag, &pd);
	if (err) {
		FUZZ_ASSERT(pd == NULL);
		FUZZ_ASSERT(err == -EBADMSG || err == -EIO || err == -ENOMEM || err == -ESPIPE);
		FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
		return;
	}
	FUZZ_ASSERT(perfring_perfdata_header(pd) != NULL);
	FUZZ_ASSERT(perfring_perfdata_is_pipe(pd) == 1);
	check_attrs(pd);
	check_features(pd, 0);
	while ((err = perfring_perfdata_next(pd, &rec, &diag)) == 1) {
		check_record(rec.header, rec.type, rec.attr);
		count++;
	}
	check_end(pd, err, &diag, count);
	perfring_perfdata_close(pd);
}

/*
 * One memfd for every input, resized and refilled: no open per input.  Its
 * file position stays 0 between reads (the reader starts there).
 */
static int memfd = -1;
static size_t memfd_size;	/* its size (SIZE_MAX: not known) */

/* The memfd holds data[0, size) and, with pad, pad zero bytes after. */
static int memfd_fill(const uint8_t *data, size_t size, size_t pad)
{
	memfd_size = SIZE_MAX;
	return ftruncate(memfd, (off_t)size) == 0 && write_all(memfd, data, size, 0) == 0 &&
	       (!pad || ftruncate(memfd, (off_t)(size + pad)) == 0);
}

/*
 * Read the input from the memfd (read_source): through the kernel (with
 * kernel), else with the reads served from memory in chunks of at most
 * short_chunk bytes (the memfd still answers fstat and lseek).  Every
 * feature section is one pread, and with many features those system calls
 * were most of an execution; the reader cannot tell the bytes served from
 * memory from a regular file's.
 */
static void from_memfd(const uint8_t *data, size_t size, int kernel, struct outcome *o)
{
	if (memfd < 0)
		memfd = make_memfd();
	if (memfd < 0)
		abort();
	outcome_start(o);
	o->open_err = -EIO;
	if (!kernel) {
		/*
		 * The reads are served from memory: the size is all the memfd
		 * needs, but for an input the reader would map (larger than
		 * its window, 1 MiB; never a fuzz input, maybe a replayed one).
		 */
		int ok = size > (512u << 10) ? memfd_fill(data, size, 0) :
			 memfd_size == size || ftruncate(memfd, (off_t)size) == 0;

		if (ok) {
			if (size <= (512u << 10))
				memfd_size = size;
			short_from_memory(memfd, data, size, 0);
			read_source(memfd, o);
			short_off_all();
		}
	} else if (memfd_fill(data, size, 0)) {
		read_source(memfd, o);
		if (lseek(memfd, 0, SEEK_SET))
			abort();
	}
}

/* A pipe-mode header, in either byte order? */
static int pipe_header(const uint8_t *data, size_t size)
{
	static const uint8_t le[16] = "PERFILE2\x10\0\0\0\0\0\0\0";
	static const uint8_t be[16] = "2ELIFREP\0\0\0\0\0\0\0\x10";

	return size >= 16 && (!memcmp(data, le, 16) || !memcmp(data, be, 16));
}

/*
 * Read the input from a pipe (read_pipe): a real one (with kernel, when a
 * pipe-mode stream fits in the pipe's buffer), else one whose reads are
 * served from memory in chunks of at most short_chunk bytes.
 */
static void from_pipe(const uint8_t *data, size_t size, int kernel)
{
	/* for the reads served from memory: a pipe with no writer, made once */
	static int spipe = -1;
	int pfd[2];

	/* (file-mode data is refused after its first 16 bytes) */
	if (!kernel || size > 65536 || !pipe_header(data, size)) {
		if (spipe < 0) {
			if (pipe(pfd) < 0)
				abort();
			close(pfd[1]);
			spipe = pfd[0];
		}
		short_from_memory(spipe, data, size, 1);
		read_pipe(spipe);
		short_off_all();
		return;
	}
	if (pipe(pfd) < 0)
		abort();
	if (write_all(pfd[1], data, size, -1) == 0) {
		close(pfd[1]);
		pfd[1] = -1;
		read_pipe(pfd[0]);
	}
	close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
}

static void outcome_of(int fd, size_t window, struct outcome *o)
{
	PERFRING_PERFDATA_OPTS(opts, .window = window, .name = "memfd");
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_perfdata *pd = NULL;
	struct perfring_diag diag;
	int err;

	outcome_start(o);
	memset(&diag, 0, sizeof(diag));
	o->open_err = perfring_perfdata_open_fd(fd, &opts, &diag, &pd);
	if (o->open_err)
		return;
	while ((err = perfring_perfdata_next(pd, &rec, &diag)) == 1)
		outcome_add(o, rec.header, rec.offset, rec.inner_offset, rec.extra_size,
			    rec.attr_idx);
	outcome_end(o, err, &diag);
	perfring_perfdata_close(pd);
}

/*
 * A file-mode perf.data larger than the reader's window is mapped instead
 * of read (lib/perfdata/reader.c).  The input in the memfd followed by 132 KiB of
 * zeros, read with the smallest window, is mapped; when the header puts
 * the whole data section inside the input, the records and how they end
 * must be those from_memfd got (a: the input as it is, in the memfd).  (With data_size 0 the reader reads to the end of the file,
 * zeros included; byte-swapped files are never mapped.)
 */
static void mapped_vs_read(const uint8_t *data, size_t size, const struct outcome *a)
{
	struct outcome b;
	uint64_t hsize, off, dsize;

	if (size < 104 || memcmp(data, "PERFILE2", 8))
		return;
	memcpy(&hsize, data + 8, 8);
	memcpy(&off, data + 40, 8);
	memcpy(&dsize, data + 48, 8);
	if (hsize == 16 || dsize == 0 || off > size || dsize > size - off)
		return;
	if (!memfd_fill(data, size, 132 << 10))
		return;
	outcome_of(memfd, 128 << 10, &b);	/* mapped */
	if (lseek(memfd, 0, SEEK_SET))
		abort();
	if (a->open_err || b.open_err)
		return;			/* the zeros may hold what a feature lacked */
	if (a->n != b.n || a->hash != b.hash || a->err != b.err || strcmp(a->msg, b.msg) ||
	    a->diag_offset != b.diag_offset) {
		fprintf(stderr, "read: %llu records, %d \"%s\" at %llu\n"
			"mapped: %llu records, %d \"%s\" at %llu\n",
			(unsigned long long)a->n, a->err, a->msg, (unsigned long long)a->diag_offset,
			(unsigned long long)b.n, b.err, b.msg, (unsigned long long)b.diag_offset);
		FUZZ_ASSERT(!"a mapped perf.data reads as the same file read");
	}
}

/*
 * Which way an input is read: a hash of all of it, so that every mutation
 * picks a way again (a byte of the input would pick one way for a whole
 * lineage of inputs: mutations seldom touch a given byte of a 5 KB input).
 */
static uint64_t way_of(const uint8_t *data, size_t size)
{
	uint64_t h = size * 0x9e3779b97f4a7c15ull;

	hash_in(&h, data, size);
	return h ^ (h >> 29);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/*
	 * Each input is read one way, not every way, and mutations explore
	 * the ways (way_of):
	 * - a quarter: reads served in chunks of 1..97 bytes, as a slow
	 *   writer gives; else whole reads, a quarter of them through the
	 *   kernel (a real pipe when the input fits in one);
	 * - a pipe-mode stream (read with read(2) whatever the fd) from the
	 *   memfd (half) or from a pipe (half);
	 * - file-mode data from the memfd; a quarter of it also from a pipe,
	 *   which must refuse it (-ESPIPE), and a quarter also mapped, which
	 *   must give what the memfd gave (mapped_vs_read).
	 */
	int pipe_mode = pipe_header(data, size), by_pipe, kernel;
	struct outcome o;

	way = way_of(data, size);
	by_pipe = pipe_mode ? way & 1 : (way >> 7 & 3) == 0;
	short_chunk = (way & 6) == 0 ? 1 + (way >> 8) % 97u : SIZE_MAX;
	kernel = short_chunk == SIZE_MAX && (way & 96) == 0;
	if (!pipe_mode || !by_pipe)
		from_memfd(data, size, kernel, &o);
	if (by_pipe)
		from_pipe(data, size, kernel);
	if (!pipe_mode && (way & 24) == 0) {
		short_chunk = SIZE_MAX;
		mapped_vs_read(data, size, &o);
	}
	short_chunk = SIZE_MAX;
	return 0;
}
