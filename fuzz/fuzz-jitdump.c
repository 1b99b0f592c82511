/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the jitdump reader (perfring_jitdump_open_mem / _open,
 * perfring_jitdump_next, perfring_jit_debug_entry_next).
 *
 * Input: a jitdump file as is.
 * Checked: no memory error; a refused header or a damaged record comes
 * with a message naming the file and an offset inside the input; records
 * come in file order, each inside the input, their names, code, debug
 * entries and unwind data inside the record; a debug record yields exactly
 * nr_entry entries; the counts add up to the bytes read; after the end or
 * an error the reader stays there; and the file reader (the same bytes in a
 * memfd, read through a small buffer) returns the same records as the
 * memory reader.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "fuzz.h"

#define MAX_RECS 4096

struct seen {
	uint32_t id, size;
	uint64_t offset, a, b;
};

static int walk(struct perfring_jitdump *r, const uint8_t *base, size_t size,
		struct seen *out, size_t *nout, int from_mem)
{
	struct perfring_jit_record rec = { .sz = sizeof(rec) };
	struct perfring_jitdump_stats st = { .sz = sizeof(st) };
	struct perfring_diag diag;
	uint64_t last_end = perfring_jitdump_header(r)->total_size;
	uint64_t sum = 0;
	int err;

	*nout = 0;
	memset(&diag, 0, sizeof(diag));
	while ((err = perfring_jitdump_next(r, &rec, &diag)) == 1) {
		const uint8_t *p = from_mem ? base + rec.offset : NULL;
		struct seen s = { rec.id, rec.total_size, rec.offset, 0, 0 };

		FUZZ_ASSERT(rec.id < 5);
		FUZZ_ASSERT(rec.offset >= last_end);
		FUZZ_ASSERT(rec.offset + rec.total_size <= size);
		last_end = rec.offset + rec.total_size;
		(void)p;
		switch (rec.id) {
		case PERFRING_JIT_CODE_LOAD:
			FUZZ_ASSERT(rec.u.load.code_size <= rec.total_size - 56u);
			FUZZ_ASSERT(strlen(rec.u.load.name) + 1 + rec.u.load.code_size
				    <= rec.total_size - 56u);
			if (from_mem) {
				FUZZ_ASSERT((const uint8_t *)rec.u.load.name == p + 56);
				FUZZ_ASSERT(rec.u.load.code + rec.u.load.code_size
					    == p + rec.total_size);
			}
			s.a = rec.u.load.code_addr;
			s.b = rec.u.load.code_size;
			break;
		case PERFRING_JIT_CODE_DEBUG_INFO: {
			struct perfring_jit_debug_entry e = { .sz = sizeof(e) };
			uint64_t n = 0;
			size_t pos = 0;

			while (perfring_jit_debug_entry_next(&rec, &pos, &e)) {
				FUZZ_ASSERT(pos <= rec.u.debug.entries_len);
				n++;
			}
			FUZZ_ASSERT(n == rec.u.debug.nr_entry);
			FUZZ_ASSERT(32 + rec.u.debug.entries_len <= rec.total_size);
			s.a = rec.u.debug.nr_entry;
			break;
		}
		case PERFRING_JIT_CODE_UNWINDING_INFO:
			FUZZ_ASSERT(rec.u.unwind.unwinding_size <= rec.total_size - 40u);
			FUZZ_ASSERT(rec.u.unwind.eh_frame_hdr_size <= rec.u.unwind.unwinding_size);
			s.a = rec.u.unwind.unwinding_size;
			break;
		case PERFRING_JIT_CODE_MOVE:
			s.a = rec.u.move.new_code_addr;
			s.b = rec.u.move.code_index;
			break;
		}
		if (*nout < MAX_RECS)
			out[(*nout)++] = s;
	}
	if (err < 0) {
		FUZZ_ASSERT(err == -EBADMSG);
		FUZZ_ASSERT(diag.error == -EBADMSG && diag.msg[0] && diag.file[0]);
		FUZZ_ASSERT(diag.has_offset && diag.offset <= size);
	}
	FUZZ_ASSERT(perfring_jitdump_next(r, &rec, &diag) == err);
	perfring_jitdump_get_stats(r, &st);
	for (int i = 0; i < 5; i++)
		sum += st.records[i];
	FUZZ_ASSERT(st.bytes <= size);
	if (err == 0 && !st.closed)
		FUZZ_ASSERT(st.bytes + st.truncated_bytes == size);
	(void)sum;
	return err;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen a[MAX_RECS], b[MAX_RECS];
	struct perfring_jitdump *r;
	struct perfring_diag diag;
	size_t na = 0, nb = 0;
	int err, err_mem, err_fd;
	char path[64];
	int fd;

	memset(&diag, 0, sizeof(diag));
	err = perfring_jitdump_open_mem(data, size, "fuzz.dump", &diag, &r);
	if (err) {
		FUZZ_ASSERT(err == -EBADMSG);
		FUZZ_ASSERT(diag.msg[0] && !strcmp(diag.file, "fuzz.dump"));
		FUZZ_ASSERT(diag.has_offset && diag.offset <= size);
		return 0;
	}
	err_mem = walk(r, data, size, a, &na, 1);
	perfring_jitdump_close(r);

	/* The file reader gives the same records. */
	fd = memfd_create("fuzz-jitdump", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = perfring_jitdump_open(path, &diag, &r);
	FUZZ_ASSERT(err == 0);
	err_fd = walk(r, data, size, b, &nb, 0);
	perfring_jitdump_close(r);
	close(fd);
	FUZZ_ASSERT(err_fd == err_mem);
	FUZZ_ASSERT(na == nb);
	FUZZ_ASSERT(memcmp(a, b, na * sizeof(a[0])) == 0);
	return 0;
}
