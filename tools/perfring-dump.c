/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-dump: decode perfring ring files, perf.data files and pipe-mode
 * streams (the input kind is told by its magic, never by its name).
 *
 *   default   one line per record: offset, time, cpu, pid/tid, type, fields
 *   --json    JSON lines through tools/json-codec (what perfring-replay
 *             --json-in reads): ATTR lines first, then one line per record
 *   --stats   "TYPE COUNT" per record type present, in type order, counted
 *             as perf report -D counts them, then "TOTAL N"
 *   --check   validate; one line per problem with the offset of its record:
 *             record sizes (8-aligned except the user types perf writes
 *             unaligned: FEATURE, BUILD_ID, COMPRESSED, TRACING_DATA), the
 *             minimum size of each type, the exact body + sample_id_all
 *             trailer of kernel types (a missing or short trailer is named
 *             as such), strings NUL-terminated in their field, the plugins'
 *             and the SAMPLE codec's checks (counts running past the
 *             record), sample ids no attr lists, attrs perf cannot mix,
 *             time order (perf.data: perf's FINISHED_ROUND rule,
 *             doc/perf-format.md 5.7; rings: per task and CPU, as one ring
 *             may hold several kernel rings' records), and the LOST totals
 *             in the summary
 *   --header  file header, attrs (names, ids) and features
 *
 * Exit: 0 ok, 1 problems found (--check), 2 usage error or unreadable or
 * damaged input (the records before the damage are printed first).
 *
 * Hot paths format by hand into one line buffer and write through a 1 MiB
 * stdout buffer; nothing is allocated per record.
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

#include <perfring/marks.h>

#include "json-codec.h"
#include "marks-merge.h"
#include "num-fmt.h"
#include "tool-common.h"

TOOL_DEFINE_BUILD_PLUGINS_PATH;

static gboolean opt_version;
static gboolean opt_list_plugins;
static gboolean opt_verbose;
static gboolean opt_json;
static gboolean opt_stats;
static gboolean opt_check;
static gboolean opt_header;
static gchar **opt_types;
static gint opt_pid = -1;
static gboolean opt_pid_set;

static gboolean parse_pid(const gchar *name, const gchar *value, gpointer data, GError **error)
{
	char *end;
	long v;

	(void)name;
	(void)data;
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || *end || end == value || v < -1 || v > INT32_MAX) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--pid: not a process id: %s", value);
		return FALSE;
	}
	opt_pid = (gint)v;
	opt_pid_set = TRUE;
	return TRUE;
}

static const GOptionEntry entries[] = {
	{ "json", 'j', 0, G_OPTION_ARG_NONE, &opt_json,
	  "One JSON object per line (ATTR lines first), as perfring-replay --json-in reads", NULL },
	{ "stats", 's', 0, G_OPTION_ARG_NONE, &opt_stats,
	  "Count records per type as perf report -D does (TYPE COUNT, then TOTAL N)", NULL },
	{ "check", 'c', 0, G_OPTION_ARG_NONE, &opt_check,
	  "Validate the stream: print every problem with its offset; exit 1 if any", NULL },
	{ "header", 'H', 0, G_OPTION_ARG_NONE, &opt_header,
	  "Print the file header, the attrs (names, ids) and the features", NULL },
	{ "type", 't', 0, G_OPTION_ARG_STRING_ARRAY, &opt_types,
	  "Only records of these types (perf names, e.g. SAMPLE,MMAP2; repeatable)", "T[,T]" },
	{ "pid", 'p', 0, G_OPTION_ARG_CALLBACK, (gpointer)parse_pid,
	  "Only records of process P (sample pid, body pid or sample_id_all pid)", "P" },
	{ "list-plugins", 0, 0, G_OPTION_ARG_NONE, &opt_list_plugins,
	  "List the plugins found (name, kind, record types, plugin ABI, file) and exit", NULL },
	{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose,
	  "With --list-plugins: also list the shadowed plugin files", NULL },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	  "Show the library version and plugin ABI and exit", NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

static struct perfring_registry *reg;

/* ---- output: one line buffer, hand-rolled number formatting --------------- */

#define LB_SIZE (4 * 65536 + 4096)	/* a 64 KiB record as hex, and more */
static char lb[LB_SIZE];
static size_t ll;

static inline void put_c(char c)
{
	if (ll < LB_SIZE - 1)
		lb[ll++] = c;
}

static inline void put_mem(const char *s, size_t n)
{
	if (n > LB_SIZE - 1 - ll)
		n = LB_SIZE - 1 - ll;
	memcpy(lb + ll, s, n);
	ll += n;
}

static inline void put_s(const char *s)
{
	put_mem(s, strlen(s));
}

static void put_u(uint64_t v)
{
	char t[NUM_DEC_MAX];
	const char *d = num_dec(t, v);

	put_mem(d, (size_t)(t + NUM_DEC_MAX - d));
}

static void put_i(int64_t v)
{
	if (v < 0) {
		put_c('-');
		put_u((uint64_t)0 - (uint64_t)v);
	} else {
		put_u((uint64_t)v);
	}
}

/* "0x" and at least `width` hex digits */
static void put_x(uint64_t v, int width)
{
	char t[NUM_HEX_MAX];
	const char *d = num_hex(t, v, width);

	put_mem("0x", 2);
	put_mem(d, (size_t)(t + NUM_HEX_MAX - d));
}

static void put_bytes_hex(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n && ll + 4 < LB_SIZE; i++) {
		if (i)
			lb[ll++] = ' ';
		lb[ll++] = num_hex_digits[p[i] >> 4];
		lb[ll++] = num_hex_digits[p[i] & 15];
	}
}

static void put_time(uint64_t t)
{
	char t9[9];
	uint64_t ns = t % 1000000000u;

	put_u(t / 1000000000u);
	put_c('.');
	for (int i = 8; i >= 0; i--) {
		t9[i] = (char)('0' + ns % 10);
		ns /= 10;
	}
	put_mem(t9, 9);
}

static void end_line(void)
{
	lb[ll++] = '\n';
	fwrite(lb, 1, ll, stdout);
	ll = 0;
}

/* ---- inputs ----------------------------------------------------------------- */

static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t get16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* A record as the library's source reader returns it. */
typedef struct perfring_source_record item_t;

#define REC(it) ((const unsigned char *)(it)->hdr)

