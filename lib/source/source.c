/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sources: tell a ring file from a perf.data (file or pipe mode, either
 * byte order) by its magic, and read any of them through one interface.
 *
 * Magics (first 8 bytes): "PRFRING\0" a perfring ring descriptor;
 * "PERFILE2" perf.data version 2 in this byte order, "2ELIFREP" the other
 * order; "PERFFILE" the legacy format, whose magic has these bytes in
 * either byte order (the byte order is told by sizes: a pipe header's 16
 * or, in a file header, attr_size; see lib/perfdata/reader.c legacy_order).  Pipe
 * mode is told by the header size that follows the magic: 16 (file mode:
 * 104, or 72 for the oldest format).  A stream cannot be peeked without consuming
 * it, so it is taken as pipe-mode perf.data and its magic is checked by
 * the perf.data reader when opened.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/core/core.h>

#include "perfdata/private.h"
#include "ring/private.h"
#include "util/internal.h"

_Static_assert(PERFRING_SOURCE_REC_COMPRESSED == PERFRING_PERFDATA_REC_COMPRESSED &&
	       PERFRING_SOURCE_REC_ID == PERFRING_PERFDATA_REC_ID &&
	       PERFRING_SOURCE_REC_UNKNOWN_ID == PERFRING_PERFDATA_REC_UNKNOWN_ID &&
	       PERFRING_SOURCE_REC_SWAPPED == PERFRING_PERFDATA_REC_SWAPPED,
	       "record flags are passed through");

static uint64_t bswap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

static int probe_fd(int fd, const char *name, struct perfring_probe *out,
		    struct perfring_diag *diag);

PERFRING_API int perfring_probe_fd(int fd, const char *name, struct perfring_probe *out,
				   struct perfring_diag *diag)
{
	struct perfring_probe p = { .sz = sizeof(p) };
	int err;

	if (!out || out->sz < sizeof(*out) || out->sz > PERFRING_STRUCT_MAX) {
		pr_diag_set(diag, -EINVAL, name, PR_NO_OFFSET,
			    "struct perfring_probe: sz not set to its size");
		return -EINVAL;
	}
	err = probe_fd(fd, name, &p, diag);
	perfring_struct_fill(out, sizeof(p), &p, sizeof(p));
	return err;
}

/*
 * The byte order of a legacy "PERFFILE" perf.data, told as the reader
 * tells it: a pipe header's size 16, else a file header's attr_size (an
 * attr ABI size + 16).  0 when it cannot be told: the reader says why.
 */
static int legacy_swapped(int fd, const unsigned char *m, size_t got)
{
	unsigned char b[8];
	uint64_t hs, as;

	if (got < 16)
		return 0;
	hs = pr_get64(m + 8);
	if (hs == PR_PD_PIPE_HEADER_SIZE || bswap64(hs) == PR_PD_PIPE_HEADER_SIZE)
		return hs != PR_PD_PIPE_HEADER_SIZE;
	if (pread(fd, b, 8, 16) != 8)
		return 0;
	as = pr_get64(b);
	switch (bswap64(as)) {
	case 80: case 88: case 96: case 112: case 120:
		return as != bswap64(as);
	default:
		return 0;
	}
}

/* perfring_probe_fd into our own struct (out->sz is ours). */
static int probe_fd(int fd, const char *name, struct perfring_probe *out,
		    struct perfring_diag *diag)
{
	unsigned char m[16];
	char fdname[32];
	struct stat st;
	ssize_t n;
	size_t got = 0;
	uint64_t hsz;
	int err;

