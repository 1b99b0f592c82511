/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * self-profile: a program that counts events around one of its own
 * functions through the hw backend plugin (perf_event_open), without
 * shelling out to perf.
 *
 * The backend is found in the plugin registry (PERFRING_PLUGIN_PATH, then
 * the installed plugins directory), and driven through its function table
 * (<perfring/backend.h>): open in counting mode on this process, start,
 * run the function, stop, read the counts scaled by
 * TOTAL_TIME_ENABLED / TOTAL_TIME_RUNNING.
 *
 *   make                       (cc ... $(pkg-config --cflags --libs perfring))
 *   ./self-profile [EVENTS]    default: task-clock,page-faults
 *
 * Exit status: 0 ok, 1 the events cannot be opened here (the message says
 * why, e.g. kernel.perf_event_paranoid), 2 no hw backend plugin found.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/plugin.h>

/* The function we measure: touches fresh pages (page faults) and computes. */
static uint64_t __attribute__((noinline)) work(size_t mib)
{
	size_t len = mib << 20;
	unsigned char *p = malloc(len);
	uint64_t sum = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < len; i += 64)
		p[i] = (unsigned char)i;
	for (int round = 0; round < 20; round++)
		for (size_t i = 0; i < len; i += 64)
			sum = sum * 31 + p[i] + (uint64_t)round;
	free(p);
	return sum;
}

/* The backend plugin's table, from the registry. */
static const struct perfring_backend_ops *find_backend(struct perfring_registry *reg)
{
	for (size_t i = 0; i < perfring_registry_count(reg); i++) {
		const struct perfring_plugin *p = perfring_registry_plugin_at(reg, i);
		const struct perfring_plugin_descriptor *d;

		if (perfring_plugin_kind(p) != PERFRING_PLUGIN_KIND_BACKEND)
			continue;
		d = perfring_plugin_borrow_descriptor(p);
		/* ABI rule: use only the functions the table's size covers. */
		if (d && d->backend_ops &&
		    d->backend_ops->struct_size >= offsetof(struct perfring_backend_ops, read_count) +
						   sizeof(d->backend_ops->read_count))
			return d->backend_ops;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "task-clock,page-faults";
	struct perfring_registry *reg;
	const struct perfring_backend_ops *ops;
	struct perfring_backend *b;
	struct perfring_diag diag = { 0 };
	char msg[1024];
	uint64_t sum;
	int err;

	if (perfring_registry_new(0, &reg) < 0 ||
	    perfring_registry_load_default(reg, &diag) < 0) {
		fprintf(stderr, "self-profile: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
		return 2;
	}
	ops = find_backend(reg);
	if (!ops) {
		fprintf(stderr, "self-profile: no backend plugin in PERFRING_PLUGIN_PATH or %s\n",
			perfring_registry_plugins_dir());
		perfring_registry_free(reg);
		return 2;
	}

	/* Counting mode on this very process (all its threads). */
	PERFRING_BACKEND_OPTS(opts, .mode = PERFRING_BACKEND_COUNT, .events = events,
			      .pid = (int)getpid());
	err = ops->open(&opts, &diag, &b);
	if (err < 0) {
		fprintf(stderr, "self-profile: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
		perfring_registry_free(reg);
		return 1;
	}
	err = ops->start(b, &diag);
	if (err < 0) {
		fprintf(stderr, "self-profile: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
		ops->close(b);
		perfring_registry_free(reg);
		return 1;
	}
	sum = work(64);			/* <- the measured region */
	ops->stop(b);

	printf("work(64 MiB) = %016" PRIx64 "\n", sum);
	printf("%20s  %-16s %s\n", "count (scaled)", "event", "running/enabled");
	for (uint32_t i = 0; i < ops->nr_events(b); i++) {
		PERFRING_EVENT_DESC(ev);
		struct perfring_backend_count c = { .sz = sizeof(c) };

		if (ops->event(b, i, &ev) < 0 || ops->read_count(b, i, &c) < 0)
			continue;
		if (!c.supported)
			printf("%20s  %-16s\n", "<not supported>", ev.name);
		else if (!c.counted)
			printf("%20s  %-16s\n", "<not counted>", ev.name);
		else
			printf("%20" PRIu64 "  %-16s %.1f%%\n", c.scaled, ev.name,
			       c.enabled ? 100.0 * (double)c.running / (double)c.enabled : 100.0);
	}
	ops->close(b);
	perfring_registry_free(reg);
	return 0;
}