struct dump {
	const char *path;
	bool is_ring;
	int status;
	struct perfring_source *src;
	struct perfring_perfdata *pd;	/* borrowed from src: perf.data only */
	/* events (refreshed as attrs come in pipe mode) */
	size_t nr_events;
	const struct perfring_attr **attrs;
	const uint64_t **ids;
	size_t *nr_ids;
	const char **names;
	size_t nr_listed_ids;
	/* counts */
	uint64_t by_type[PERFRING_PERFDATA_STATS_TYPES], other, total, bytes;
	uint64_t lost_records, lost, lost_samples_records, lost_samples;
	/* --check */
	uint64_t problems;
	uint64_t nr_rounds, round_limit, round_max, last_round_max, round_off, prev_round_off;
	GHashTable *last_time;		/* ring: (tid, cpu) -> time */
	size_t attrs_checked;
	bool id_index_seen;
	/* --json, pipe mode: records read ahead until the attrs are known */
	size_t attrs_printed;
	GString *js;
};

static void refresh_events(struct dump *d)
{
	size_t n = perfring_source_nr_events(d->src);

	if (n != d->nr_events) {
		d->attrs = g_renew(const struct perfring_attr *, d->attrs, n + 1);
		d->ids = g_renew(const uint64_t *, d->ids, n + 1);
		d->nr_ids = g_renew(size_t, d->nr_ids, n + 1);
		d->names = g_renew(const char *, d->names, n + 1);
		d->nr_events = n;
	}
	/* names may arrive later (pipe mode): refresh them too */
	d->nr_listed_ids = 0;
	for (size_t i = 0; i < n; i++) {
		PERFRING_EVENT_DESC(e);

		perfring_source_event(d->src, (uint32_t)i, &e);
		d->attrs[i] = e.attr;
		d->ids[i] = e.ids;
		d->nr_ids[i] = e.nr_ids;
		d->names[i] = e.name;
		d->nr_listed_ids += e.nr_ids;
	}
}

static void diag_fallback(struct perfring_diag *diag, const char *path, int ret)
{
	if (!diag->msg[0])
		snprintf(diag->msg, sizeof(diag->msg), "%s", g_strerror(-ret));
	if (!diag->file[0])
		snprintf(diag->file, sizeof(diag->file), "%s", path);
}

static int open_source(struct dump *d)
{
	struct perfring_diag diag = { 0 };
	/* a larger window: fewer read(2) calls on big files */
	PERFRING_SOURCE_OPTS(o, .window = 1 << 20);
	int ret;

	ret = perfring_source_open(d->path, &o, &diag, &d->src);
	if (ret < 0) {
		diag_fallback(&diag, d->path, ret);
		tool_error_diag(&diag);
		return -1;
	}
	d->is_ring = perfring_source_kind(d->src) == PERFRING_SOURCE_RING;
	d->pd = perfring_source_perfdata(d->src);
	refresh_events(d);
	return 0;
}

static void close_source(struct dump *d)
{
	perfring_source_close(d->src);
	/* the arrays are ours, the pointers in them borrowed */
	g_free(d->attrs);
	g_free(d->ids);
	g_free(d->nr_ids);
	g_free(d->names);
	if (d->last_time)
		g_hash_table_destroy(d->last_time);
	if (d->js)
		g_string_free(d->js, TRUE);
}

/* Damage that ends the walk: on stderr, as a --check problem, and the status. */
static void report_damage(struct dump *d, struct perfring_diag *diag, int err)
{
	diag_fallback(diag, d->path, err);
	fflush(stdout);
	tool_error_diag(diag);
	if (opt_check) {
		char buf[1024];

		printf("%s\n", perfring_diag_format(diag, buf, sizeof(buf)));
		d->problems++;
	}
	d->status = TOOL_EXIT_USAGE;
}

