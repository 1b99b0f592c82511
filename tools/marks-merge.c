/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Marker rings merged into a perf.data: see marks-merge.h.
 *
 * The output event is a tracepoint, so that stock perf script prints
 * each marker with its fields, formatted by the print fmt that the
 * TRACING_DATA feature carries for it.  Its RAW payload is the
 * tracepoint's binary layout (FORMAT below):
 *
 *   0  u16 common_type  (the tracepoint id)
 *   2  u8  common_flags, 3 u8 common_preempt_count (0)
 *   4  s32 common_pid   (the marking thread: a kernel tracepoint's
 *                        common_pid is the task's tid)
 *   8  u64 value        (0 without one)
 *   16 s32 pid
 *   20 s32 depth        (spans: 1 for an outermost BEGIN and its END,
 *                        -1 for an END without BEGIN; 0 for instants)
 *   24 u32 flags        (1 value, 4 text: as the ring's)
 *   28 __data_loc kind, 32 name, 36 text, 40 line: u32 (len << 16 | offset)
 *   44 the strings, NUL-terminated; then zero padding (4 + size % 8 == 0)
 *
 * "line" is the marker as one text ("begin frame value=3 late"): the print
 * fmt prints only it, so that a marker without value or text shows none.
 *
 * perf tells events apart by the sample id: with a second event every
 * event needs PERF_SAMPLE_IDENTIFIER (or ID at one position).  Inputs
 * recorded with one event have neither: IDENTIFIER is then added to their
 * events and every record rewritten (8 bytes after a SAMPLE's header, at
 * the end of a sample_id_all trailer), see marks_merge_fix.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/marks.h>

#include "file-rewrite.h"
#include "marks-merge.h"
#include "tool-common.h"

#define MK_LOST 0xffu		/* struct mk.kind: a LOST record */
#define MK_RAW_FIXED 44u	/* the fixed part of the RAW payload */

struct mk {
	uint64_t time, seq;
	uint32_t pid, tid;
	unsigned kind, flags;
	int depth;
	uint64_t value;		/* MK_LOST: the count */
	char *name, *text;
};

struct marks_merge {
	GPtrArray *paths;	/* char *, in the order found */
	GHashTable *seen;	/* paths already listed */
	GHashTable *from_map;	/* path -> pid << 32 | tid of the map that names it
				 * (a missing one is then a warning) */
	GHashTable *files;	/* "dev:ino" of the rings read: each is read once */
	GArray *mks;		/* struct mk */
	size_t next;
	struct perfring_attr attr;
	uint64_t id;
	uint64_t seq;
	uint8_t buf[PERFRING_RECORD_MAX_SIZE + 8];
	struct marks_merge_stats st;
};

struct marks_merge *marks_merge_new(void)
{
	struct marks_merge *m = g_new0(struct marks_merge, 1);

	m->paths = g_ptr_array_new_with_free_func(g_free);
	m->seen = g_hash_table_new(g_str_hash, g_str_equal);
	m->from_map = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	m->mks = g_array_new(FALSE, FALSE, sizeof(struct mk));
	m->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return m;
}

void marks_merge_free(struct marks_merge *m)
{
	if (!m)
		return;
	for (guint i = 0; i < m->mks->len; i++) {
		struct mk *k = &g_array_index(m->mks, struct mk, i);

		g_free(k->name);
		g_free(k->text);
	}
	g_array_free(m->mks, TRUE);
	g_hash_table_destroy(m->seen);
	g_hash_table_destroy(m->from_map);
	g_hash_table_destroy(m->files);
	g_ptr_array_free(m->paths, TRUE);
	g_free(m);
}

void marks_merge_get_stats(const struct marks_merge *m, struct marks_merge_stats *st)
{
	*st = m->st;
}

size_t marks_merge_nr_rings(const struct marks_merge *m)
{
	return m->paths->len;
}

bool marks_is_ring_name(const char *path, uint32_t *pid, uint32_t *tid)
{
	const char *b = strrchr(path, '/');
	unsigned long v[2];
	const char *p;
	char *end;

	b = b ? b + 1 : path;
	if (strncmp(b, "perfring-marks-", 15))
		return false;
	p = b + 15;
	for (int i = 0; i < 2; i++) {
		if (*p < '0' || *p > '9')
			return false;
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || v[i] > UINT32_MAX)
			return false;
		p = end;
		if (*p++ != (i ? '.' : '-'))
			return false;
	}
	if (strcmp(p, "ring"))
		return false;
	if (pid)
		*pid = (uint32_t)v[0];
	if (tid)
		*tid = (uint32_t)v[1];
	return true;
}

static void add_one(struct marks_merge *m, const char *path, bool from_map, uint32_t pid,
		    uint32_t tid)
{
	char *p = g_hash_table_lookup(m->seen, path);

	if (!p) {
		p = g_strdup(path);
		g_ptr_array_add(m->paths, p);
		g_hash_table_add(m->seen, p);
	}
	if (from_map && !g_hash_table_contains(m->from_map, p)) {
		uint64_t *v = g_new(uint64_t, 1);

		*v = (uint64_t)pid << 32 | tid;
		g_hash_table_insert(m->from_map, p, v);
	}
}

void marks_merge_scan(struct marks_merge *m, const struct perfring_attr *attr,
		      const void *rec, size_t size)
{
	struct perfring_mmap2 mm;

	if (perfring_mmap2_decode(attr, rec, size, &mm, NULL, NULL) < 0)
		return;
	if (marks_is_ring_name(mm.filename, NULL, NULL))
		add_one(m, mm.filename, true, mm.pid, mm.tid);
}

static gint path_cmp(gconstpointer a, gconstpointer b)
{
	/* g_ptr_array_sort passes pointers to the elements */
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int marks_merge_add_path(struct marks_merge *m, const char *path)
{
	struct stat st;
	GPtrArray *names;
	DIR *d;
	struct dirent *e;

	if (stat(path, &st) < 0) {
		tool_error("--markers %s: %s", path, g_strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		add_one(m, path, false, 0, 0);
		return 0;
	}
	d = opendir(path);
	if (!d) {
		tool_error("--markers %s: %s", path, g_strerror(errno));
		return -1;
	}
	names = g_ptr_array_new_with_free_func(g_free);
	while ((e = readdir(d)))
		if (marks_is_ring_name(e->d_name, NULL, NULL))
			g_ptr_array_add(names, g_build_filename(path, e->d_name, NULL));
	closedir(d);
	g_ptr_array_sort(names, path_cmp);
	for (guint i = 0; i < names->len; i++)
		add_one(m, names->pdata[i], false, 0, 0);
	g_ptr_array_free(names, TRUE);
	return 0;
}

/* ---- reading the rings ------------------------------------------------------ */

struct ring_state {
	struct marks_merge *m;
	const char *path;
	uint32_t pid, tid;
	bool map_ids;		/* pid, tid from the map: perf's (a THREAD record
				 * made in a pid namespace has that namespace's) */
	char *names[PERFRING_MARK_IDS_MAX + 1];
	GPtrArray *open;	/* char *: names of the open spans, innermost last */
	uint64_t last_time;
	const struct perfring_attr *attr;	/* the marker event's */
};

static void on_damage(const struct perfring_diag *d, void *user)
{
	struct ring_state *rs = user;

	tool_error_diag(d);
	rs->m->st.problems++;
}

static void ring_problem(struct ring_state *rs, uint64_t offset, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
static void ring_problem(struct ring_state *rs, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	tool_error("%s: offset %#" PRIx64 ": %s", rs->path, offset, s);
	g_free(s);
	rs->m->st.problems++;
}

/* A copy of n bytes, unprintable bytes as '?' (perf prints them raw). */
static char *clean(const char *s, size_t n)
{
	char *c = g_strndup(s, n);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)c[i] < 0x20 || (unsigned char)c[i] > 0x7e || c[i] == '"' ||
		    c[i] == '\\')
			c[i] = '?';
	return c;
}

static void push(struct marks_merge *m, const struct mk *k)
{
	struct mk c = *k;

	c.seq = m->seq++;
	g_array_append_val(m->mks, c);
}

static void one_record(struct ring_state *rs, const struct perfring_record *r)
{
	const struct perfring_event_header *h = r->hdr;
	struct perfring_mark d = { .sz = sizeof(d) };
	struct perfring_sample smp;
	struct perfring_diag sd;
	struct mk k = { 0 };
	int ret;

	if (h->type == PERFRING_RECORD_LOST)
		return;		/* counted by the reader's stats */
	if (h->type != PERFRING_RECORD_SAMPLE)
		return;
	sd.msg[0] = '\0';
	if (perfring_sample_decode(rs->attr, h, h->size, &smp, &sd) < 0) {
		ring_problem(rs, r->offset, "marker record of %u bytes: %s", h->size,
			     sd.msg[0] ? sd.msg : "not a SAMPLE of the marker event");
		return;
	}
	k.time = smp.time;
	ret = perfring_mark_decode(smp.raw, smp.raw_size, &d);
	if (ret < 0) {
		ring_problem(rs, r->offset, "malformed marker: %s", g_strerror(-ret));
		return;
	}
	if (k.time > rs->last_time)
		rs->last_time = k.time;
	switch (d.kind) {
	case PERFRING_MARK_THREAD:
		if (!rs->map_ids) {
			rs->pid = (uint32_t)(d.value >> 32);
			rs->tid = (uint32_t)d.value;
		}
		return;
	case PERFRING_MARK_NAME:
		g_free(rs->names[d.id]);
		rs->names[d.id] = clean(d.name, d.name_len);
		return;
	default:
		break;
	}
	k.pid = rs->pid;
	k.tid = rs->tid;
	k.kind = d.kind;
	k.flags = d.flags & (PERFRING_MARKF_VALUE | PERFRING_MARKF_TEXT);
	k.value = d.value;
	if (d.name) {
		k.name = clean(d.name, d.name_len);
	} else if (rs->names[d.id]) {
		k.name = g_strdup(rs->names[d.id]);
	} else {
		ring_problem(rs, r->offset, "marker of id %u that no NAME record before it defines",
			     d.id);
		k.name = g_strdup_printf("#%u", d.id);
	}
	if (d.text)
		k.text = clean(d.text, d.text_len);
	if (d.kind == PERFRING_MARK_BEGIN) {
		g_ptr_array_add(rs->open, g_strdup(k.name));
		k.depth = (int)rs->open->len;
	} else if (d.kind == PERFRING_MARK_END) {
		k.depth = -1;
		for (guint i = rs->open->len; i-- > 0;)
			if (!strcmp(rs->open->pdata[i], k.name)) {
				k.depth = (int)i + 1;
				g_ptr_array_remove_index(rs->open, i);
				break;
			}
	}
	push(rs->m, &k);
	rs->m->st.markers++;
}

static bool is_marker_ring(struct perfring_ring *r)
{
	PERFRING_EVENT_DESC(e);
	const struct perfring_attr *a;

	if (perfring_ring_nr_events(r) != 1 || perfring_ring_event(r, 0, &e) < 0 || !e.attr)
		return false;
	a = e.attr;
	return a->type == 1 && a->config == 9 &&
	       (a->sample_type & ~PERFRING_SAMPLE_IDENTIFIER) ==
	       (PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_RAW);
}

static void load_ring(struct marks_merge *m, const char *path)
{
	struct ring_state rs = { .m = m, .path = path };
	struct perfring_ring *r = NULL;
	struct perfring_reader *rd = NULL;
	struct perfring_reader_stats rst = { .sz = sizeof(rst) };
	struct perfring_record rec = { .sz = sizeof(rec) };
	struct perfring_diag diag;
	int ret;

	tool_diag_reset(&diag);
	if (perfring_ring_open(path, PERFRING_RING_READ, &diag, &r) < 0) {
		if (g_hash_table_contains(m->from_map, path)) {
			tool_error("warning: marker ring %s (named by a map of the recording): %s: "
				   "its markers are not merged", path,
				   diag.msg[0] ? diag.msg : "cannot be opened");
			m->st.missing++;
		} else {
			tool_error_diag(&diag);
			m->st.problems++;
		}
		return;
	}
	{
		struct stat st;
		char *key;

		if (fstat(perfring_ring_fd(r), &st) == 0) {
			key = g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
			if (g_hash_table_contains(m->files, key)) {
				g_free(key);	/* the same file by another path */
				perfring_ring_close(r);
				return;
			}
			g_hash_table_add(m->files, key);
		}
	}
	if (!is_marker_ring(r)) {
		tool_error("%s: not a marker ring (its event is not perfring:mark): skipped", path);
		m->st.problems++;
		perfring_ring_close(r);
		return;
	}
	{
		PERFRING_READER_OPTS(o, .flags = PERFRING_READER_RESYNC, .on_damage = on_damage,
				     .user = &rs);

		if (perfring_reader_new_opts(r, &o, &rd) < 0) {
			tool_error("%s: cannot read the ring", path);
			m->st.problems++;
			perfring_ring_close(r);
			return;
		}
	}
	rs.attr = perfring_ring_attr_for_id(r, 0);
	marks_is_ring_name(path, &rs.pid, &rs.tid);
	{
		const uint64_t *v = g_hash_table_lookup(m->from_map, path);

		if (v) {
			rs.pid = (uint32_t)(*v >> 32);
			rs.tid = (uint32_t)*v;
			rs.map_ids = true;
		}
	}
	rs.open = g_ptr_array_new_with_free_func(g_free);
	m->st.rings++;
	while ((ret = perfring_reader_next(rd, &rec)) == 1)
		one_record(&rs, &rec);
	if (ret < 0) {
		tool_error_diag(perfring_reader_diag(rd));
		m->st.problems++;
	}
	perfring_reader_get_stats(rd, &rst);
	if (rst.lost + rst.lost_pending) {
		struct mk k = { .time = rs.last_time, .pid = rs.pid, .tid = rs.tid,
				.kind = MK_LOST, .value = rst.lost + rst.lost_pending };

		push(m, &k);
		m->st.lost += k.value;
	}
	for (unsigned i = 0; i <= PERFRING_MARK_IDS_MAX; i++)
		g_free(rs.names[i]);
	g_ptr_array_free(rs.open, TRUE);
	perfring_reader_free(rd);
	perfring_ring_close(r);
}

static gint mk_cmp(gconstpointer pa, gconstpointer pb)
{
	const struct mk *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

uint64_t marks_merge_load(struct marks_merge *m)
{
	for (guint i = 0; i < m->paths->len; i++)
		load_ring(m, m->paths->pdata[i]);
	g_array_sort(m->mks, mk_cmp);
	return m->st.markers;
}

/* ---- the output event --------------------------------------------------------- */

bool marks_needs_identifier(const struct perfring_attr *a)
{
	return !(a->sample_type & PERFRING_SAMPLE_IDENTIFIER);
}

void marks_merge_attr(const struct perfring_attr *model, uint64_t tp_id, struct perfring_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->type = PERFRING_TYPE_TRACEPOINT;
	out->size = PERFRING_ATTR_SIZE_VER7;
	out->config = tp_id;
	out->sample_period = 1;
	out->sample_type = PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			   PERFRING_SAMPLE_RAW;
	out->read_format = model->read_format;
	out->flags = (model->flags & PERFRING_ATTR_SAMPLE_ID_ALL) | PERFRING_ATTR_USE_CLOCKID |
		     PERFRING_ATTR_EXCLUDE_KERNEL | PERFRING_ATTR_EXCLUDE_HV;
	out->clockid = 1;	/* CLOCK_MONOTONIC */
}

void marks_merge_set_event(struct marks_merge *m, const struct perfring_attr *attr, uint64_t id)
{
	m->attr = *attr;
	m->id = id;
}

/* Offset of the ID field in a SAMPLE of sample_type st (which has ID). */
size_t marks_merge_fix(const struct perfring_attr *a, uint64_t id, const void *rec, size_t size,
		       void *buf, const void **out)
{
	const struct perfring_event_header *h = rec;
	int n;

	*out = rec;
	if (!a || !marks_needs_identifier(a) || size < sizeof(*h))
		return size;
	/* records without a sample id of their own stay as they are */
	if (h->type != PERFRING_RECORD_SAMPLE &&
	    (!(a->flags & PERFRING_ATTR_SAMPLE_ID_ALL) || !perfring_record_trailer_size(a, h->type) ||
	     size < sizeof(*h) + perfring_record_trailer_size(a, h->type)))
		return size;
	/* the library adds the id where perf looks for it (lib/ring/record.c) */
	n = perfring_record_add_identifier(a, id, rec, size, buf);
	if (n <= 0)
		return 0;	/* no room for the id: perf would misread it */
	*out = buf;
	return (size_t)n;
}

uint64_t marks_pick_tp_id(const void *td, size_t len, unsigned flags, const uint64_t *used,
			  size_t n)
{
	for (uint64_t id = 65534; id > 0; id--) {
		bool taken = false;

		for (size_t i = 0; i < n && !taken; i++)
			taken = used[i] == id;
		if (!taken && td && perfring_tracing_data_find_id(td, len, flags, id, NULL, 0, NULL) != 0)
			taken = true;
		if (!taken)
			return id;
	}
	return 0;
}

/* ---- TRACING_DATA ----------------------------------------------------------------- */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static char *format_text(uint64_t tp_id)
{
	return g_strdup_printf(
		"name: mark\n"
		"ID: %" PRIu64 "\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:u64 value;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:int pid;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:int depth;\toffset:20;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned int flags;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc char[] kind;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] name;\toffset:32;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] text;\toffset:36;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] line;\toffset:40;\tsize:4;\tsigned:1;\n"
		"\n"
		"print fmt: \"%%s\", __get_str(line)\n", tp_id);
}

static uint32_t td_32(uint32_t v, bool swap)
{
	return swap ? GUINT32_SWAP_LE_BE(v) : v;
}

static uint64_t td_64(uint64_t v, bool swap)
{
	return swap ? GUINT64_SWAP_LE_BE(v) : v;
}

/* The offset of the count of systems in sound tracing data, or 0. */
static size_t systems_offset(const uint8_t *p, size_t len, bool swap)
{
	size_t pos = 10;
	uint32_t n;
	uint64_t s;

	pos += strnlen((const char *)p + pos, len - pos) + 1;	/* version */
	pos += 2 + 4;
	for (int i = 0; i < 2; i++) {	/* header_page, header_event */
		pos += strnlen((const char *)p + pos, len - pos) + 1;
		if (pos + 8 > len)
			return 0;
		memcpy(&s, p + pos, 8);
		pos += 8 + td_64(s, swap);
	}
	if (pos + 4 > len)
		return 0;
	memcpy(&n, p + pos, 4);
	pos += 4;
	for (uint32_t i = 0; i < td_32(n, swap); i++) {
		if (pos + 8 > len)
			return 0;
		memcpy(&s, p + pos, 8);
		pos += 8 + td_64(s, swap);
	}
	return pos + 4 <= len ? pos : 0;
}

int marks_tracing_data(const void *td, size_t len, unsigned flags, uint64_t tp_id,
		       GByteArray *out, char *err, size_t errlen)
{
	struct perfring_tracing_data_info info = { .sz = sizeof(info) };
	struct perfring_diag diag;
	char *fmt = format_text(tp_id);
	uint64_t fsz = strlen(fmt);
	uint32_t one = 1;
	bool swap = false;
	int ret = -1;

	g_byte_array_set_size(out, 0);
	if (!td) {
		static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n',
						 'g', '0', '.', '6', 0 };
		uint8_t le_long[2] = { G_BYTE_ORDER == G_BIG_ENDIAN, (uint8_t)sizeof(long) };
		uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE), zero32 = 0;
		uint64_t s, zero64 = 0;

		g_byte_array_append(out, magic, sizeof(magic));
		g_byte_array_append(out, le_long, 2);
		g_byte_array_append(out, (const guint8 *)&page, 4);
		g_byte_array_append(out, (const guint8 *)"header_page", 12);
		s = sizeof(header_page) - 1;
		g_byte_array_append(out, (const guint8 *)&s, 8);
		g_byte_array_append(out, (const guint8 *)header_page, (guint)s);
		g_byte_array_append(out, (const guint8 *)"header_event", 13);
		s = sizeof(header_event) - 1;
		g_byte_array_append(out, (const guint8 *)&s, 8);
		g_byte_array_append(out, (const guint8 *)header_event, (guint)s);
		g_byte_array_append(out, (const guint8 *)&zero32, 4);	/* ftrace formats */
		g_byte_array_append(out, (const guint8 *)&one, 4);	/* systems */
		g_byte_array_append(out, (const guint8 *)"perfring", 9);
		g_byte_array_append(out, (const guint8 *)&one, 4);
		g_byte_array_append(out, (const guint8 *)&fsz, 8);
		g_byte_array_append(out, (const guint8 *)fmt, (guint)fsz);
		g_byte_array_append(out, (const guint8 *)&zero32, 4);	/* kallsyms */
		g_byte_array_append(out, (const guint8 *)&zero32, 4);	/* printk */
		g_byte_array_append(out, (const guint8 *)&zero64, 8);	/* cmdlines */
	} else {
		const uint8_t *p = td;
		size_t sys, end;
		uint32_t nsys, v32;
		uint64_t v64;

		tool_diag_reset(&diag);
		if (perfring_tracing_data_check(td, len, flags, &info, &diag) < 0) {
			snprintf(err, errlen, "the recording's tracing data are damaged: %s", diag.msg);
			goto out;
		}
		swap = info.big_endian != (G_BYTE_ORDER == G_BIG_ENDIAN);
		sys = systems_offset(p, len, swap);
		if (!sys || info.kallsyms_offset < 4) {
			snprintf(err, errlen, "the recording's tracing data cannot be extended");
			goto out;
		}
		end = info.kallsyms_offset - 4;	/* after the last system */
		memcpy(&nsys, p + sys, 4);
		nsys = td_32(td_32(nsys, swap) + 1, swap);
		g_byte_array_append(out, p, (guint)sys);
		g_byte_array_append(out, (const guint8 *)&nsys, 4);
		g_byte_array_append(out, p + sys + 4, (guint)(end - sys - 4));
		g_byte_array_append(out, (const guint8 *)"perfring", 9);
		v32 = td_32(1, swap);
		g_byte_array_append(out, (const guint8 *)&v32, 4);
		v64 = td_64(fsz, swap);
		g_byte_array_append(out, (const guint8 *)&v64, 8);
		g_byte_array_append(out, (const guint8 *)fmt, (guint)fsz);
		g_byte_array_append(out, p + end, (guint)(info.size - end));
	}
	tool_diag_reset(&diag);
	if (perfring_tracing_data_check(out->data, out->len, 0, NULL, &diag) < 0 ||
	    perfring_tracing_data_find_id(out->data, out->len, 0, tp_id, NULL, 0, &diag) != 1) {
		snprintf(err, errlen, "the tracing data built for the markers do not check: %s",
			 diag.msg);
		goto out;
	}
	ret = 0;
out:
	g_free(fmt);
	return ret;
}

/* ---- the records ------------------------------------------------------------------ */

static const char *kind_name(unsigned kind)
{
	switch (kind) {
	case PERFRING_MARK_BEGIN:
		return "begin";
	case PERFRING_MARK_END:
		return "end";
	default:
		return "instant";
	}
}

/*
 * The marker as a SAMPLE of the marker event: the RAW payload (the
 * tracepoint's fields, its format in TRACING_DATA) built here, the record
 * around it by the library's encoder.  The payload is at most
 * MK_RAW_FIXED + 8 + 64 + 128 + the line (which joins them): < 1024.
 */
static size_t put_sample(struct marks_merge *m, const struct mk *k)
{
	uint8_t raw[1024];
	GString *line = g_string_new(NULL);
	const char *strs[4];
	size_t lens[4], pos = MK_RAW_FIXED;
	uint32_t u32;
	uint16_t common_type = (uint16_t)m->attr.config;
	int32_t s32;
	struct perfring_sample smp = { .identifier = m->id, .pid = k->pid, .tid = k->tid,
				       .time = k->time };
	int n;

	g_string_append_printf(line, "%s %s", kind_name(k->kind), k->name);
	if (k->flags & PERFRING_MARKF_VALUE)
		g_string_append_printf(line, " value=%" PRIu64, k->value);
	if (k->text)
		g_string_append_printf(line, " %s", k->text);
	strs[0] = kind_name(k->kind);
	strs[1] = k->name;
	strs[2] = k->text ? k->text : "";
	strs[3] = line->str;
	memset(raw, 0, MK_RAW_FIXED);
	memcpy(raw, &common_type, 2);
	s32 = (int32_t)k->tid;
	memcpy(raw + 4, &s32, 4);
	memcpy(raw + 8, &k->value, 8);
	s32 = (int32_t)k->pid;
	memcpy(raw + 16, &s32, 4);
	s32 = k->depth;
	memcpy(raw + 20, &s32, 4);
	u32 = k->flags;
	memcpy(raw + 24, &u32, 4);
	for (int i = 0; i < 4; i++) {
		lens[i] = strlen(strs[i]) + 1;
		if (pos + lens[i] + 8 > sizeof(raw))
			lens[i] = 1;	/* cannot happen with the marker limits */
		u32 = (uint32_t)(lens[i] << 16 | pos);
		memcpy(raw + 28 + 4 * i, &u32, 4);
		memcpy(raw + pos, lens[i] == 1 ? "" : strs[i], lens[i]);
		pos += lens[i];
	}
	while ((4 + pos) % 8)
		raw[pos++] = 0;
	smp.raw = raw;
	smp.raw_size = (uint32_t)pos;
	n = perfring_sample_encode(&m->attr, &smp, PERFRING_MISC_USER, m->buf, sizeof(m->buf));
	g_string_free(line, TRUE);
	return n > 0 ? (size_t)n : 0;
}

static size_t put_lost(struct marks_merge *m, const struct mk *k)
{
	struct perfring_event_header h = { .type = PERFRING_RECORD_LOST };
	struct perfring_sample_id sid = { .pid = k->pid, .tid = k->tid, .time = k->time,
					  .id = m->id, .identifier = m->id };
	size_t size = 24;
	int n;

	memcpy(m->buf + 8, &m->id, 8);
	memcpy(m->buf + 16, &k->value, 8);
	if (m->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL) {
		n = perfring_sample_id_encode(m->attr.sample_type, &sid, m->buf + 24,
					      sizeof(m->buf) - 24);
		if (n > 0)
			size += (size_t)n;
	}
	h.size = (uint16_t)size;
	memcpy(m->buf, &h, sizeof(h));
	return size;
}

int marks_merge_next(struct marks_merge *m, const void **rec, size_t *size)
{
	const struct mk *k;

	/* a marker's strings are at most 63 + 127 + 200 bytes: always fits */
	if (m->next >= m->mks->len)
		return 0;
	k = &g_array_index(m->mks, struct mk, m->next++);
	*size = k->kind == MK_LOST ? put_lost(m, k) : put_sample(m, k);
	*rec = m->buf;
	return 1;
}

void marks_merge_summary(const struct marks_merge *m)
{
	tool_error("%" PRIu64 " markers merged from %" PRIu64 " ring%s, %" PRIu64 " lost",
		   m->st.markers, m->st.rings, m->st.rings == 1 ? "" : "s", m->st.lost);
}

/* ---- the plan: ids, the event, the tracing data ------------------------------------ */

int marks_merge_plan(struct marks_merge *m, const struct marks_event *evs, size_t n,
		     const void *td, size_t td_len, unsigned td_flags, GByteArray *td_out)
{
	uint64_t max_id = 0, *used = g_new0(uint64_t, n + 1), tp_id;
	struct perfring_attr a;
	char err[512];
	size_t nu = 0;

	if (!n) {
		tool_error("markers: the recording has no event");
		g_free(used);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < *evs[i].nr_ids; k++)
			if ((*evs[i].ids)[k] > max_id)
				max_id = (*evs[i].ids)[k];
		if (evs[i].attr->type == PERFRING_TYPE_TRACEPOINT)
			used[nu++] = evs[i].attr->config;
	}
	/* Every event gets an id of its own and IDENTIFIER (perf then finds
	 * each record's event by its first u64 or its last one). */
	for (size_t i = 0; i < n; i++) {
		if (!*evs[i].nr_ids) {
			*evs[i].ids = g_renew(uint64_t, *evs[i].ids, 2);
			(*evs[i].ids)[0] = ++max_id;
			*evs[i].nr_ids = 1;
		}
		evs[i].attr->sample_type |= PERFRING_SAMPLE_IDENTIFIER;
	}
	tp_id = marks_pick_tp_id(td, td_len, td_flags, used, nu);
	g_free(used);
	if (!tp_id) {
		tool_error("markers: no tracepoint id is free in the recording's tracing data");
		return -1;
	}
	marks_merge_attr(evs[0].attr, tp_id, &a);
	marks_merge_set_event(m, &a, max_id + 1);
	if (marks_tracing_data(td, td_len, td_flags, tp_id, td_out, err, sizeof(err)) < 0) {
		tool_error("markers: %s", err);
		return -1;
	}
	return 0;
}