	if (!name) {
		snprintf(fdname, sizeof(fdname), "fd %d", fd);
		name = fdname;
	}
	if (fd < 0) {
		pr_diag_set(diag, -EINVAL, name, PR_NO_OFFSET, "bad arguments");
		return -EINVAL;
	}
	out->kind = PERFRING_SOURCE_UNKNOWN;
	out->swapped = 0;
	out->is_stream = 0;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		pr_diag_set(diag, err, name, PR_NO_OFFSET, "cannot stat: %s", strerror(errno));
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		pr_diag_set(diag, -EISDIR, name, 0, "is a directory");
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		out->kind = PERFRING_SOURCE_PERFDATA_PIPE;
		out->is_stream = 1;
		return 0;
	}
	while (got < sizeof(m)) {
		n = pread(fd, m + got, sizeof(m) - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			pr_diag_set(diag, err, name, got, "cannot read: %s", strerror(errno));
			return err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got < 8) {
		pr_diag_set(diag, -EBADMSG, name, got,
			    "file ends inside the magic: neither a perf.data nor a perfring ring file");
		return -EBADMSG;
	}
	if (!memcmp(m, PERFRING_CORE_FILE_MAGIC, 8)) {
		out->kind = PERFRING_SOURCE_RING;
		return 0;
	}
	if (pr_get64(m) == PR_PD_MAGIC) {
		out->swapped = 0;
	} else if (pr_get64(m) == bswap_64(PR_PD_MAGIC)) {
		out->swapped = 1;
	} else if (pr_get64(m) == PR_PD_MAGIC_V1) {
		out->swapped = legacy_swapped(fd, m, got);
	} else {
		pr_diag_set(diag, -EBADMSG, name, 0,
			    "unknown magic 0x%016" PRIx64
			    ": neither a perf.data (\"PERFILE2\") nor a perfring ring file (\"PRFRING\")",
			    pr_get64(m));
		return -EBADMSG;
	}
	/* a header cut short is the perf.data reader's to report */
	hsz = got >= 16 ? pr_get64(m + 8) : 0;
	if (out->swapped)
		hsz = bswap64(hsz);
	out->kind = hsz == PR_PD_PIPE_HEADER_SIZE ? PERFRING_SOURCE_PERFDATA_PIPE : PERFRING_SOURCE_PERFDATA;
	return 0;
}

PERFRING_API int perfring_probe(const char *path, struct perfring_probe *out,
				struct perfring_diag *diag)
{
	int fd, err;

	if (!path) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "no path");
		return -EINVAL;
	}
	if (!strcmp(path, "-"))
		return perfring_probe_fd(0, "-", out, diag);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		pr_diag_set(diag, err, path, PR_NO_OFFSET, "%s", strerror(errno));
		return err;
	}
	err = perfring_probe_fd(fd, path, out, diag);
	close(fd);
	return err;
}

/* ---- sources -------------------------------------------------------------------- */

struct perfring_source {
	enum perfring_source_kind kind;
	int swapped;
	char name[256];
	struct perfring_ring *ring;
	struct perfring_reader *rd;
	struct perfring_perfdata *pd;
	const struct perfring_attr *a0;	/* ring: event 0's attr */
	struct pr_id_rule rule;		/* ring: perf's id rule, by event 0 */
	int err;			/* sticky */
	struct perfring_diag diag;
	/* perf.data with RESYNC: each record validated, a bad one reported
	 * through on_damage and skipped */
	int validate;
	const struct perfring_registry *registry;
	perfring_problem_fn on_damage;
	void *user;
	/* pipe mode: records read ahead (perfring_source_read_ahead), copies
	 * in one 8-aligned arena, handed out first by perfring_source_next */
	struct perfring_source_record *ahead;
	unsigned char *ahead_buf;
	size_t nr_ahead, next_ahead;
};

/*
 * Open path once, for the probe: read-only and non-blocking, so that
 * neither a FIFO without a writer nor a read-only file stops it.  What is
 * then opened to read is this same file, never the path again (it may
 * have been replaced in between): reopen_fd gives it the mode its kind
 * needs through /proc/self/fd.
 */
static int open_for_probe(const char *path, const char *name, struct perfring_diag *diag)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		int err = -errno;

		pr_diag_set(diag, err, name, PR_NO_OFFSET, "%s", strerror(errno));
		return err;
	}
	return fd;
}

/*
 * The file behind fd opened anew with flags: a ring read-write (so that
 * perfring_source_consume can move data_tail), a FIFO blocking (until a
 * writer comes, as open(2) of its path would).  -errno if it cannot be.
 */
static int reopen_fd(int fd, int flags)
{
	char self[64];
	int nfd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	nfd = open(self, flags | O_CLOEXEC);
	return nfd < 0 ? -errno : nfd;
}

/* The fd to read a probed file with (fd itself, or a reopened one). */
static int fd_to_read(int fd, const struct perfring_probe *pr)
{
	int nfd;

	if (pr->kind == PERFRING_SOURCE_RING) {
		nfd = reopen_fd(fd, O_RDWR);
		return nfd >= 0 ? nfd : fd;	/* read-only: consume is a no-op */
	}
	if (pr->is_stream) {
		nfd = reopen_fd(fd, O_RDONLY);
		if (nfd >= 0)
			return nfd;
		/* no /proc: block on the fd we have */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	}
	return fd;
}

