/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/markers: a multi-threaded program that marks what it does, for
 * the profile to say which work each sample belongs to.
 *
 *   markers [THREADS [REQUESTS]]        (default 2 threads, 200 requests)
 *
 * Each worker thread serves REQUESTS requests.  A request is a span
 * "request" (its value: the request's number) holding two spans: "parse",
 * which spends its time in parse_input(), and "render", which spends about
 * three times as long in render_pixels().  Every 50th request marks an
 * instant named inline, "checkpoint", with a text.  A SIGPROF timer
 * (setitimer ITIMER_PROF, every 10 ms of CPU time) marks an instant "tick"
 * from its handler: the handler interrupts spans and marks into the same
 * ring (each thread calls perfring_marks_thread_init first, so that no
 * handler is the first to mark on its thread).
 *
 * Under perfring-record, perf script shows the markers among the samples;
 * `perfring-replay --span render` keeps the samples taken inside render
 * spans, whose top function is render_pixels.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <perfring/marks.h>

static int id_request, id_parse, id_render, id_tick;
static volatile uint64_t sink;

/* Work that the profile should name: kept out of line, with real loops. */
__attribute__((noinline)) static uint64_t parse_input(uint64_t seed)
{
	uint64_t h = seed | 1;

	for (int i = 0; i < 200000; i++)
		h = h * 6364136223846793005ull + 1442695040888963407ull;
	return h;
}

__attribute__((noinline)) static uint64_t render_pixels(uint64_t seed)
{
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 600000; i++)
		h ^= (h << 7) ^ (h >> 9) ^ (uint64_t)i;
	return h;
}

static void on_prof(int sig)
{
	static volatile sig_atomic_t ticks;

	(void)sig;
	perfring_mark_id(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, id_tick, (uint64_t)++ticks, NULL);
}

struct worker {
	pthread_t th;
	unsigned nr, requests;
	int err;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	w->err = perfring_marks_thread_init();
	if (w->err)
		return NULL;
	for (unsigned r = 0; r < w->requests; r++) {
		uint64_t n = (uint64_t)w->nr << 32 | r;

		perfring_mark_id(PERFRING_MARK_BEGIN | PERFRING_MARK_VALUE, id_request, n, NULL);
		perfring_span_begin(id_parse);
		sink += parse_input(n);
		perfring_span_end(id_parse);
		perfring_span_begin(id_render);
		sink += render_pixels(n);
		perfring_span_end(id_render);
		if (r % 50 == 49)
			perfring_mark_str(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, "checkpoint", r + 1,
					  "50 more served");
		perfring_mark_id(PERFRING_MARK_END, id_request, 0, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
	unsigned requests = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct perfring_marks_stats st = { .sz = sizeof(st) };
	struct sigaction sa;
	struct worker *w;
	int rc = 0;

	if (threads < 1 || threads > 64 || requests < 1) {
		fprintf(stderr, "usage: markers [THREADS (1-64) [REQUESTS]]\n");
		return 2;
	}
	id_request = perfring_mark_register("request");
	id_parse = perfring_mark_register("parse");
	id_render = perfring_mark_register("render");
	id_tick = perfring_mark_register("tick");
	if (id_request < 0 || id_parse < 0 || id_render < 0 || id_tick < 0) {
		fprintf(stderr, "markers: cannot register the names\n");
		return 1;
	}
	if (perfring_marks_thread_init()) {
		fprintf(stderr, "markers: no marker ring for the main thread\n");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	w = calloc(threads, sizeof(*w));
	if (!w)
		return 1;
	perfring_mark_str(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, "start", threads, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	for (unsigned i = 0; i < threads; i++) {
		w[i].nr = i;
		w[i].requests = requests;
		if (pthread_create(&w[i].th, NULL, work, &w[i])) {
			fprintf(stderr, "markers: pthread_create failed\n");
			return 1;
		}
	}
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].err) {
			fprintf(stderr, "markers: thread %u: no marker ring (%s)\n", i, strerror(-w[i].err));
			rc = 1;
		}
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	perfring_mark_str(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, "done", threads * requests, NULL);
	perfring_marks_get_stats(&st);
	printf("markers: %u threads, %u requests each: %llu markers, %llu dropped, %llu rings\n",
	       threads, requests, (unsigned long long)st.marks, (unsigned long long)st.dropped,
	       (unsigned long long)st.rings);
	free(w);
	return rc;
}
