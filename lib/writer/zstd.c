/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * zstd side of the perf.data writer: PERF_RECORD_COMPRESSED records as
 * `perf record -z` writes them (doc/perf-data-extras.md).
 *
 * One compression stream for the whole data section: each call compresses
 * one chunk of record bytes and flushes it (ZSTD_e_flush), so the record
 * holds every byte of its chunk and a reader that decompresses record after
 * record with one stream gets the chunk back whole.  perf 6.1 needs that: it
 * decompresses each COMPRESSED record into a buffer of the COMPRESSED
 * feature's mmap_len bytes and gives up on a record that yields nothing.
 * Chunks are at most PR_WZ_CHUNK bytes, so the worst case of zstd's output
 * (ZSTD_compressBound) always fits one record's 16-bit size.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "util/internal.h"
#include "writer/private.h"

#ifdef HAVE_ZSTD
_Static_assert(ZSTD_COMPRESSBOUND(PR_WZ_CHUNK) + PR_WZ_HDR + 64 <= PR_WZ_REC_MAX,
	       "a compressed chunk must fit one record");

struct pr_wz {
	ZSTD_CCtx *cctx;
};

int pr_wz_new(int level, struct pr_wz **out)
{
	struct pr_wz *z;

	*out = NULL;
	if (level < 1 || level > ZSTD_maxCLevel())
		return -EINVAL;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->cctx = ZSTD_createCCtx();
	if (!z->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level))) {
		pr_wz_free(z);
		return -ENOMEM;
	}
	*out = z;
	return 0;
}

void pr_wz_free(struct pr_wz *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z);
}

long pr_wz_record(struct pr_wz *z, const void *src, size_t n, unsigned char *rec,
		  const char **why)
{
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { rec + PR_WZ_HDR, PR_WZ_REC_MAX - PR_WZ_HDR, 0 };
	struct perfring_event_header h;
	size_t left;

	*why = NULL;
	if (n == 0 || n > PR_WZ_CHUNK) {
		*why = "bad chunk size";
		return -EINVAL;
	}
	do {
		left = ZSTD_compressStream2(z->cctx, &out, &in, ZSTD_e_flush);
		if (ZSTD_isError(left)) {
			*why = ZSTD_getErrorName(left);
			return -EIO;
		}
	} while (left && out.pos < out.size);
	if (left || in.pos != in.size) {
		*why = "zstd output does not fit one record";
		return -EOVERFLOW;
	}
	h.type = PERFRING_RECORD_COMPRESSED;
	h.misc = 0;
	h.size = (uint16_t)(PR_WZ_HDR + out.pos);
	memcpy(rec, &h, sizeof(h));
	return (long)h.size;
}

int pr_wz_max_level(void)
{
	return ZSTD_maxCLevel();
}

#else /* !HAVE_ZSTD */

int pr_wz_new(int level, struct pr_wz **out)
{
	(void)level;
	*out = NULL;
	return -ENOTSUP;
}

void pr_wz_free(struct pr_wz *z)
{
	(void)z;
}

long pr_wz_record(struct pr_wz *z, const void *src, size_t n, unsigned char *rec,
		  const char **why)
{
	(void)z; (void)src; (void)n; (void)rec;
	*why = "built without zstd";
	return -ENOTSUP;
}

int pr_wz_max_level(void)
{
	return 0;
}

#endif