static int open_common(int fd, const char *path, const struct perfring_source_opts *uopts,
		       struct perfring_diag *diag, struct perfring_source **out)
{
	struct perfring_probe pr = { .sz = sizeof(pr) };
	struct perfring_source_opts o = { .sz = sizeof(o) };
	const struct perfring_source_opts *opts = NULL;
	struct perfring_source *s;
	const char *name;
	char fdname[32];
	int err, pfd = -1, rfd = -1;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (uopts) {
		err = perfring_opts_load(&o, sizeof(o), uopts, sizeof(o), "perfring_source_opts",
					 path, diag);
		if (err < 0)
			return err;
		opts = &o;
		if (o.flags & ~PERFRING_SOURCE_RESYNC) {
			pr_diag_set(diag, -EINVAL, o.name ? o.name : path, PR_NO_OFFSET,
				    "unknown source flags 0x%x", o.flags);
			return -EINVAL;
		}
	}
	name = opts && opts->name ? opts->name : path;
	if (!name) {
		snprintf(fdname, sizeof(fdname), "fd %d", fd);
		name = fdname;
	}
	if (path && strcmp(path, "-")) {
		pfd = open_for_probe(path, name, diag);
		if (pfd < 0)
			return pfd;
		fd = pfd;
	} else if (path) {
		fd = STDIN_FILENO;
	}
	err = perfring_probe_fd(fd, name, &pr, diag);
	if (err < 0) {
		if (diag && opts && opts->name)
			snprintf(diag->file, sizeof(diag->file), "%s", opts->name);
		goto out;
	}
	if (pfd >= 0) {
		rfd = fd_to_read(pfd, &pr);
		fd = rfd;
	}
	s = calloc(1, sizeof(*s));
	err = -ENOMEM;
	if (!s)
		goto out;
	s->kind = pr.kind;
	s->swapped = pr.swapped;
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (pr.kind == PERFRING_SOURCE_RING) {
		PERFRING_READER_OPTS(ro);

		err = pr_ring_open_fd_named(fd, PERFRING_RING_READ, s->name, diag, &s->ring);
		if (err < 0)
			goto fail;
		if (opts) {
			ro.flags = (opts->flags & PERFRING_SOURCE_RESYNC) ? PERFRING_READER_RESYNC : 0;
			ro.registry = opts->registry;
			ro.on_damage = opts->on_damage;
			ro.user = opts->user;
		}
		err = perfring_reader_new_opts(s->ring, &ro, &s->rd);
		s->a0 = perfring_ring_attr_for_id(s->ring, 0);
		if (s->a0)
			pr_id_rule_init(&s->rule, s->a0);
		if (err < 0) {
			pr_diag_set(diag, err, s->name, PR_NO_OFFSET, "%s", strerror(-err));
			goto fail;
		}
	} else {
		PERFRING_PERFDATA_OPTS(po, .name = s->name);

		if (opts)
			po.window = opts->window;
		err = perfring_perfdata_open_fd(fd, &po, diag, &s->pd);
		if (err < 0)
			goto fail;
		s->swapped = perfring_perfdata_needs_swap(s->pd);
		if (opts && (opts->flags & PERFRING_SOURCE_RESYNC)) {
			s->validate = 1;
			s->registry = opts->registry;
			s->on_damage = opts->on_damage;
			s->user = opts->user;
		}
		s->kind = perfring_perfdata_is_pipe(s->pd) ? PERFRING_SOURCE_PERFDATA_PIPE :
							     PERFRING_SOURCE_PERFDATA;
	}
	*out = s;
	err = 0;
	goto out;
fail:
	if (diag && !diag->file[0])
		snprintf(diag->file, sizeof(diag->file), "%s", s->name);
	perfring_source_close(s);
out:
	/* the ring and the reader keep their own duplicates */
	if (rfd >= 0 && rfd != pfd)
		close(rfd);
	if (pfd >= 0)
		close(pfd);
	return err;
}

PERFRING_API int perfring_source_open(const char *path, const struct perfring_source_opts *opts,
				      struct perfring_diag *diag, struct perfring_source **out)
{
	if (!path) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "no path");
		return -EINVAL;
	}
	return open_common(-1, path, opts, diag, out);
}

PERFRING_API int perfring_source_open_fd(int fd, const struct perfring_source_opts *opts,
					 struct perfring_diag *diag,
					 struct perfring_source **out)
{
	if (fd < 0) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "bad fd");
		return -EINVAL;
	}
	return open_common(fd, NULL, opts, diag, out);
}

PERFRING_API void perfring_source_close(struct perfring_source *s)
{
	if (!s)
		return;
	perfring_reader_free(s->rd);
	perfring_ring_close(s->ring);
	perfring_perfdata_close(s->pd);
	free(s->ahead);
	free(s->ahead_buf);
	free(s);
}