const struct perfring_attr *marks_merge_event(const struct marks_merge *m, uint64_t *id)
{
	*id = m->id;
	return &m->attr;
}

/* ---- a whole perf.data rewritten (perfring-record) ----------------------------- */

struct file_ev {
	struct perfring_attr orig, attr;
	uint64_t *ids;
	size_t nr_ids;
	const char *name;
};

struct file_state {
	struct marks_merge *m;
	struct file_ev *fe;
	size_t n;
	GByteArray *td;
	uint8_t buf[PERFRING_RECORD_MAX_SIZE + 16];
};

const void *marks_pd_tracing_data(struct perfring_perfdata *pd, size_t *len, unsigned *flags)
{
	*flags = perfring_perfdata_is_pipe(pd) ? PERFRING_TRACING_DATA_PIPE : 0;
	for (uint32_t i = 0; i < perfring_perfdata_nr_features(pd); i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };

		if (perfring_perfdata_feature(pd, i, &f, NULL) < 0 ||
		    f.id != PERFRING_FEAT_TRACING_DATA)
			continue;
		if (perfring_tracing_data_check(f.data, f.size, *flags, NULL, NULL) < 0)
			return NULL;
		*len = f.size;
		return f.data;
	}
	return NULL;
}

/* The events planned (IDENTIFIER, ids), the marker event, TRACING_DATA. */
static int file_setup(void *user, struct perfring_writer *w, struct perfring_perfdata *pd,
		      struct perfring_diag *diag)
{
	struct file_state *fs = user;
	struct marks_event *mev;
	const void *itd;
	size_t itd_len = 0;
	unsigned itd_flags = 0;
	int ret;

