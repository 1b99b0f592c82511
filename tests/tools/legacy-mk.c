/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * legacy-mk: a perf.data in the legacy "PERFFILE" format, laid out as
 * perf record of 2.6.31 .. 3.x wrote it (tools/perf/util/header.c of those
 * versions, perf_header__write / perf_session__write_header), for
 * tests/tools/legacy-perffile.sh and tests/lib/check_perfdata_legacy.c.
 *
 *   legacy-mk [OPTIONS] OUT
 *	-s	written on a machine of the other byte order (every u16, u32
 *		and u64 swapped, strings as they are, the attr's flag
 *		bitfield bit-reversed per byte as a big-endian compiler lays
 *		it out); the magic keeps its bytes "PERFFILE", as old perf
 *		wrote it (a u64 read from the string, written natively)
 *	-H N	header size: 104 (2.6.33 on: the feature bitmap; default) or
 *		72 (2.6.31/32: none)
 *	-A N	sizeof(struct perf_event_attr) of the writing perf: 72
 *		(2.6.33 on, bp_len; default) or 64 (2.6.31/32); 80, 96 and
 *		104, the later sizes perf accepts in a legacy file, too.
 *		header.attr_size is N + 16; attr.size is 0 (old perf never
 *		set it) unless -S
 *	-S N	attr.size N instead of 0
 *	-b old|new|none
 *		a BUILD_ID feature (-H 104 only): "old" without the pid
 *		(2.6.33), "new" with it (2.6.34 on; default)
 *	-e N	N events (default 1); with more than one, samples carry
 *		PERF_SAMPLE_ID, as old perf did
 *	-n N	samples (default 400)
 *	-T	no PERF_SAMPLE_TIME (IP|TID|PERIOD, perf record without -T);
 *		default IP|TID|TIME|PERIOD
 *	-E	an event_types entry naming event 0 "legacy:event0"
 *	-p	pipe mode (2.6.35 on): 16-byte header, HEADER_ATTR records
 *
 * The data: 80 MMAP (the kernel, 71 modules, 4 synthesized maps of the
 * forked child while it is still perf, 4 after its exec), 2 COMM (the
 * synthesized "perf", then the exec's), 1 FORK (a second thread), the
 * samples (user IPs in the workload and libc, both threads), 2 EXIT.
 * No sample_id_all (2.6.37 on).  Prints nothing; exit 0.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int swap;
static unsigned char *buf;
static size_t len, cap;

static void put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2;
		buf = realloc(buf, cap);
		if (!buf) {
			perror("legacy-mk");
			exit(1);
		}
	}
	memcpy(buf + len, p, n);
	len += n;
}

static void at(size_t off, const void *p, size_t n)
{
	memcpy(buf + off, p, n);
}

static void p64(uint64_t v)
{
	if (swap)
		v = __builtin_bswap64(v);
	put(&v, 8);
}

static void p32(uint32_t v)
{
	if (swap)
		v = __builtin_bswap32(v);
	put(&v, 4);
}

static void p16(uint16_t v)
{
	if (swap)
		v = __builtin_bswap16(v);
	put(&v, 2);
}

static void set64(size_t off, uint64_t v)
{
	if (swap)
		v = __builtin_bswap64(v);
	at(off, &v, 8);
}

static void zeros(size_t n)
{
	static const unsigned char z[256];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(z, k);
		n -= k;
	}
}

static unsigned char revbyte(unsigned char b)
{
	b = (unsigned char)((b >> 4) | (b << 4));
	b = (unsigned char)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
	return (unsigned char)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
}

static void hdr(uint32_t type, uint16_t misc, uint16_t size)
{
	p32(type);
	p16(misc);
	p16(size);
}

/* a string padded with zeros to a multiple of 8 (at least one zero) */
static size_t str8(const char *s)
{
	size_t n = strlen(s) + 1, a = (n + 7) & ~(size_t)7;

	put(s, n - 1);
	zeros(a - n + 1);
	return a;
}

static size_t str8_len(const char *s)
{
	return (strlen(s) + 1 + 7) & ~(size_t)7;
}

#define F_DISABLED (1u << 0)
#define F_INHERIT (1u << 1)
#define F_MMAP (1u << 8)
#define F_COMM (1u << 9)
#define F_FREQ (1u << 10)
#define F_ENABLE_ON_EXEC (1u << 12)

static unsigned attr_sz = 72, attr_size_field, nev = 1;
static uint64_t sample_type;