PERFRING_API enum perfring_source_kind perfring_source_kind(const struct perfring_source *s)
{
	return s ? s->kind : PERFRING_SOURCE_UNKNOWN;
}

PERFRING_API int perfring_source_swapped(const struct perfring_source *s)
{
	return s ? s->swapped : 0;
}

PERFRING_API struct perfring_ring *perfring_source_ring(const struct perfring_source *s)
{
	return s ? s->ring : NULL;
}

PERFRING_API struct perfring_perfdata *perfring_source_perfdata(const struct perfring_source *s)
{
	return s ? s->pd : NULL;
}

PERFRING_API struct perfring_reader *perfring_source_reader(const struct perfring_source *s)
{
	return s ? s->rd : NULL;
}

PERFRING_API uint32_t perfring_source_nr_events(const struct perfring_source *s)
{
	if (!s)
		return 0;
	return s->ring ? perfring_ring_nr_events(s->ring) : perfring_perfdata_nr_attrs(s->pd);
}

PERFRING_API int perfring_source_event(const struct perfring_source *s, uint32_t idx,
				       struct perfring_event_desc *out)
{
	struct perfring_event_desc d = { .sz = sizeof(d) };
	int err;

	if (!s || !out)
		return -EINVAL;
	if (s->ring) {
		err = perfring_ring_event(s->ring, idx, &d);
		if (err)
			return err;
		if (d.name && !d.name[0])
			d.name = NULL;
	} else {
		err = perfring_perfdata_event(s->pd, idx, &d);
		if (err)
			return err;
	}
	return perfring_struct_fill(out, PR_EVENT_DESC_MIN, &d, sizeof(d));
}

PERFRING_API int perfring_source_event_by_id(const struct perfring_source *s, uint64_t id)
{
	if (!s)
		return -EINVAL;
	if (s->ring)
		return pr_ring_event_for_id(s->ring, id);
	return perfring_perfdata_attr_by_id(s->pd, id);
}

static int ring_next(struct perfring_source *s, struct perfring_source_record *rec,
		     struct perfring_diag *diag)
{
	struct perfring_record r = { .sz = sizeof(r) };
	uint32_t nev;
	uint64_t id;
	int ret, idx = 0;

	ret = perfring_reader_next(s->rd, &r);
	if (ret <= 0) {
		if (ret < 0 && diag)
			*diag = *perfring_reader_diag(s->rd);
		return ret;
	}
	rec->hdr = r.hdr;
	rec->type = r.hdr->type;
	rec->size = r.hdr->size;
	rec->offset = r.offset;
	rec->inner_offset = 0;
	rec->extra_size = 0;
	rec->flags = 0;
	rec->id = 0;
	rec->event = -1;
	rec->attr = NULL;
	nev = perfring_ring_nr_events(s->ring);
	if (!nev || rec->type >= PERFRING_RECORD_HEADER_ATTR || rec->type == PERFRING_RECORD_PAD)
		return 1;
	if (pr_record_id_at(&s->rule, r.hdr, rec->size, &id) == 1) {
		rec->id = id;
		rec->flags |= PERFRING_SOURCE_REC_ID;
		/* as perf: id 0 (synthesized) and a single event go to event 0 */
		if (nev > 1 && id != 0) {
			idx = pr_ring_event_for_id(s->ring, id);
			if (idx < 0) {
				idx = 0;
				rec->flags |= PERFRING_SOURCE_REC_UNKNOWN_ID;
			}
		}
	}
	rec->event = idx;
	rec->attr = s->a0;
	if (idx != 0) {
		PERFRING_EVENT_DESC(e);

		if (perfring_ring_event(s->ring, (uint32_t)idx, &e) == 0)
			rec->attr = e.attr;
	}
	return 1;
}

/*
 * RESYNC on a perf.data: does the record hold together (the validator,
 * with the plugins for the types they claim)?  Types perf does not know
 * are the caller's to keep or drop.  A bad one is reported, with the
 * record's offset, through on_damage.
 */
static int pd_record_ok(struct perfring_source *s, const struct perfring_perfdata_record *r)
{
	struct perfring_diag d;

	if (!perfring_record_type_name(r->type))
		return 1;
	d.error = 0;
	d.msg[0] = d.file[0] = '\0';
	if (perfring_record_validate(s->registry, r->attr, r->hdr, r->size, r->offset, &d) == 0)
		return 1;
	snprintf(d.file, sizeof(d.file), "%s", s->name);
	/* the offset is the record's; the message says where inside */
	d.has_offset = 1;
	d.offset = r->offset;
	if (s->on_damage)
		s->on_damage(&d, s->user);
	return 0;
}

