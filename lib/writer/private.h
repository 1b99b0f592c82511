/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private parts of the perf.data writer shared by lib/writer/writer.c (the API,
 * events and records), lib/writer/merge.c (merge by time, rounds, output),
 * lib/writer/features.c (the file's start and its header features),
 * and lib/writer/zstd.c (COMPRESSED records).  Never installed.
 */
#ifndef PERFRING_WRITER_PRIVATE_H
#define PERFRING_WRITER_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <perfring/perfring.h>

#include "perfdata/format.h"
#include "util/buf.h"
#include "util/internal.h"
#include "tracing/tracing.h"

/* ---- COMPRESSED records (zstd.c) ---------------------------------- */

#define PR_WZ_HDR	8u		/* struct perf_record_compressed */
#define PR_WZ_REC_MAX	65535u		/* header.size is 16 bits */
#define PR_WZ_CHUNK	(60u * 1024u)	/* record bytes per COMPRESSED record */

struct pr_wz;

/* A compression stream at zstd level (1..pr_wz_max_level()).  0, -EINVAL
 * (level), -ENOMEM, -ENOTSUP (built without zstd). */
PR_HIDDEN int pr_wz_new(int level, struct pr_wz **out);
PR_HIDDEN void pr_wz_free(struct pr_wz *z);
PR_HIDDEN int pr_wz_max_level(void);

/*
 * Compress n (1..PR_WZ_CHUNK) bytes of records into one COMPRESSED record
 * at rec (PR_WZ_REC_MAX bytes).  Returns its size, or a negative errno
 * with *why saying what went wrong.
 */
PR_HIDDEN long pr_wz_record(struct pr_wz *z, const void *src, size_t n,
			    unsigned char *rec, const char **why);

/* ---- the writer's state --------------------------------------------- */

#define WR_PIPE_ATTR_SIZE	PERFRING_ATTR_SIZE_VER7	/* perf < 6.6 reads sizeof */
#define WR_MAX_ATTR_SIZE	PERFRING_ATTR_SIZE_VER7	/* perf 6.1 refuses more */
#define WR_OBUF_SIZE		(256u * 1024u)
#define WR_CHUNK_SIZE		(64u * 1024u)
#define WR_DEFAULT_WINDOW	(64u * 1024u * 1024u)
#define WR_MIN_WINDOW		(64u * 1024u)
#define WR_DEFAULT_ROUND	(4u * 1024u * 1024u)
#define WR_KERNEL_MMAP_NAME	"[kernel.kallsyms]_text"


struct wr_event {
	struct perfring_attr attr;	/* as written (size set at start) */
	uint64_t *ids;
	uint32_t nr_ids;
	char *name;
	int id_pos, is_pos;		/* perf's positions, -1 if none */
};

struct wr_idmap {
	uint64_t id;
	uint32_t ev;
};

/* A queued record: entry header, then the record padded to 8. */
struct wr_entry {
	uint64_t key;
	uint64_t time;			/* 0: none */
	uint32_t size;
	uint32_t is_sample;
};

struct wr_chunk {
	struct wr_chunk *next;
	size_t cap, rd, wr;
	unsigned char data[];
};

struct wr_source {
	struct wr_chunk *head, *tail;
	size_t nr;			/* queued records */
	uint64_t last_key;
	int ended;
};

/* A mapped file for the BUILD_ID feature. */
struct wr_dso {
	char *name;
	uint16_t cpumode;
	uint8_t id_size;		/* 0: read it from the file at close */
	uint8_t id[20];
};

#define WR_MAX_DSOS 4096

struct wr_drop {
	uint32_t type;
	uint64_t count;
};

/*
 * The writer's state, one part per file that owns it: the part's file
 * sets its fields' meaning and keeps them consistent; writer.c fills each
 * part at open and frees it at close, the other files read what they
 * need of the others'.
 */

/* The output (merge.c writes it; writer.c opens and closes it). */
struct wr_output {
	char *path;			/* final name, NULL for fd / "-" */
	char *tmp;			/* temporary name, NULL if none */
	char *dname;			/* name in diagnostics */
	int fd, own_fd;
	int pipe;
	int file_on_fd;			/* file mode on a caller's fd */
	unsigned char *obuf;
	size_t olen;
	uint64_t opos;			/* offset of obuf[0] in the output */
	struct wr_bg *bg;		/* background writes (file mode), or NULL */
	int bg_failed;			/* no helper thread: write synchronously */
	int reserved;			/* blocks reserved past EOF (size_hint) */
};

/* The merge by time and the rounds (merge.c). */
struct wr_merge {
	size_t window, round_bytes;
	struct wr_source *src;
	int nr_src;
	int src0_claimed;
	struct wr_chunk *spare;		/* drained standard chunks, for reuse */
	size_t nr_spare, max_spare;
	size_t queued;			/* bytes queued in all sources */
	size_t queued_nr;		/* records queued */
	int n_waiting;			/* active sources with nothing queued */
	int n_open;			/* sources not ended */
	int *heap;			/* sources with records, min-heap by head key */
	int nh;
	int forcing;			/* in a forced flush */
	uint64_t max_time, t_last_round, t_limit, since_round;
};

/* The file's start and its header features (features.c; copy.c adds the
 * features given or copied from an input). */
struct wr_header {
	int build_ids;
	struct wr_dso *dsos;		/* open-addressing hash on name */
	size_t nr_dsos, cap_dsos;
	enum perfring_writer_kmap kmap;
	char *hostname, *osrelease, *arch, *version, *kallsyms;
	char **argv;
	int argc;
	uint64_t kstart, klen;		/* kernel MMAP, if klen */
	struct timespec clk_res, clk_tod, clk_ref;
	int have_clock;
	uint64_t data_offset;
	uint32_t attr_size;		/* written attr.size */
	uint64_t first_sample, last_sample;	/* SAMPLE_TIME (merge.c sets them) */
	int have_sample_time;
	/* HEADER_TRACING_DATA payload (given, or built at start) */
	struct pr_buf tdata;
	int tdata_given;
	char *tracefs;
	/* features given by perfring_writer_set_feature(), by id */
	struct pr_buf *given;		/* PR_PD_NR_FEAT_IDS entries, or NULL */
	uint64_t given_mask[PR_PD_NR_FEAT_IDS / 64];
	int host_none;			/* PERFRING_WRITER_HOST_NONE */
};

/* Compression: records staged in zin, then one COMPRESSED record (merge.c,
 * with zstd.c's stream). */
struct wr_compress {
	int zlevel;
	struct pr_wz *z;
	unsigned char *zin, *zrec;
	size_t zin_len;
	uint64_t z_out;			/* bytes of COMPRESSED records */
};

/* The events and their ids (writer.c). */
struct wr_events {
	struct wr_event *ev;
	int nr_ev;
	uint64_t next_id;
	struct wr_idmap *idmap;		/* sorted by id, built at start (features.c) */
	size_t nr_idmap;
};

struct perfring_writer {
	struct wr_output out;
	struct wr_merge mg;
	struct wr_header hd;
	struct wr_compress zs;
	struct wr_events evs;
	/* the writer as a whole (writer.c) */
	int keep_unknown;
	int started;
	int err;			/* first fatal error, negative */
	struct perfring_diag errdiag;
	struct wr_drop *drops;
	size_t nr_drops;
	struct perfring_writer_stats st;
};

static inline int wr_given(const struct perfring_writer *w, uint32_t id)
{
	return id < PR_PD_NR_FEAT_IDS && (w->hd.given_mask[id / 64] >> (id % 64) & 1);
}

/* merge.c */
PR_HIDDEN int wr_fail(struct perfring_writer *w, int err, const char *fmt, ...)
	PR_PRINTF(3, 4);
PR_HIDDEN void wr_copy_err(struct perfring_writer *w, struct perfring_diag *diag);
PR_HIDDEN int wr_write_all(struct perfring_writer *w, const void *p, size_t n,
			uint64_t off);
PR_HIDDEN void wr_bg_stop(struct perfring_writer *w);
PR_HIDDEN int wr_flush(struct perfring_writer *w);
PR_HIDDEN int wr_out(struct perfring_writer *w, const void *p, size_t n);
PR_HIDDEN uint64_t wr_pos(const struct perfring_writer *w);
PR_HIDDEN int wr_zflush(struct perfring_writer *w);
PR_HIDDEN int wr_data(struct perfring_writer *w, const void *p, size_t n);
PR_HIDDEN int wr_emit(struct perfring_writer *w, const void *rec, uint32_t size,
		uint64_t t, int is_sample);
PR_HIDDEN int wr_src_push(struct perfring_writer *w, int s, const void *rec,
		    uint32_t size, uint64_t key, uint64_t t, int is_sample);
PR_HIDDEN int wr_drain(struct perfring_writer *w, int final);

/* features.c */
PR_HIDDEN int wr_read_cmdline(struct perfring_writer *w);
PR_HIDDEN void wr_dso_from_record(struct perfring_writer *w, const unsigned char *p,
			    uint32_t size);
PR_HIDDEN int wr_start(struct perfring_writer *w);
PR_HIDDEN int wr_write_features(struct perfring_writer *w);
PR_HIDDEN int wr_set_given(struct perfring_writer *w, uint32_t id, const void *p,
			   size_t n);



#endif
