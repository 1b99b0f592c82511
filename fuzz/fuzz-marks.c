/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the marker reader (include/perfring/marks.h).
 *
 * Input: one byte of mode, then
 *   mode bit 0 clear: the raw payload of one marker record, decoded with
 *     perfring_mark_decode;
 *   mode bit 0 set: a whole marker ring file (descriptor, control page,
 *     data), opened from a memfd and read with PERFRING_READER_RESYNC, as
 *     the tools read a program's rings; the raw payload of every SAMPLE
 *     (TIME|RAW: the u32 size at byte 16) is decoded.
 * Checked: no memory error; a payload that decodes has a known kind and
 * flags, its name and text lie inside the payload within their limits and
 * are present exactly when their flags say, and a marker names itself by
 * id or by name, never both; the ring reader returns whole, 8-aligned
 * records and reports damage with its offset.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/marks.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_decode(const uint8_t *raw, size_t n)
{
	struct perfring_mark m = { .sz = sizeof(m) };
	int err = perfring_mark_decode(raw, n, &m);

	if (err) {
		FUZZ_ASSERT(err == -EBADMSG);
		return;
	}
	FUZZ_ASSERT(m.sz == sizeof(m));
	FUZZ_ASSERT(m.kind <= PERFRING_MARK_THREAD);
	FUZZ_ASSERT(!(m.flags & ~(PERFRING_MARKF_VALUE | PERFRING_MARKF_NAME | PERFRING_MARKF_TEXT)));
	FUZZ_ASSERT(m.id <= PERFRING_MARK_IDS_MAX);
	FUZZ_ASSERT(!(m.flags & PERFRING_MARKF_VALUE) ? m.value == 0 : 1);
	FUZZ_ASSERT(!!(m.flags & PERFRING_MARKF_NAME) == (m.name != NULL));
	FUZZ_ASSERT(!!(m.flags & PERFRING_MARKF_TEXT) == (m.text != NULL));
	if (m.name)
		FUZZ_ASSERT(m.name_len >= 1 && m.name_len <= PERFRING_MARK_NAME_MAX &&
			    (const uint8_t *)m.name >= raw &&
			    (const uint8_t *)m.name + m.name_len <= raw + n);
	else
		FUZZ_ASSERT(m.name_len == 0);
	if (m.text)
		FUZZ_ASSERT(m.text_len >= 1 && m.text_len <= PERFRING_MARK_TEXT_MAX &&
			    (const uint8_t *)m.text >= raw &&
			    (const uint8_t *)m.text + m.text_len <= raw + n);
	else
		FUZZ_ASSERT(m.text_len == 0);
	if (m.kind <= PERFRING_MARK_END)
		FUZZ_ASSERT(!m.id != !m.name);
	if (m.kind == PERFRING_MARK_NAME)
		FUZZ_ASSERT(m.id && m.name);
	if (m.kind == PERFRING_MARK_THREAD)
		FUZZ_ASSERT(!m.id && (m.flags & PERFRING_MARKF_VALUE));
}

static void damaged(const struct perfring_diag *d, void *user)
{
	unsigned *n = user;

	FUZZ_ASSERT(d && d->error < 0);
	FUZZ_ASSERT(memchr(d->msg, '\0', sizeof(d->msg)) != NULL);
	(*n)++;
}

static void read_ring(const uint8_t *p, size_t n)
{
	struct perfring_record rec = { .sz = sizeof(rec) };
	struct perfring_diag diag;
	struct perfring_ring *r = NULL;
	struct perfring_reader *rd = NULL;
	unsigned problems = 0;
	uint64_t dsz, got = 0;
	int fd, err, ret;

	fd = (int)syscall(SYS_memfd_create, "fuzz-marks", 0);
	if (fd < 0)
		abort();
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
	memset(&diag, 0, sizeof(diag));
	err = perfring_ring_open_fd(fd, PERFRING_RING_READ, &diag, &r);
	close(fd);
	if (err) {
		FUZZ_ASSERT(err < 0 && r == NULL);
		FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
		return;
	}
	dsz = perfring_ring_data_size(r);
	{
		PERFRING_READER_OPTS(ro, .flags = PERFRING_READER_RESYNC, .on_damage = damaged,
				     .user = &problems);

		if (perfring_reader_new_opts(r, &ro, &rd))
			goto out;
	}
	while ((ret = perfring_reader_next(rd, &rec)) == 1) {
		const uint8_t *b = (const uint8_t *)rec.hdr;
		uint16_t rsz = rec.hdr->size;
		uint32_t raw_size;

		FUZZ_ASSERT(rsz >= 8 && rsz % 8 == 0 && rsz <= dsz);
		FUZZ_ASSERT(++got <= dsz / 8);
		if (rec.hdr->type != 9 || rsz < 20)
			continue;
		memcpy(&raw_size, b + 16, 4);
		if (raw_size <= (uint32_t)rsz - 20u)
			check_decode(b + 20, raw_size);
	}
	FUZZ_ASSERT(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
out:
	perfring_reader_free(rd);
	perfring_ring_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;
	void *copy;

	if (!size)
		return 0;
	mode = data[0];
	data++;
	size--;
	perfring_set_log(fuzz_quiet_log, NULL);
	if (mode & 1) {
		read_ring(data, size);
		return 0;
	}
	copy = fuzz_dup(data, size);
	check_decode(copy, size);
	free(copy);
	return 0;
}