	fs->n = perfring_perfdata_nr_attrs(pd);
	fs->fe = g_new0(struct file_ev, fs->n);
	mev = g_new0(struct marks_event, fs->n);
	for (size_t i = 0; i < fs->n; i++) {
		struct file_ev *f = &fs->fe[i];
		const struct perfring_attr *a;
		const uint64_t *ids;
		uint32_t nr;

		perfring_perfdata_attr(pd, (uint32_t)i, &a, &ids, &nr, &f->name);
		f->orig = f->attr = *a;
		f->ids = g_new0(uint64_t, nr + 1);
		if (nr)
			memcpy(f->ids, ids, nr * sizeof(*ids));
		f->nr_ids = nr;
		mev[i].attr = &f->attr;
		mev[i].ids = &f->ids;
		mev[i].nr_ids = &f->nr_ids;
	}
	itd = marks_pd_tracing_data(pd, &itd_len, &itd_flags);
	ret = marks_merge_plan(fs->m, mev, fs->n, itd, itd_len, itd_flags, fs->td);
	g_free(mev);
	if (ret < 0)
		return -1;
	if (perfring_writer_set_feature(w, PERFRING_FEAT_TRACING_DATA, fs->td->data, fs->td->len,
					diag) < 0)
		return -1;
	for (size_t i = 0; i <= fs->n; i++) {
		PERFRING_EVENT_DESC(e);

		if (i < fs->n) {
			e.attr = &fs->fe[i].attr;
			e.ids = fs->fe[i].ids;
			e.nr_ids = (uint32_t)fs->fe[i].nr_ids;
			e.name = fs->fe[i].name;
		} else {
			e.attr = &fs->m->attr;
			e.ids = &fs->m->id;
			e.nr_ids = 1;
			e.name = MARKS_EVENT_NAME;
		}
		if (perfring_writer_add_event(w, &e, diag) < 0)
			return -1;
	}
	return 0;
}

