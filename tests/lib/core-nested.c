/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The freestanding core (lib/libperfring-core.a, built as kernels build)
 * nests: a signal, standing in for an interrupt on the same CPU, writes
 * its own record while the interrupted code is between reserve and commit,
 * and both records come out whole, the outer one first, with data_head
 * published only by the outer commit.  No signal is masked anywhere.
 *
 * Part 1 is deterministic (raise() inside an open reservation).  Part 2
 * lets a profiling timer interrupt a loop of reserve/copy/commit and
 * write calls at random points, with the same thread draining the ring,
 * and checks that every record of both streams arrives in order, intact.
 * Exit 0 when all holds; prints TAP.
 */
#include <perfring/core/core.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define DATA_SIZE (1u << 16)

static struct perfring_mmap_page page __attribute__((aligned(64)));
static unsigned char data[DATA_SIZE] __attribute__((aligned(64)));
static struct perfring_core_wstate ws;
static struct perfring_core_ring ring;
static int tn, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++tn, what);
	if (!cond)
		failed = 1;
}

static const struct perfring_attr attr = {
	.size = PERFRING_ATTR_SIZE_VER8,
	.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
		       PERFRING_SAMPLE_CALLCHAIN | PERFRING_SAMPLE_PERIOD,
	.flags = PERFRING_ATTR_SAMPLE_ID_ALL,
};

/* ---- the "interrupt handler" ------------------------------------------------ */
static volatile uint64_t h_seq, h_nested, h_head_seen, h_err;

static void handler(int sig)
{
	unsigned char rec[128];
	uint64_t cc[3] = { PERFRING_CONTEXT_KERNEL, 0x1000, 0x2000 };
	struct perfring_sample s = { .ip = 0x1234, .pid = 7, .tid = 7, .time = h_seq,
				     .period = 1, .callchain_nr = 3, .callchain = cc };
	int n;

	(void)sig;
	if (ws.nest)
		h_nested++;
	n = perfring_core_sample_encode(&attr, &s, PERFRING_MISC_KERNEL, rec, sizeof(rec));
	if (n < 0 || perfring_core_write(&ring, rec) != 0)
		h_err++;
	else
		h_seq++;
	h_head_seen = page.data_head;
}

/* A 48-byte record of the outer code: type 200, its sequence number in it. */
static void outer_rec(unsigned char *r, uint64_t seq)
{
	struct perfring_event_header h = { 200, 0, 48 };
	unsigned i;

	memcpy(r, &h, 8);
	for (i = 0; i < 5; i++) {
		uint64_t v = seq * 8 + i;

		memcpy(r + 8 + 8 * i, &v, 8);
	}
}

/* ---- the reader: walk [tail, data_head), check, consume ------------------------ */
static uint64_t r_outer, r_inner, r_bad, r_lost;

static void drain(void)
{
	uint64_t head = __atomic_load_n(&page.data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = page.data_tail;

	while (pos < head) {
		unsigned char r[256];
		struct perfring_event_header h;
		size_t i;

		for (i = 0; i < 8; i++)
			r[i] = data[(pos + i) & (DATA_SIZE - 1)];
		memcpy(&h, r, 8);
		if (h.size < 8 || h.size > sizeof(r) || (h.size & 7) || pos + h.size > head) {
			r_bad++;
			break;
		}
		for (i = 8; i < h.size; i++)
			r[i] = data[(pos + i) & (DATA_SIZE - 1)];
		if (h.type == 200) {
			unsigned char want[48];

			outer_rec(want, r_outer);
			if (h.size != 48 || memcmp(r, want, 48))
				r_bad++;
			r_outer++;
		} else if (h.type == PERFRING_RECORD_SAMPLE) {
			uint64_t t;

			memcpy(&t, r + 24, 8);	/* ip, pid/tid, then time */
			if (t != r_inner)
				r_bad++;
			r_inner++;
		} else if (h.type == PERFRING_RECORD_LOST) {
			uint64_t n;

			memcpy(&n, r + 16, 8);
			r_lost += n;
		} else if (h.type != PERFRING_RECORD_PAD) {
			r_bad++;
		}
		pos += h.size;
	}
	__atomic_store_n(&page.data_tail, pos, __ATOMIC_RELEASE);
}

int main(void)
{
	struct perfring_wr w;
	unsigned char rec[48];
	struct itimerval it = { { 0, 37 }, { 0, 37 } };
	struct timespec t0, t1;
	uint64_t seq = 0, loops = 0;
	double el;

	perfring_core_page_init(&page, 4096, DATA_SIZE, &ws);
	ok(perfring_core_ring_init(&ring, &page, data, DATA_SIZE, &ws, 0) == 0, "ring set up");
	perfring_core_ring_set_lost(&ring, &attr, 0, NULL, NULL, NULL);
	signal(SIGUSR1, handler);
	signal(SIGALRM, handler);

	/* 1: an interrupt inside an open reservation */
	outer_rec(rec, seq);
	ok(perfring_core_reserve(&ring, 48, &w) == 0, "outer reserve");
	perfring_core_copy(&ring, &w, 0, rec, 24);
	raise(SIGUSR1);
	ok(h_seq == 1 && h_err == 0, "the interrupt wrote its record inside the outer one");
	ok(h_nested == 1, "... while the outer reservation was open");
	ok(h_head_seen == 0, "... and did not publish data_head (the outer record is unfinished)");
	perfring_core_copy(&ring, &w, 24, rec + 24, 24);
	perfring_core_commit(&ring, &w);
	seq++;
	ok(page.data_head == 48 + 72, "the outer commit published both records (data_head 120)");
	drain();
	ok(r_outer == 1 && r_inner == 1 && r_bad == 0,
	   "both read back whole: the outer first, the interrupt's after it");

	/* 2: interrupts at random points, for half a second */
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		unsigned i;

		for (i = 0; i < 64; i++, loops++) {
			outer_rec(rec, seq);
			if (loops & 1) {
				if (perfring_core_write(&ring, rec) == 0)
					seq++;
			} else if (perfring_core_reserve(&ring, 48, &w) == 0) {
				perfring_core_copy(&ring, &w, 0, rec, 16);
				perfring_core_copy(&ring, &w, 16, rec + 16, 32);
				perfring_core_commit(&ring, &w);
				seq++;
			}
			if ((i & 7) == 7)
				drain();
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	} while (el < 0.5 || (h_nested < 100 && el < 20));
	{
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
	}
	drain();
	printf("# %llu outer records, %llu by the handler (%llu inside an open outer write), "
	       "%llu lost\n", (unsigned long long)seq, (unsigned long long)h_seq,
	       (unsigned long long)h_nested, (unsigned long long)r_lost);
	ok(r_bad == 0, "no damaged or out-of-order record");
	ok(r_lost == 0 && ws.dropped == 0, "nothing lost (the reader kept up)");
	ok(r_outer == seq && r_inner == h_seq, "every record of both streams read back");
	ok(h_nested > 0, "interrupts did land inside outer writes");
	ok(h_err == 0, "every write in the handler succeeded");
	printf("1..%d\n", tn);
	return failed;
}
