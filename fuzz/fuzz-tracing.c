/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the tracing-data validator (perfring_tracing_data_check,
 * lib/tracing/tracing-data.c), as a file's TRACING_DATA feature and as the payload
 * of a pipe's HEADER_TRACING_DATA record.
 *
 * Input: a tracing-data blob as is.
 * Checked: no memory error (the blob is an exact-size heap copy); only
 * the documented returns (0, -EBADMSG, -ENOTSUP); a refusal has a message
 * and an offset inside the blob (at most its length), the diag's error is
 * the return; a blob found well formed has version 0.5 or 0.6, long size 4
 * or 8, a power-of-two page size, sections inside the bytes it says it
 * takes (info.size <= the input's size), saved cmdlines only for 0.6; its
 * first info.size bytes are well formed too, and one byte fewer is
 * -EBADMSG; as a pipe payload it is accepted exactly when its length is
 * info.size rounded up to 8; info with a larger sz gets the same facts and
 * zeroed bytes past them; perfring_tracing_data_find_id refuses what the
 * check refuses and names what it finds "system:event".
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_refusal(int r, const struct perfring_diag *d, size_t size)
{
	FUZZ_ASSERT(r == -EBADMSG || r == -ENOTSUP);
	FUZZ_ASSERT(d->error == r);
	FUZZ_ASSERT(d->has_offset && d->offset <= size);
	FUZZ_ASSERT(d->msg[0] != '\0');
	FUZZ_ASSERT(memchr(d->msg, '\0', sizeof(d->msg)) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfring_tracing_data_info in = { .sz = sizeof(in) };
	struct {
		struct perfring_tracing_data_info in;
		unsigned char more[24];
	} big;
	struct perfring_diag d;
	int r, rp;

	memset(&d, 0x5a, sizeof(d));
	r = perfring_tracing_data_check(data, size, 0, &in, &d);
	if (r) {
		check_refusal(r, &d, size);
		rp = perfring_tracing_data_check(data, size, PERFRING_TRACING_DATA_PIPE, NULL, &d);
		/* the same first damage, as a pipe payload too */
		FUZZ_ASSERT(rp == r);
		check_refusal(rp, &d, size);
		FUZZ_ASSERT(perfring_tracing_data_find_id(data, size, 0, 1, NULL, 0, NULL) == r);
		return 0;
	}
	FUZZ_ASSERT(d.error == 0);
	FUZZ_ASSERT(!strcmp(in.version, "0.5") || !strcmp(in.version, "0.6"));
	FUZZ_ASSERT(in.big_endian <= 1);
	FUZZ_ASSERT(in.long_size == 4 || in.long_size == 8);
	FUZZ_ASSERT(in.page_size >= 512 && !(in.page_size & (in.page_size - 1)));
	FUZZ_ASSERT(in.size >= 10 && in.size <= size);
	FUZZ_ASSERT(in.nr_systems <= in.size && in.nr_events <= in.size && in.nr_ftrace <= in.size);
	FUZZ_ASSERT(in.kallsyms_offset + in.kallsyms_size <= in.printk_offset);
	FUZZ_ASSERT(in.printk_offset + in.printk_size <= in.size);
	if (in.version[2] == '5') {
		FUZZ_ASSERT(in.cmdlines_offset == 0 && in.cmdlines_size == 0);
		FUZZ_ASSERT(in.printk_offset + in.printk_size == in.size);
	} else {
		FUZZ_ASSERT(in.cmdlines_offset >= in.printk_offset + in.printk_size + 8);
		FUZZ_ASSERT(in.cmdlines_offset + in.cmdlines_size == in.size);
	}

	/* What follows the sections does not count; the sections do. */
	if (in.size < size) {
		void *cut = fuzz_dup(data, (size_t)in.size);

		FUZZ_ASSERT(perfring_tracing_data_check(cut, (size_t)in.size, 0, NULL, NULL) == 0);
		free(cut);
	}
	FUZZ_ASSERT(perfring_tracing_data_check(data, (size_t)in.size - 1, 0, NULL, &d) == -EBADMSG);
	check_refusal(-EBADMSG, &d, (size_t)in.size - 1);

	rp = perfring_tracing_data_check(data, size, PERFRING_TRACING_DATA_PIPE, NULL, &d);
	if (((in.size + 7) & ~(uint64_t)7) == size)
		FUZZ_ASSERT(rp == 0);
	else
		FUZZ_ASSERT(rp == -EBADMSG && d.offset == in.size);

	/* an ID the input names, if any (the digits after its first "ID: ") */
	{
		const uint8_t *idp = memmem(data, size, "ID: ", 4);
		uint64_t id = 0;
		char name[32];
		int f;

		for (size_t i = idp ? (size_t)(idp - data) + 4 : size;
		     i < size && data[i] >= '0' && data[i] <= '9' && id < 10000000000ull; i++)
			id = id * 10 + (data[i] - '0');
		f = perfring_tracing_data_find_id(data, size, 0, id, name, sizeof(name), NULL);
		FUZZ_ASSERT(f == 0 || f == 1);
		FUZZ_ASSERT(f == 0 ? name[0] == '\0' : strchr(name, ':') != NULL);
	}

	memset(&big, 0x5a, sizeof(big));
	big.in.sz = sizeof(big);
	FUZZ_ASSERT(perfring_tracing_data_check(data, size, 0, &big.in, NULL) == 0);
	FUZZ_ASSERT(big.in.sz == sizeof(big));
	big.in.sz = in.sz;
	FUZZ_ASSERT(!memcmp(&big.in, &in, sizeof(in)));
	for (size_t i = 0; i < sizeof(big.more); i++)
		FUZZ_ASSERT(big.more[i] == 0);
	return 0;
}