static size_t file_record(void *user, const struct perfring_attr *attr, const void *rec,
			  size_t size, const void **out)
{
	struct file_state *fs = user;
	uint64_t id = fs->n ? fs->fe[0].ids[0] : 0;

	for (size_t i = 0; attr && i < fs->n; i++)
		if (!memcmp(&fs->fe[i].orig, attr, sizeof(*attr))) {
			id = fs->fe[i].ids[0];
			break;
		}
	size = marks_merge_fix(attr, id, rec, size, fs->buf, out);
	if (!size) {
		tool_error("a record of 65528 bytes or more has no room for the sample id that "
			   "the markers' event needs: dropped");
		fs->m->st.problems++;
	}
	return size;
}

static int file_next(void *user, const void **rec, size_t *size)
{
	return marks_merge_next(((struct file_state *)user)->m, rec, size);
}

int marks_merge_file(const char *path, int argc, const char *const *argv, int compression_level,
		     const char *dir, struct marks_merge_stats *st)
{
	struct perfring_perfdata *pd = NULL;
	struct perfring_perfdata_record r = { .sz = sizeof(r) };
	struct perfring_diag diag;
	struct file_state *fs = g_new0(struct file_state, 1);
	struct file_rewrite_ops ops = { .user = fs, .setup = file_setup, .record = file_record,
					.next = file_next };
	struct marks_merge *m = fs->m = marks_merge_new();
	const struct perfring_attr *a0;
	int ret, status = -1;

	memset(st, 0, sizeof(*st));
	fs->td = g_byte_array_new();
	tool_diag_reset(&diag);
	if (perfring_perfdata_open(path, NULL, &diag, &pd) < 0) {
		tool_error_diag(&diag);
		goto out;
	}
	while ((ret = perfring_perfdata_next(pd, &r, &diag)) == 1)
		marks_merge_scan(m, r.attr, r.hdr, r.size);
	if (dir)
		marks_merge_add_path(m, dir);
	if (!marks_merge_nr_rings(m)) {
		status = 0;
		goto out;
	}
	if (!perfring_perfdata_nr_attrs(pd) ||
	    perfring_perfdata_attr(pd, 0, &a0, NULL, NULL, NULL) < 0) {
		tool_error("%s: no event: markers not merged", path);
		goto out;
	}
	if (!((a0->flags & PERFRING_ATTR_USE_CLOCKID) && a0->clockid == 1) ||
	    !(a0->sample_type & PERFRING_SAMPLE_TIME)) {
		tool_error("warning: %s: not recorded on CLOCK_MONOTONIC with times (perf record "
			   "-k mono): markers not merged", path);
		status = 0;
		goto out;
	}
	if (!marks_merge_load(m) && !m->st.lost) {
		status = 0;	/* nothing to add: the file stays as it is */
		goto out;
	}
	perfring_perfdata_close(pd);
	pd = NULL;
	status = file_rewrite(path, argc, argv, compression_level, &ops, &m->st.problems);
out:
	*st = m->st;
	perfring_perfdata_close(pd);
	for (size_t i = 0; fs->fe && i < fs->n; i++)
		g_free(fs->fe[i].ids);
	g_free(fs->fe);
	g_byte_array_free(fs->td, TRUE);
	g_free(fs);
	marks_merge_free(m);
	return status;
}