static void problem(struct dump *d, uint64_t offset, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/*
 * The next record: 1, 0 at the end, -1 on damage (reported on stderr and
 * in --check output; the status becomes TOOL_EXIT_USAGE).
 */
static int next_record(struct dump *d, item_t *it)
{
	struct perfring_diag diag;	/* not zeroed: 800 bytes per record */
	int ret;

	tool_diag_reset(&diag);
	it->sz = sizeof(*it);
	ret = perfring_source_next(d->src, it, &diag);
	if (ret == 1) {
		if (it->type == PERFRING_RECORD_HEADER_ATTR ||
		    it->type == PERFRING_RECORD_HEADER_FEATURE ||
		    it->type == PERFRING_RECORD_EVENT_UPDATE ||
		    it->type == PERFRING_RECORD_HEADER_EVENT_TYPE)
			refresh_events(d);
		return 1;
	}
	if (ret == 0)
		return 0;
	/* the damage is a problem too, and the last one */
	report_damage(d, &diag, ret);
	return -1;
}

/* ---- record helpers ---------------------------------------------------------- */

static const char *type_name(uint32_t type, char *buf, size_t len)
{
	const char *n = perfring_record_type_name(type);

	if (n)
		return n;
	snprintf(buf, len, "TYPE%" PRIu32, type);
	return buf;
}

/* The trailer of a kernel-type record, if its attr has one and it fits. */
static bool trailer(const item_t *it, struct perfring_sample_id *sid)
{
	if (!it->attr || it->type >= PERFRING_RECORD_HEADER_ATTR ||
	    it->type == PERFRING_RECORD_SAMPLE || it->type == PERFRING_RECORD_PAD ||
	    !(it->attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return false;
	return perfring_sample_id_decode(it->attr->sample_type, REC(it), it->size, sid) == 0;
}

/*
 * Body pid of the records that name a task: the side-band ones through
 * the library's decoders; READ, ITRACE_START and NAMESPACES (which have
 * no decoder) hold it as their first u32 too.
 */
static bool body_pid(const item_t *it, int32_t *pid)
{
	struct perfring_comm c;
	struct perfring_mmap2 m;
	struct perfring_task t;

	switch (it->type) {
	case PERFRING_RECORD_COMM:
		if (perfring_comm_decode(it->attr, REC(it), it->size, &c, NULL, NULL, NULL, NULL))
			return false;
		*pid = (int32_t)c.pid;
		return true;
	case PERFRING_RECORD_MMAP:
	case PERFRING_RECORD_MMAP2:
		if (perfring_mmap2_decode(it->attr, REC(it), it->size, &m, NULL, NULL))
			return false;
		*pid = (int32_t)m.pid;
		return true;
	case PERFRING_RECORD_EXIT:
	case PERFRING_RECORD_FORK:
		if (perfring_task_decode(it->attr, REC(it), it->size, &t, NULL, NULL))
			return false;
		*pid = (int32_t)t.pid;
		return true;
	case PERFRING_RECORD_READ:
	case PERFRING_RECORD_ITRACE_START:
	case PERFRING_RECORD_NAMESPACES:
		if (it->size < 12)
			return false;
		*pid = (int32_t)get32(REC(it) + 8);
		return true;
	default:
		return false;
	}
}

static bool id_known(const struct dump *d, uint64_t id)
{
	return perfring_source_event_by_id(d->src, id) >= 0;
}

/* ---- filters ------------------------------------------------------------------ */

static bool *type_filter;	/* [65536 + 1]: index 65536 = types above */

static int parse_types(void)
{
	if (!opt_types)
		return 0;
	type_filter = g_new0(bool, 65537);
	for (gchar **t = opt_types; *t; t++) {
		gchar **parts = g_strsplit(*t, ",", -1);

		for (gchar **p = parts; *p; p++) {
			uint32_t type;
			char *end;
			unsigned long v;

			if (!**p)
				continue;
			if (perfring_record_type_from_name(*p, &type) == 0) {
				type_filter[type < 65536 ? type : 65536] = true;
				continue;
			}
			v = strtoul(*p, &end, 0);
			if (*end || end == *p || v > UINT32_MAX) {
				tool_error("--type: unknown record type \"%s\" (use perf's names: SAMPLE, MMAP2, COMM, ...)",
					   *p);
				g_strfreev(parts);
				return -1;
			}
			type_filter[v < 65536 ? v : 65536] = true;
		}
		g_strfreev(parts);
	}
	return 0;
}

static bool wanted(const item_t *it)
{
	if (type_filter && !type_filter[it->type < 65536 ? it->type : 65536])
		return false;
	if (opt_pid_set) {
		struct perfring_sample_id sid;
		int32_t pid;

		if (it->type == PERFRING_RECORD_SAMPLE) {
			uint64_t st;
			size_t pos = 8;

			if (!it->attr || !((st = it->attr->sample_type) & PERFRING_SAMPLE_TID))
				return false;
			pos += 8 * (!!(st & PERFRING_SAMPLE_IDENTIFIER) + !!(st & PERFRING_SAMPLE_IP));
			return pos + 4 <= it->size && (int32_t)get32(REC(it) + pos) == opt_pid;
		}
		if (body_pid(it, &pid) && pid == opt_pid)
			return true;
		if (trailer(it, &sid) && (it->attr->sample_type & PERFRING_SAMPLE_TID))
			return (int32_t)sid.pid == opt_pid;
		return false;
	}
	return true;
}

/* ---- text output ---------------------------------------------------------------- */

static char fmt_buf[65536 * 4];

/* "TEXT" with '"', '\\' and bytes outside ASCII's printable ones escaped (\xNN) */
static void put_quoted(const char *s, size_t n)
{
	put_c('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			put_c('\\');
			put_c((char)c);
		} else if (c < 0x20 || c > 0x7e) {
			put_s("\\x");
			put_c(num_hex_digits[c >> 4]);
			put_c(num_hex_digits[c & 15]);
		} else {
			put_c((char)c);
		}
	}
	put_c('"');
}

static const char *const mark_kinds[] = { "instant", "begin", "end", "name", "thread" };

/*
 * The RAW data of a marker event, decoded: a marker ring's records
 * (perfring_mark_decode) or perfring:mark samples merged into a perf.data
 * (marks_sample_decode).  False when it is neither (the hex is printed).
 */
static bool put_marker(const struct dump *d, const item_t *it, const struct perfring_sample *s)
{
	const struct perfring_attr *a = it->attr;
	const char *name = it->event >= 0 && (size_t)it->event < d->nr_events ?
			   d->names[it->event] : NULL;

	if (!name || strcmp(name, MARKS_EVENT_NAME) || !s->raw_size)
		return false;
	if (a->type == PERFRING_TYPE_SOFTWARE) {
		struct perfring_mark m = { .sz = sizeof(m) };

		if (perfring_mark_decode(s->raw, s->raw_size, &m) < 0) {
			put_s(" mark (malformed)");
			return false;
		}
		put_s(" mark ");
		put_s(mark_kinds[m.kind]);
		if (m.kind == PERFRING_MARK_THREAD) {
			put_s(" pid=");
			put_u(m.value >> 32);
			put_s(" tid=");
			put_u(m.value & 0xffffffffu);
		} else if (m.id) {
			put_s(" id=");
			put_u(m.id);
		}
		if (m.name) {
			put_s(" name=");
			put_quoted(m.name, m.name_len);
		}
		if (m.kind != PERFRING_MARK_THREAD && (m.flags & PERFRING_MARKF_VALUE)) {
			put_s(" value=");
			put_u(m.value);
		}
		if (m.text) {
			put_s(" text=");
			put_quoted(m.text, m.text_len);
		}
		return true;
	}
	if (a->type == PERFRING_TYPE_TRACEPOINT) {
		struct marks_sample m;

		if (marks_sample_decode(s->raw, s->raw_size, &m) < 0) {
			put_s(" mark (malformed)");
			return false;
		}
		put_s(" mark ");
		put_s(m.kind);
		put_c(' ');
		put_s(m.name);
		if (m.flags & PERFRING_MARKF_VALUE) {
			put_s(" value=");
			put_u(m.value);
		}
		if (m.flags & PERFRING_MARKF_TEXT) {
			put_s(" text=");
			put_quoted(m.text, strlen(m.text));
		}
		put_s(" pid=");
		put_i(m.pid);
		put_s(" tid=");
		put_i(m.tid);
		put_s(" depth=");
		put_i(m.depth);
		return true;
	}
	return false;
}

static void put_sample(const struct dump *d, const item_t *it, const struct perfring_sample *s)
{
	uint64_t st = it->attr->sample_type;
	uint16_t misc = get16(REC(it) + 4);

	if (st & PERFRING_SAMPLE_IP) {
		put_s(" ip ");
		put_x(s->ip, 1);
	}
	if (st & PERFRING_SAMPLE_ADDR) {
		put_s(" addr ");
		put_x(s->addr, 1);
	}
	if (st & PERFRING_SAMPLE_PERIOD) {
		put_s(" period ");
		put_u(s->period);
	}
	switch (misc & PERFRING_MISC_CPUMODE_MASK) {
	case PERFRING_MISC_KERNEL: put_s(" kernel"); break;
	case PERFRING_MISC_USER: put_s(" user"); break;
	case PERFRING_MISC_HYPERVISOR: put_s(" hv"); break;
	case PERFRING_MISC_GUEST_KERNEL: put_s(" guest-kernel"); break;
	case PERFRING_MISC_GUEST_USER: put_s(" guest-user"); break;
	default: break;
	}
	if (d->nr_events > 1 && it->event >= 0 && (size_t)it->event < d->nr_events) {
		put_s(" event ");
		if (d->names[it->event])
			put_s(d->names[it->event]);
		else
			put_u((uint64_t)it->event);
	}
	if (st & PERFRING_SAMPLE_CALLCHAIN) {
		unsigned shown = 0;

		put_s(" chain ");
		put_u(s->callchain_nr);
		put_c(':');
		for (uint64_t i = 0; i < s->callchain_nr; i++) {
			uint64_t ip = get64(s->callchain + i);

			if (ip >= PERFRING_CONTEXT_MAX)
				continue;	/* context marker */
			if (shown == 4) {
				put_s(" ...");
				break;
			}
			put_c(' ');
			put_x(ip, 1);
			shown++;
		}
	}
	if (st & PERFRING_SAMPLE_READ) {
		put_s(" read ");
		put_u(s->nr_read_words);
		put_s(" words");
	}
	if ((st & PERFRING_SAMPLE_RAW) && put_marker(d, it, s)) {
		;	/* a marker, decoded */
	} else if (st & PERFRING_SAMPLE_RAW) {
		/* size, then the payload (a tracepoint's fields) as hex */
		put_s(" raw ");
		put_u(s->raw_size);
		if (s->raw_size) {
			put_c(' ');
			put_bytes_hex(s->raw, s->raw_size);
		}
	}
	if (st & PERFRING_SAMPLE_BRANCH_STACK) {
		put_s(" branches ");
		put_u(s->branch_nr);
	}
	if (st & PERFRING_SAMPLE_REGS_USER) {
		put_s(" regs_user ");
		put_u(s->regs_user_nr);
	}
	if (st & PERFRING_SAMPLE_STACK_USER) {
		put_s(" stack ");
		put_u(s->stack_user_dyn_size);
		put_c('/');
		put_u(s->stack_user_size);
	}
	if (st & (PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT)) {
		put_s(" weight ");
		put_u(s->weight);
	}
	if (st & PERFRING_SAMPLE_DATA_SRC) {
		put_s(" data_src ");
		put_x(s->data_src, 1);
	}
	if (st & PERFRING_SAMPLE_PHYS_ADDR) {
		put_s(" phys_addr ");
		put_x(s->phys_addr, 1);
	}
	if (st & PERFRING_SAMPLE_CGROUP) {
		put_s(" cgroup ");
		put_u(s->cgroup);
	}
	if (st & PERFRING_SAMPLE_AUX) {
		put_s(" aux ");
		put_u(s->aux_size);
	}
}

static void put_user_record(const item_t *it)
{
	const unsigned char *r = REC(it);
	size_t n = it->size;

	switch (it->type) {
	case PERFRING_RECORD_HEADER_ATTR:
		if (n >= 8 + 16) {
			put_s(" attr type ");
			put_u(get32(r + 8));
			put_s(" size ");
			put_u(get32(r + 12));
			put_s(" config ");
			put_x(get64(r + 16), 1);
		}
		return;
	case PERFRING_RECORD_HEADER_FEATURE:
		if (n >= 16) {
			const char *fn = get64(r + 8) < 256 ?
					 perfring_perfdata_feature_name((uint32_t)get64(r + 8)) : NULL;

			put_s(" feature ");
			put_u(get64(r + 8));
			if (fn) {
				put_c(' ');
				put_s(fn);
			}
			put_c(',');
			put_c(' ');
			put_u(n - 16);
			put_s(" bytes");
		}
		return;
	case PERFRING_RECORD_COMPRESSED:
		put_c(' ');
		put_u(n - 8);
		put_s(" bytes of zstd data");
		return;
	case PERFRING_RECORD_COMPRESSED2:	/* u64 data_size, then the data */
		put_c(' ');
		put_u(n >= 16 ? get64(r + 8) : 0);
		put_s(" bytes of zstd data");
		return;
	case PERFRING_RECORD_HEADER_TRACING_DATA:
	case PERFRING_RECORD_AUXTRACE:
		put_c(' ');
		put_u(it->extra_size);
		put_s(" bytes of payload after the record");
		return;
	case PERFRING_RECORD_FINISHED_ROUND:
	case PERFRING_RECORD_FINISHED_INIT:
		return;
	default:
		if (n > 8) {
			put_s(" raw ");
			put_bytes_hex(r + 8, n - 8);
		}
		return;
	}
}

static void text_record(struct dump *d, const item_t *it)
{
	struct perfring_sample_id sid;
	struct perfring_sample s;
	struct perfring_diag diag;
	const struct perfring_plugin *p;
	char tn[32];
	bool have_sid = false, sample_ok = false;
	uint64_t st = it->attr ? it->attr->sample_type : 0;

	put_x(it->offset, 8);
	if ((it->flags & PERFRING_SOURCE_REC_COMPRESSED)) {
		put_s("+z");
		put_x(it->inner_offset, 1);
	}
	put_c(' ');
	if (it->type == PERFRING_RECORD_SAMPLE && it->attr) {
		sample_ok = perfring_sample_decode(it->attr, REC(it), it->size, &s, &diag) == 0;
		if (sample_ok) {
			memset(&sid, 0, sizeof(sid));
			sid.pid = s.pid;
			sid.tid = s.tid;
			sid.time = s.time;
			sid.cpu = s.cpu;
			have_sid = true;
		}
	} else {
		have_sid = trailer(it, &sid);
	}
	if (have_sid && (st & PERFRING_SAMPLE_TIME))
		put_time(sid.time);
	else
		put_c('-');
	put_c(' ');
	if (have_sid && (st & PERFRING_SAMPLE_CPU))
		put_u(sid.cpu);
	else
		put_c('-');
	put_c(' ');
	if (have_sid && (st & PERFRING_SAMPLE_TID)) {
		put_i((int32_t)sid.pid);
		put_c('/');
		put_i((int32_t)sid.tid);
	} else {
		put_c('-');
	}
	put_c(' ');
	put_s(type_name(it->type, tn, sizeof(tn)));

	if (it->type == PERFRING_RECORD_SAMPLE) {
		if (sample_ok) {
			put_sample(d, it, &s);
		} else {
			put_s(" (does not decode");
			if (it->attr) {
				put_s(": ");
				put_s(diag.msg);
			}
			put_s(") raw ");
			put_bytes_hex(REC(it) + 8, it->size - 8);
		}
	} else if (it->type == PERFRING_RECORD_LOST && it->size >= 24) {
		put_s(" id ");
		put_u(get64(REC(it) + 8));
		put_s(" lost ");
		put_u(get64(REC(it) + 16));
	} else if (it->type == PERFRING_RECORD_LOST_SAMPLES && it->size >= 16) {
		put_s(" lost ");
		put_u(get64(REC(it) + 8));
	} else if (it->type < PERFRING_RECORD_HEADER_ATTR &&
		   (p = perfring_registry_find(reg, it->type))) {
		int n = perfring_plugin_format_text(p, it->attr, REC(it), it->size, fmt_buf,
						    sizeof(fmt_buf));

		if (n >= 0) {
			put_c(' ');
			put_s(fmt_buf);
		} else {
			put_s(" (malformed) raw ");
			put_bytes_hex(REC(it) + 8, it->size - 8);
		}
	} else if (it->type >= PERFRING_RECORD_HEADER_ATTR) {
		put_user_record(it);
	} else if (it->size > 8) {
		size_t body = it->size - 8;

		if (have_sid)
			body -= perfring_sample_id_size(st);
		if (body) {
			put_s(" raw ");
			put_bytes_hex(REC(it) + 8, body);
		}
	}
	end_line();
}

/* ---- --check -------------------------------------------------------------------- */

static void problem(struct dump *d, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	d->problems++;
	printf("%s: offset 0x%" PRIx64 ": ", d->path, offset);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}


static void check_attrs(struct dump *d, uint64_t offset)
{
	for (; d->attrs_checked < d->nr_events; d->attrs_checked++) {
		size_t i = d->attrs_checked;
		const struct perfring_attr *a = d->attrs[i], *a0 = d->attrs[0];
		uint64_t off = offset;

		if (!a)
			continue;
		if (!d->is_ring && !perfring_perfdata_is_pipe(d->pd)) {
			const struct perfring_perfdata_header *h = perfring_perfdata_header(d->pd);

			off = h->attrs_offset + i * h->attr_size;
		}
		if ((a->sample_type & PERFRING_SAMPLE_READ) &&
		    !(a->read_format & PERFRING_FORMAT_ID))
			problem(d, off, "attr %zu: sample_type READ without read_format ID: perf misreads these samples",
				i);
		if (i == 0 || !a0)
			continue;
		if ((a->flags & PERFRING_ATTR_SAMPLE_ID_ALL) != (a0->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
			problem(d, off, "attr %zu: sample_id_all differs from attr 0 (perf: non matching sample_id_all)",
				i);
		/* perf 6.1 only logs a read_format mismatch (debug level) */
		{
			int ip, is, ip0, is0;

			perfring_sample_id_pos(a->sample_type, &ip, &is);
			perfring_sample_id_pos(a0->sample_type, &ip0, &is0);
			if (ip != ip0 || is != is0 || ip < 0 || is < 0)
				problem(d, off, "attr %zu: the sample id is not where attr 0 has it, or missing (perf: non matching sample_type)",
					i);
		}
	}
}

static void check_time(struct dump *d, const item_t *it, uint64_t t)
{
	char tn[32];

	if (t == 0 || t == UINT64_MAX)
		return;		/* perf delivers these at once, unsorted */
	if (!d->is_ring) {
		/* doc/perf-format.md 5.7: after FINISHED_ROUND k, nothing
		 * older than the newest record seen before FINISHED_ROUND k-1 */
		if (t < d->round_limit)
			problem(d, it->offset,
				"%s record time %" PRIu64 " is older than %" PRIu64
				", the newest record before the FINISHED_ROUND at offset 0x%" PRIx64
				" (perf counts it out of order)",
				type_name(it->type, tn, sizeof(tn)), t, d->round_limit,
				d->prev_round_off);
		if (t > d->round_max)
			d->round_max = t;
		return;
	}
	{
		struct perfring_sample_id sid = { 0 };
		struct perfring_sample s;
		uint64_t st = it->attr ? it->attr->sample_type : 0;
		uint64_t key, *last;
		struct perfring_diag diag;

		/* One ring may hold several producers' records (per-CPU
		 * kernel rings drained into one file): each task on each CPU
		 * is in time order. */
		if (it->type == PERFRING_RECORD_SAMPLE) {
			if (perfring_sample_decode(it->attr, REC(it), it->size, &s, &diag) < 0)
				return;
			sid.tid = s.tid;
			sid.cpu = s.cpu;
		} else if (!trailer(it, &sid)) {
			return;
		}
		key = ((uint64_t)((st & PERFRING_SAMPLE_TID) ? sid.tid : 0) << 32) |
		      ((st & PERFRING_SAMPLE_CPU) ? sid.cpu : 0);
		if (!d->last_time)
			d->last_time = g_hash_table_new_full(g_int64_hash, g_int64_equal,
							     g_free, g_free);
		last = g_hash_table_lookup(d->last_time, &key);
		if (last && t < last[0]) {
			problem(d, it->offset,
				"%s record time %" PRIu64 " goes back %" PRIu64
				" ns from the previous record of tid %" PRIu32 " on cpu %" PRIu32
				" (offset 0x%" PRIx64 ")",
				type_name(it->type, tn, sizeof(tn)), t, last[0] - t, sid.tid, sid.cpu,
				last[1]);
		}
		if (!last) {
			uint64_t *k = g_new(uint64_t, 1);

			*k = key;
			last = g_new(uint64_t, 2);
			g_hash_table_insert(d->last_time, k, last);
		}
		last[0] = t;
		last[1] = it->offset;
	}
}

static void check_record(struct dump *d, const item_t *it)
{
	const struct perfring_attr *a = it->attr;
	char tn[32], where[64] = "";
	const char *name = type_name(it->type, tn, sizeof(tn));
	struct perfring_diag diag;	/* not zeroed: 800 bytes per record */
	struct perfring_sample_id sid;
	uint64_t t = 0, id;
	bool has_time = false;

	if ((it->flags & PERFRING_SOURCE_REC_COMPRESSED))
		snprintf(where, sizeof(where), " (at 0x%" PRIx64 " in the decompressed data)",
			 it->inner_offset);
	if (d->attrs_checked < d->nr_events)
		check_attrs(d, it->offset);

	if (it->type == PERFRING_RECORD_PAD)
		return;
	/* framing, body sizes, strings, trailer, SAMPLE fields, plugins */
	if (perfring_record_validate(reg, a, it->hdr, it->size, it->offset, &diag) < 0) {
		problem(d, it->offset, "%s%s", diag.msg, where);
		return;
	}
	if (it->type == PERFRING_RECORD_ID_INDEX)
		d->id_index_seen = true;
	if (it->type == PERFRING_RECORD_FINISHED_ROUND) {
		/* perf flushes up to the newest time seen at the round before */
		d->nr_rounds++;
		d->round_limit = d->last_round_max;
		d->prev_round_off = d->round_off;
		d->last_round_max = d->round_max;
		d->round_off = it->offset;
	}
	if (it->type >= PERFRING_RECORD_HEADER_ATTR)
		return;
	if (!a) {
		if (d->nr_events)
			problem(d, it->offset, "%s record: no event (attr) describes it%s", name, where);
		return;
	}
	if (it->type == PERFRING_RECORD_SAMPLE) {
		struct perfring_sample s;

		if ((a->sample_type & PERFRING_SAMPLE_TIME) &&
		    perfring_sample_decode(a, it->hdr, it->size, &s, NULL) == 0) {
			t = s.time;
			has_time = true;
		}
	} else {
		struct perfring_lost l;

		if (it->type == PERFRING_RECORD_LOST &&
		    perfring_lost_decode(NULL, REC(it), it->size, &l, NULL) == 0) {
			d->lost_records++;
			d->lost += l.lost;
		} else if (it->type == PERFRING_RECORD_LOST_SAMPLES) {
			d->lost_samples_records++;
			d->lost_samples += get64(REC(it) + 8);
		}
		if (trailer(it, &sid) && (a->sample_type & PERFRING_SAMPLE_TIME)) {
			t = sid.time;
			has_time = true;
		}
	}
	if (perfring_record_id(a, it->hdr, it->size, &id) == 1 && id != 0 &&
	    (d->nr_listed_ids || d->id_index_seen) && !id_known(d, id))
		problem(d, it->offset, "%s record%s: %s id %" PRIu64 " matches no event (attr)",
			name, where, it->type == PERFRING_RECORD_SAMPLE ? "sample" : "sample_id_all",
			id);
	if (has_time)
		check_time(d, it, t);
}

static void check_features(struct dump *d);

/* ---- --header --------------------------------------------------------------------- */

static const char *const attr_flag_names[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat",
	"enable_on_exec", "task", "watermark", NULL, NULL, "mmap_data", "sample_id_all",
	"exclude_host", "exclude_guest", "exclude_callchain_kernel",
	"exclude_callchain_user", "mmap2", "comm_exec", "use_clockid", "context_switch",
	"write_backward", "namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup",
	"text_poke", "build_id", "inherit_thread", "remove_on_exec", "sigtrap",
};

static void print_bits(uint64_t v, const char *(*name)(unsigned))
{
	bool first = true;

	if (!v) {
		printf("0");
		return;
	}
	for (unsigned b = 0; b < 64; b++) {
		const char *n;

		if (!(v & (1ull << b)))
			continue;
		n = name(b);
		if (n)
			printf("%s%s", first ? "" : "|", n);
		else
			printf("%sbit%u", first ? "" : "|", b);
		first = false;
	}
}

static const char *flag_name(unsigned b)
{
	return b < G_N_ELEMENTS(attr_flag_names) ? attr_flag_names[b] : NULL;
}

static void print_attr(size_t idx, const struct perfring_attr *a, const uint64_t *ids, size_t nr,
		       const char *name)
{
	uint64_t flags;

	printf("attr %zu: %s\n", idx, name ? name : "(no name)");
	if (!a)
		return;
	printf("  type %" PRIu32 ", size %" PRIu32 ", config %#" PRIx64 ", %s %" PRIu64 "\n",
	       a->type, a->size, a->config,
	       a->flags & PERFRING_ATTR_FREQ ? "sample_freq" : "sample_period", a->sample_period);
	printf("  sample_type ");
	print_bits(a->sample_type, perfring_sample_bit_name);
	printf(" (trailer %zu bytes)\n  read_format ", perfring_sample_id_size(a->sample_type));
	print_bits(a->read_format, perfring_read_format_bit_name);
	flags = a->flags & ~PERFRING_ATTR_PRECISE_IP_MASK;
	printf("\n  flags ");
	print_bits(flags, flag_name);
	if (a->flags & PERFRING_ATTR_PRECISE_IP_MASK)
		printf(" precise_ip %" PRIu64, (uint64_t)(a->flags & PERFRING_ATTR_PRECISE_IP_MASK) >>
		       PERFRING_ATTR_PRECISE_IP_SHIFT);
	printf("\n");
	if (a->flags & PERFRING_ATTR_USE_CLOCKID)
		printf("  clockid %" PRId32 "\n", a->clockid);
	if (a->sample_type & PERFRING_SAMPLE_REGS_USER)
		printf("  sample_regs_user %#" PRIx64 "\n", a->sample_regs_user);
	if (a->sample_type & PERFRING_SAMPLE_STACK_USER)
		printf("  sample_stack_user %" PRIu32 "\n", a->sample_stack_user);
	if (a->sample_type & PERFRING_SAMPLE_BRANCH_STACK)
		printf("  branch_sample_type %#" PRIx64 "\n", a->branch_sample_type);
	printf("  ids (%zu):", nr);
	for (size_t i = 0; i < nr; i++)
		printf(" %" PRIu64, ids[i]);
	printf("\n");
}

static void header_top(struct dump *d)
{
	if (d->is_ring) {
		struct perfring_ring *ring = perfring_source_ring(d->src);
		struct perfring_reader_stats rs = { .sz = sizeof(rs) };
		uint32_t fl = perfring_ring_flags(ring);

		perfring_reader_get_stats(perfring_source_reader(d->src), &rs);
		printf("perfring ring file\n");
		printf("data: offset %#" PRIx64 ", size %" PRIu64 ", page size %" PRIu32 "\n",
		       perfring_ring_data_file_offset(ring), perfring_ring_data_size(ring),
		       perfring_ring_page_size(ring));
		printf("mode: %s\n", fl & PERFRING_RING_OVERWRITE ? "overwrite (flight recorder)" :
		       "normal");
		printf("clockid: %" PRId32 "\n", perfring_ring_clockid(ring));
		printf("data_head %#" PRIx64 ", data_tail %#" PRIx64 "\n", rs.data_head,
		       rs.data_tail);
		printf("events: %zu\n", d->nr_events);
		return;
	}
	{
		const struct perfring_perfdata_header *h = perfring_perfdata_header(d->pd);

		printf("perf.data, %s mode%s%s\n", perfring_perfdata_is_pipe(d->pd) ? "pipe" : "file",
		       perfring_perfdata_needs_swap(d->pd) ? ", other byte order (swapped)" : "",
		       h->version == 1 ? ", legacy PERFFILE format" : "");
		printf("header size: %" PRIu64 "\n", h->header_size);
		if (!perfring_perfdata_is_pipe(d->pd)) {
			printf("attr entry size: %" PRIu64 "\n", h->attr_size);
			printf("attrs: offset %#" PRIx64 ", size %" PRIu64 "\n", h->attrs_offset,
			       h->attrs_size);
			printf("data: offset %#" PRIx64 ", size %" PRIu64 "\n", h->data_offset,
			       h->data_size);
		}
	}
}

static void header_rest(struct dump *d)
{
	struct perfring_diag diag = { 0 };
	size_t nf;

	if (!d->is_ring)
		refresh_events(d);
	printf("attrs: %zu\n", d->nr_events);
	for (size_t i = 0; i < d->nr_events; i++)
		print_attr(i, d->attrs[i], d->ids[i], d->nr_ids[i], d->names[i]);
	if (d->is_ring)
		return;
	if (!perfring_perfdata_is_pipe(d->pd))
		check_features(d);
	nf = perfring_perfdata_nr_features(d->pd);
	printf("features: %zu\n", nf);
	for (size_t i = 0; i < nf; i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };
		char *text = fmt_buf;
		int n;

		if (perfring_perfdata_feature(d->pd, (uint32_t)i, &f, &diag) < 0) {
			diag_fallback(&diag, d->path, -EBADMSG);
			if (d->status != TOOL_EXIT_USAGE)	/* check_features said it */
				tool_error_diag(&diag);
			d->status = TOOL_EXIT_USAGE;
			continue;
		}
		printf("feature %" PRIu32 " %s (offset %#" PRIx64 ", %" PRIu64 " bytes)\n", f.id,
		       f.name ? f.name : "?", f.offset, f.size);
		n = perfring_perfdata_feature_format(d->pd, &f, fmt_buf, sizeof(fmt_buf));
		if (n < 0)
			continue;
		if ((size_t)n >= sizeof(fmt_buf)) {
			text = g_malloc((size_t)n + 1);
			perfring_perfdata_feature_format(d->pd, &f, text, (size_t)n + 1);
		}
		for (char *line = text, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl) {
				printf("  %s\n", line);
				break;
			}
			printf("  %.*s\n", (int)(nl - line), line);
		}
		if (text != fmt_buf)
			g_free(text);
	}
}

/* File mode: the feature table must be whole and its sections inside the file. */
static void check_features(struct dump *d)
{
	struct perfring_diag diag = { 0 };
	int ret = perfring_perfdata_check_features(d->pd, &diag);

	if (ret)
		report_damage(d, &diag, ret);
}

/* ---- --json ---------------------------------------------------------------------- */

static void json_attrs(struct dump *d)
{
	if (!d->is_ring)
		refresh_events(d);
	for (; d->attrs_printed < d->nr_events; d->attrs_printed++) {
		size_t i = d->attrs_printed;

		if (!d->attrs[i])
			continue;
		g_string_truncate(d->js, 0);
		jc_encode_attr(d->js, d->attrs[i], d->ids[i], d->nr_ids[i], d->names[i]);
		g_string_append_c(d->js, '\n');
		fwrite(d->js->str, 1, d->js->len, stdout);
	}
}

static void json_record(struct dump *d, const item_t *it)
{
	if (it->type == PERFRING_RECORD_HEADER_ATTR) {
		/* the ATTR lines stand for these */
		json_attrs(d);
		return;
	}
	g_string_truncate(d->js, 0);
	jc_encode_record(d->js, reg,
			 jc_field_attr(d->attrs, d->ids, d->nr_ids, d->attrs_printed, it->attr,
				       REC(it), it->size),
			 REC(it), it->size, true, it->offset);
	g_string_append_c(d->js, '\n');
	fwrite(d->js->str, 1, d->js->len, stdout);
}

/* ---- one input ------------------------------------------------------------------- */

static void count(struct dump *d, const item_t *it)
{
	d->total++;
	if (it->type < PERFRING_PERFDATA_STATS_TYPES)
		d->by_type[it->type]++;
	else
		d->other++;
	d->bytes += it->size + it->extra_size;
}

static void stats_from_reader(struct dump *d)
{
	struct perfring_perfdata_stats st0 = { .sz = sizeof(st0) };
	const struct perfring_perfdata_stats *st = &st0;

	perfring_perfdata_get_stats(d->pd, &st0);

	memcpy(d->by_type, st->by_type, sizeof(d->by_type));
	d->other = st->other;
	d->total = st->total;
	d->bytes = st->bytes;
}

static void print_stats(const struct dump *d)
{
	char tn[32];

	/* perf report -D prints in type order, leaving out zero counts */
	for (uint32_t t = 0; t < PERFRING_PERFDATA_STATS_TYPES; t++)
		if (d->by_type[t])
			printf("%s %" PRIu64 "\n", type_name(t, tn, sizeof(tn)), d->by_type[t]);
	if (d->other)
		printf("OTHER %" PRIu64 "\n", d->other);
	printf("TOTAL %" PRIu64 "\n", d->total);
}

static void handle(struct dump *d, const item_t *it)
{
	if (opt_check) {
		count(d, it);
		check_record(d, it);
		return;
	}
	if (opt_header)
		return;
	if (!wanted(it))
		return;
	count(d, it);
	if (opt_stats)
		return;
	if (opt_json)
		json_record(d, it);
	else
		text_record(d, it);
}

static int dump_one(const char *path, bool banner)
{
	struct dump d = { .path = path };
	item_t it;
	uint64_t nread = 0;
	int r = 1;

	if (banner && !opt_json)
		printf("%s:\n", path);
	if (open_source(&d) < 0) {
		close_source(&d);
		return TOOL_EXIT_USAGE;
	}
	if (opt_header)
		header_top(&d);
	if (opt_json) {
		d.js = g_string_sized_new(4096);
		/* pipe mode: the attrs and their names come with the records;
		 * a damage met reading ahead is reported when it is reached */
		perfring_source_read_ahead(d.src, 0, NULL);
		json_attrs(&d);
	}
	if (opt_check)
		check_attrs(&d, 0);
	if (opt_stats && !type_filter && !opt_pid_set && !d.is_ring) {
		/* the library counts as perf does (headers only where it can:
		 * a file-mode perf.data in a regular file); nothing here looks
		 * at the records */
		struct perfring_diag diag;

		tool_diag_reset(&diag);
		r = perfring_perfdata_count(d.pd, 0, &diag);
		if (r < 0) {
			diag_fallback(&diag, d.path, r);
			tool_error_diag(&diag);
			d.status = TOOL_EXIT_USAGE;
		}
		stats_from_reader(&d);
	}
	while (r > 0 && (r = next_record(&d, &it)) > 0) {
		handle(&d, &it);
		if (!(++nread & 0xffff))
			tool_progress("%s: %" PRIu64 " records...", d.path, nread);
	}
	tool_progress_end();
	if (opt_header)
		header_rest(&d);
	else if (r == 0 && !d.is_ring && !perfring_perfdata_is_pipe(d.pd))
		check_features(&d);
	if (opt_stats)
		print_stats(&d);
	if (opt_check) {
		if (d.attrs_checked < d.nr_events)
			check_attrs(&d, 0);
		if (!d.nr_events)
			problem(&d, 0, "no event (attr) describes the records");
		printf("%s: %" PRIu64 " records, %" PRIu64 " problem%s", path, d.total, d.problems,
		       d.problems == 1 ? "" : "s");
		if (d.lost_records)
			printf(", %" PRIu64 " LOST record%s: %" PRIu64 " records lost", d.lost_records,
			       d.lost_records == 1 ? "" : "s", d.lost);
		if (d.lost_samples_records)
			printf(", %" PRIu64 " LOST_SAMPLES record%s: %" PRIu64 " samples lost",
			       d.lost_samples_records, d.lost_samples_records == 1 ? "" : "s",
			       d.lost_samples);
		if (d.is_ring) {
			struct perfring_reader_stats rs = { .sz = sizeof(rs) };

			perfring_reader_get_stats(perfring_source_reader(d.src), &rs);
			if (rs.lost_pending)
				printf(", %" PRIu64 " records dropped and not yet announced by a LOST record",
				       rs.lost_pending);
		}
		printf("\n");
		if (d.status == TOOL_EXIT_OK && d.problems)
			d.status = TOOL_EXIT_PROBLEMS;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tool_error("standard output: %s", g_strerror(errno));
		d.status = TOOL_EXIT_USAGE;
	}
	close_source(&d);
	return d.status;
}

int main(int argc, char **argv)
{
	GOptionContext *ctx;
	GError *err = NULL;
	int status = TOOL_EXIT_OK, modes;

	tool_init("perfring-dump");
	ctx = g_option_context_new("FILE...|-");
	g_option_context_set_summary(ctx,
		"Decode perfring ring files, perf.data files and pipe-mode perf streams\n"
		"('-' = standard input).  The kind of input is told by its magic.\n"
		"\n"
		"Default output: one line per record:\n"
		"  OFFSET TIME CPU PID/TID TYPE FIELDS\n"
		"(time, cpu and pid/tid from the sample or the sample_id_all trailer, '-' when\n"
		"absent; records no plugin decodes are shown as hex).");
	g_option_context_set_description(ctx,
		"Offsets are byte offsets in the file or stream (perf report -D counts pipe-mode\n"
		"offsets from the end of the 16-byte stream header: 16 less); a record that came\n"
		"out of a COMPRESSED record shows that record's offset, then +z and its offset\n"
		"in the decompressed data.\n"
		"\n"
		"--stats prints one \"TYPE COUNT\" line per record type present, in type order\n"
		"with perf's names (the order of perf report -D's \"Aggregated stats\", which\n"
		"also leaves out zero counts), then \"TOTAL N\" (perf prints TOTAL first).\n"
		"Every record counts once, COMPRESSED records and the records inside them alike.\n"
		"\n"
		"--check prints \"FILE: offset 0x...: problem\" per problem, then a summary\n"
		"line with the number of records, of problems and the LOST totals.\n"
		"\n"
		"Several FILEs are processed one after the other (not with --json).\n"
		"\n"
		"Environment:\n"
		"  PERFRING_PLUGIN_PATH  colon-separated plugin directories or files, searched first;\n"
		"                        the first file of a name wins (--list-plugins -v shows the rest)\n"
		"  PERFRING_PLUGIN_SYSTEM_PATH  if set, searched instead of the installed plugins\n"
		"  PERFRING_NO_DLCLOSE   keep plugins loaded at exit (for ASan and valgrind)\n"
		"\n"
		"Exit status: 0 ok, 1 problems found in the input (--check), 2 usage error or\n"
		"unreadable or damaged input.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		tool_error("%s", err->message);
		g_error_free(err);
		g_option_context_free(ctx);
		return TOOL_EXIT_USAGE;
	}
	g_option_context_free(ctx);

	if (opt_version) {
		tool_print_version();
		return TOOL_EXIT_OK;
	}
	if (opt_list_plugins) {
		if (argc > 1) {
			tool_error("--list-plugins takes no FILE");
			return TOOL_EXIT_USAGE;
		}
		if (tool_load_plugins(&reg) < 0)
			return TOOL_EXIT_USAGE;
		tool_list_plugins(reg, opt_verbose);
		perfring_registry_free(reg);
		return TOOL_EXIT_OK;
	}
	modes = !!opt_json + !!opt_stats + !!opt_check + !!opt_header;
	if (modes > 1) {
		tool_error("--json, --stats, --check and --header go one at a time");
		return TOOL_EXIT_USAGE;
	}
	if (argc < 2) {
		tool_error("no input FILE (try --help)");
		return TOOL_EXIT_USAGE;
	}
	if (opt_json && argc > 2) {
		tool_error("--json takes one FILE (its ATTR lines describe that input)");
		return TOOL_EXIT_USAGE;
	}
	if ((opt_check || opt_header) && (opt_types || opt_pid_set)) {
		tool_error("--type and --pid filter the dump, --json and --stats; not --check or --header");
		return TOOL_EXIT_USAGE;
	}
	if (parse_types() < 0)
		return TOOL_EXIT_USAGE;
	if (!opt_stats && tool_load_plugins(&reg) < 0)
		return TOOL_EXIT_USAGE;
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	for (int i = 1; i < argc; i++) {
		int s = dump_one(argv[i], argc > 2);

		if (s > status)
			status = s;
	}
	perfring_registry_free(reg);
	g_free(type_filter);
	g_strfreev(opt_types);
	return status;
}