static void attr(unsigned i)
{
	uint64_t flags = F_DISABLED | F_INHERIT | F_FREQ | F_ENABLE_ON_EXEC |
			 (i == 0 ? F_MMAP | F_COMM : 0);
	unsigned char fl[8];

	p32(0);				/* PERF_TYPE_HARDWARE */
	p32(attr_size_field);
	p64(i);				/* cycles, instructions, ... */
	p64(1000);			/* sample_freq */
	p64(sample_type);
	p64(7);				/* TOTAL_TIME_ENABLED|RUNNING|ID */
	for (int k = 0; k < 8; k++) {
		fl[k] = (unsigned char)(flags >> (8 * k));
		if (swap)
			fl[k] = revbyte(fl[k]);
	}
	put(fl, 8);
	p32(0);				/* wakeup_events */
	p32(0);				/* bp_type (2.6.33) / reserved */
	p64(0);				/* bp_addr / reserved */
	if (attr_sz >= 72)
		p64(0);			/* bp_len */
	if (attr_sz > 72)
		zeros(attr_sz - 72);	/* branch_sample_type, regs, ... */
}

static uint64_t id_of(unsigned ev, unsigned k)
{
	return 100 + 10 * ev + k;
}

static void mmap_rec(uint16_t misc, uint32_t pid, uint64_t addr, uint64_t mlen,
		     uint64_t pgoff, const char *name)
{
	hdr(1, misc, (uint16_t)(8 + 32 + str8_len(name)));
	p32(pid);
	p32(pid);
	p64(addr);
	p64(mlen);
	p64(pgoff);
	str8(name);
}

static void comm_rec(uint32_t pid, const char *comm)
{
	hdr(3, 0, (uint16_t)(8 + 8 + str8_len(comm)));
	p32(pid);
	p32(pid);
	str8(comm);
}

static void task_rec(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint32_t ptid, uint64_t time)
{
	hdr(type, 0, 32);
	p32(pid);
	p32(ppid);
	p32(tid);
	p32(ptid);
	p64(time);
}

#define PID 4242u
#define T0 1000000000ull

static void data(unsigned nsamples)
{
	static const char *const perf_maps[] = {
		"/usr/bin/perf", "/lib/ld-2.11.1.so", "/lib/libc-2.11.1.so",
		"/lib/libpthread-2.11.1.so",
	};
	static const char *const wl_maps[] = {
		"/usr/local/bin/legacy-workload", "/lib/ld-2.11.1.so",
		"/lib/libc-2.11.1.so", "/lib/libm-2.11.1.so",
	};
	char name[128];
	unsigned i;

	mmap_rec(1, 0xffffffffu, 0xffffffff81000000ull, 0x7f000000ull,
		 0xffffffff81000000ull, "[kernel.kallsyms]_text");
	for (i = 0; i < 71; i++) {
		snprintf(name, sizeof(name), "/lib/modules/2.6.33/kernel/drivers/mod%02u.ko", i);
		mmap_rec(1, 0xffffffffu, 0xffffffffa0000000ull + 0x10000ull * i, 0x8000, 0, name);
	}
	comm_rec(PID, "perf");
	for (i = 0; i < 4; i++)
		mmap_rec(2, PID, 0x400000ull + 0x1000000ull * i, 0x100000, 0, perf_maps[i]);
	comm_rec(PID, "legacy-workload");
	for (i = 0; i < 4; i++)
		mmap_rec(2, PID, 0x400000ull + 0x1000000ull * i, 0x100000, 0, wl_maps[i]);
	task_rec(7, PID, PID, PID + 1, PID, T0);
	for (i = 0; i < nsamples; i++) {
		uint32_t tid = i % 3 == 2 ? PID + 1 : PID;
		uint64_t ip = (i % 4 == 3 ? 0x2400000ull : 0x400000ull) + 0x100 + 0x10 * (i % 37);
		unsigned size = 8 + 8 + 8 + 8 + 8;

		if (!(sample_type & (1u << 2)))
			size -= 8;
		if (sample_type & (1u << 6))
			size += 8;
		hdr(9, 2, (uint16_t)size);
		p64(ip);
		p32(PID);
		p32(tid);
		if (sample_type & (1u << 2))
			p64(T0 + 1000000ull * (i + 1));
		if (sample_type & (1u << 6))
			p64(id_of(i % nev, tid == PID ? 0 : 1));
		p64(100000 + 10 * (i % 7));
	}
	task_rec(4, PID, PID, PID + 1, PID, T0 + 1000000ull * (nsamples + 1));
	task_rec(4, PID, PID, PID, PID, T0 + 1000000ull * (nsamples + 2));
}