/* ---- reading the merged samples back (perfring-dump) ------------------------------ */

/* The NUL-terminated string of the __data_loc at raw + at, or NULL. */
static const char *data_loc(const uint8_t *raw, size_t raw_size, size_t at)
{
	uint32_t loc, off, len;

	memcpy(&loc, raw + at, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (!len || off < MK_RAW_FIXED || off > raw_size || len > raw_size - off ||
	    raw[off + len - 1] || memchr(raw + off, 0, len - 1))
		return NULL;
	return (const char *)raw + off;
}

int marks_sample_decode(const void *raw, size_t raw_size, struct marks_sample *s)
{
	const uint8_t *p = raw;
	int32_t v;

	if (raw_size < MK_RAW_FIXED)
		return -1;
	memcpy(&v, p + 4, 4);
	s->tid = v;
	memcpy(&s->value, p + 8, 8);
	memcpy(&v, p + 16, 4);
	s->pid = v;
	memcpy(&s->depth, p + 20, 4);
	memcpy(&s->flags, p + 24, 4);
	s->kind = data_loc(p, raw_size, 28);
	s->name = data_loc(p, raw_size, 32);
	s->text = data_loc(p, raw_size, 36);
	return s->kind && s->name && s->text && data_loc(p, raw_size, 40) ? 0 : -1;
}

/* ---- --span: the samples taken inside a span (tools/marks-span.c) ------------------- */

struct marks_span *marks_merge_spans(const struct marks_merge *m, const char *name)
{
	struct marks_span *sp = marks_span_new(name);

	for (guint i = 0; i < m->mks->len; i++) {
		const struct mk *k = &g_array_index(m->mks, struct mk, i);

		if (k->kind != MK_LOST && k->name)
			marks_span_add(sp, (int32_t)k->tid, k->time, k->kind, k->name,
				       strlen(k->name));
	}
	marks_span_build(sp);
	return sp;
}

bool marks_sample_tid_time(const struct perfring_attr *a, const void *rec, size_t size,
			   uint32_t *tid, uint64_t *time)
{
	const uint8_t *p = rec;
	uint64_t st = a ? a->sample_type : 0;
	size_t off = 8;

	if (!(st & PERFRING_SAMPLE_TID) || !(st & PERFRING_SAMPLE_TIME))
		return false;
	off += (st & PERFRING_SAMPLE_IDENTIFIER) ? 8 : 0;
	off += (st & PERFRING_SAMPLE_IP) ? 8 : 0;
	if (size < off + 16)
		return false;
	memcpy(tid, p + off + 4, 4);
	memcpy(time, p + off + 8, 8);
	return true;
}