/* The next record of a perf.data source, into rec's fields. */
static int pd_next(struct perfring_source *s, struct perfring_source_record *rec,
		   struct perfring_diag *diag)
{
	struct perfring_perfdata_record r;
	int ret;

	do
		ret = pr_pd_next(s->pd, &r, diag);
	while (ret == 1 && s->validate && !pd_record_ok(s, &r));
	if (ret == 1) {
		rec->hdr = r.hdr;
		rec->type = r.type;
		rec->size = r.size;
		rec->offset = r.offset;
		rec->inner_offset = r.inner_offset;
		rec->extra_size = r.extra_size;
		rec->event = r.event;
		rec->attr = r.attr;
		rec->id = r.id;
		rec->flags = r.flags;
	}
	return ret;
}

/* Hand out the next record read ahead: 1, or 0 when none is left (the
 * copies are freed then: a record stays valid until the next call). */
static int ahead_next(struct perfring_source *s, struct perfring_source_record *rec)
{
	size_t sz = rec->sz;

	if (s->next_ahead == s->nr_ahead) {
		free(s->ahead);
		free(s->ahead_buf);
		s->ahead = NULL;
		s->ahead_buf = NULL;
		s->nr_ahead = s->next_ahead = 0;
		return 0;
	}
	*rec = s->ahead[s->next_ahead++];
	rec->sz = sz;
	return 1;
}

PERFRING_API int perfring_source_read_ahead(struct perfring_source *s, uint32_t max,
					    struct perfring_diag *diag)
{
	size_t used = 0, cap = 0;
	int ret = 0;

	if (!s)
		return -EINVAL;
	if (s->kind != PERFRING_SOURCE_PERFDATA_PIPE || s->nr_ahead || s->err)
		return 0;
	if (!max)
		max = PERFRING_SOURCE_READ_AHEAD_MAX;
	s->ahead = calloc(max, sizeof(*s->ahead));
	if (!s->ahead)
		return -ENOMEM;
	while (s->nr_ahead < max) {
		struct perfring_source_record *r = &s->ahead[s->nr_ahead];

		r->sz = sizeof(*r);
		ret = pd_next(s, r, diag);
		if (ret <= 0)
			break;
		if (cap - used < PR_ALIGN8(r->size)) {
			size_t ncap = cap ? 2 * cap : 65536;
			unsigned char *nb;

			while (ncap - used < PR_ALIGN8(r->size))
				ncap *= 2;
			nb = realloc(s->ahead_buf, ncap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			s->ahead_buf = nb;
			cap = ncap;
		}
		memcpy(s->ahead_buf + used, r->hdr, r->size);
		r->hdr = (const void *)(uintptr_t)used;	/* an offset until the arena settles */
		used += PR_ALIGN8(r->size);
		s->nr_ahead++;
		if (r->type == PERFRING_RECORD_SAMPLE || r->type == PERFRING_RECORD_FINISHED_ROUND ||
		    r->type == PERFRING_RECORD_FINISHED_INIT)
			break;
	}
	for (size_t i = 0; i < s->nr_ahead; i++)
		s->ahead[i].hdr = (const void *)(s->ahead_buf + (uintptr_t)s->ahead[i].hdr);
	/* a damage met here comes back, sticky, once the records before it are out */
	return ret < 0 ? ret : (int)s->nr_ahead;
}

PERFRING_API int perfring_source_next(struct perfring_source *s,
				      struct perfring_source_record *rec,
				      struct perfring_diag *diag)
{
	int ret;

	if (!s || !rec || rec->sz < sizeof(*rec))
		return -EINVAL;
	if (s->ahead && ahead_next(s, rec))
		return 1;
	if (s->err) {
		if (diag)
			*diag = s->diag;
		return s->err;
	}
	if (s->ring)
		ret = ring_next(s, rec, diag);
	else
		ret = pd_next(s, rec, diag);
	if (ret < 0) {
		s->err = ret;
		if (diag) {
			if (!diag->file[0])
				snprintf(diag->file, sizeof(diag->file), "%s", s->name);
			s->diag = *diag;
		} else {
			pr_diag_set(&s->diag, ret, s->name, PR_NO_OFFSET, "%s", strerror(-ret));
		}
	}
	return ret;
}

PERFRING_API void perfring_source_consume(struct perfring_source *s)
{
	if (s && s->rd)
		perfring_reader_consume(s->rd);
}