static void build_id_entry(int old, uint16_t misc, const char *name, unsigned char seed)
{
	size_t nlen = strlen(name) + 1, al = (nlen + 63) & ~(size_t)63;
	unsigned char id[24] = { 0 };

	for (int k = 0; k < 20; k++)
		id[k] = (unsigned char)(seed + 17 * k);
	hdr(0, misc, (uint16_t)((old ? 32 : 36) + al));
	if (!old)
		p32(0xffffffffu);	/* HOST_KERNEL_ID */
	put(id, 24);
	put(name, nlen - 1);
	zeros(al - nlen + 1);
}

int main(int argc, char **argv)
{
	unsigned hsize = 104, nsamples = 400, i, k;
	int bid = 2, pipe_mode = 0, evtypes = 0, notime = 0, c;
	size_t ids_off, attrs_off, ev_off, data_off, data_end;
	FILE *f;

	while ((c = getopt(argc, argv, "sH:A:S:b:e:n:TEp")) != -1) {
		switch (c) {
		case 's': swap = 1; break;
		case 'H': hsize = (unsigned)atoi(optarg); break;
		case 'A': attr_sz = (unsigned)atoi(optarg); break;
		case 'S': attr_size_field = (unsigned)atoi(optarg); break;
		case 'b':
			bid = !strcmp(optarg, "old") ? 1 : !strcmp(optarg, "new") ? 2 : 0;
			break;
		case 'e': nev = (unsigned)atoi(optarg); break;
		case 'n': nsamples = (unsigned)atoi(optarg); break;
		case 'T': notime = 1; break;
		case 'E': evtypes = 1; break;
		case 'p': pipe_mode = 1; break;
		default:
			fprintf(stderr, "usage: legacy-mk [-s] [-H 72|104] [-A 64|72|80|96|104] [-S N] "
				"[-b old|new|none] [-e N] [-n N] [-T] [-E] [-p] OUT\n");
			return 2;
		}
	}
	if (optind + 1 != argc || (hsize != 72 && hsize != 104) ||
	    (attr_sz != 64 && attr_sz != 72 && attr_sz != 80 && attr_sz != 96 &&
	     attr_sz != 104) || nev < 1 || nev > 8) {
		fprintf(stderr, "legacy-mk: bad arguments\n");
		return 2;
	}
	if (hsize == 72)
		bid = 0;
	sample_type = 0x1u | 0x2u | 0x100u | (notime ? 0 : 0x4u) | (nev > 1 ? 0x40u : 0);

	put("PERFFILE", 8);
	if (pipe_mode) {
		p64(16);
		for (i = 0; i < nev; i++) {
			hdr(64, 0, (uint16_t)(8 + attr_sz + 16));
			attr(i);
			for (k = 0; k < 2; k++)
				p64(id_of(i, k));
		}
		data(nsamples);
		goto write;
	}
	zeros(hsize - 8);
	/* perf_header__write: the ids, the attrs, the event types, data */
	ids_off = len;
	for (i = 0; i < nev; i++)
		for (k = 0; k < 2; k++)
			p64(id_of(i, k));
	attrs_off = len;
	for (i = 0; i < nev; i++) {
		attr(i);
		p64(ids_off + 16 * i);
		p64(16);
	}
	ev_off = len;
	if (evtypes) {
		char name[64] = "legacy:event0";

		p64(0);
		put(name, sizeof(name));
	}
	data_off = len;
	data(nsamples);
	data_end = len;
	if (bid) {
		size_t sec = len, start;

		zeros(16);
		start = len;
		build_id_entry(bid == 1, 1, "[kernel.kallsyms]", 0x11);
		build_id_entry(bid == 1, 2, "/usr/local/bin/legacy-workload", 0x42);
		set64(sec, start);
		set64(sec + 8, len - start);
	}
	set64(8, hsize);
	set64(16, attr_sz + 16);
	set64(24, attrs_off);
	set64(32, (uint64_t)nev * (attr_sz + 16));
	set64(40, data_off);
	set64(48, data_end - data_off);
	set64(56, ev_off);
	set64(64, data_off - ev_off);
	if (hsize == 104 && bid)
		set64(72, 1u << 2);	/* HEADER_BUILD_ID, in an unsigned long */
write:
	f = fopen(argv[optind], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(argv[optind]);
		return 1;
	}
	free(buf);
	return 0;
}
