/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The libperfring plugin ABI: what a plugin author includes.
 *
 * A plugin is a shared module (libtool: -module -avoid-version) that defines
 * one descriptor with PERFRING_PLUGIN_DEFINE().  That macro exports exactly
 * one symbol, `perfring_plugin_descriptor`; keep everything else in the
 * plugin static or hidden (-fvisibility=hidden).  The host reads and
 * validates the descriptor before it calls any plugin code.
 *
 * The ABI is versioned on its own, independently of the library soname:
 * PERFRING_PLUGIN_ABI_MAJOR changes on any incompatible change to the
 * descriptor or a table, _MINOR when a field is appended.  The host accepts
 * a plugin whose major equals its own and whose minor is not newer.
 *
 * Every function of a table follows the library convention: it returns 0 or
 * a non-negative count on success, a negative errno on failure, and never
 * uses errno as the channel.
 */
#ifndef PERFRING_PLUGIN_H
#define PERFRING_PLUGIN_H

#include <perfring/perfring.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFRING_PLUGIN_ABI_MAJOR 1
#define PERFRING_PLUGIN_ABI_MINOR 1

/* Name of the one symbol a plugin exports. */
#define PERFRING_PLUGIN_SYMBOL "perfring_plugin_descriptor"

enum perfring_plugin_kind {
	PERFRING_PLUGIN_KIND_RECORD = 1,	/* encodes/decodes record types */
	PERFRING_PLUGIN_KIND_BACKEND = 2,	/* event source (perf_event_open, ...) */
};

/*
 * Record-type operations.  ABI: fields are only ever appended; struct_size
 * (= sizeof when the plugin was built) tells the host which exist.
 *
 * `attr` may be NULL, meaning no sample_id_all trailer.  With
 * PERFRING_ATTR_SAMPLE_ID_ALL in attr->flags, every record carries the
 * trailer selected by attr->sample_type after its body (use
 * perfring_sample_id_size/_encode/_decode), and header.size includes it.
 */
struct perfring_record_ops {
	uint32_t struct_size;

	/*
	 * Encode the typed struct (struct perfring_comm, ...) as a record of
	 * `type` (one of the claimed types) into buf (len bytes), trailer
	 * from sid (NULL: all zeros).  Returns the record size (a multiple
	 * of 8); -ENOSPC if len is too small; -EMSGSIZE if the record would
	 * exceed PERFRING_RECORD_MAX_SIZE; -EINVAL for a bad argument or a
	 * type the plugin does not encode.  Must be async-signal-safe.
	 * Optional (NULL: the plugin only decodes).
	 */
	int (*encode)(const struct perfring_attr *attr, uint32_t type,
		      const void *typed, const struct perfring_sample_id *sid,
		      void *buf, size_t len);

	/*
	 * Decode a whole record (header included) of `size` bytes into
	 * typed_out (out_size bytes: at least sizeof the typed struct) and,
	 * if sid_out is not NULL, the trailer.  Every length is checked
	 * against size.  Returns 0; -EBADMSG for a malformed record (diag
	 * says what and at which offset within the record); -EINVAL if
	 * out_size is too small or the type is not the plugin's.  Required.
	 */
	int (*decode)(const struct perfring_attr *attr, const void *rec,
		      size_t size, void *typed_out, size_t out_size,
		      struct perfring_sample_id *sid_out,
		      struct perfring_diag *diag);

	/*
	 * Format the body (not the header, not the trailer) of a record as
	 * one line of text, in the style of `perf report -D`
	 * ("exec: ls:1234/1234").  snprintf semantics: returns the length
	 * the text needs (buf holds a truncated, NUL-terminated copy when
	 * len is smaller), or -EBADMSG for a malformed record.  Required.
	 */
	int (*format_text)(const struct perfring_attr *attr, const void *rec,
			   size_t size, char *buf, size_t len);

	/*
	 * Format the body as JSON members without braces, named as the kernel
	 * names the fields: "pid":1,"tid":2,"comm":"ls".  Addresses (addr)
	 * are "0x…" strings; strings are escaped with
	 * perfring_format_json_string().  Same return values as format_text.
	 * Required.
	 */
	int (*format_json)(const struct perfring_attr *attr, const void *rec,
			   size_t size, char *buf, size_t len);

	/*
	 * ABI 1.1.  The inverse of format_json: build a record of `type`
	 * from the members format_json prints, read through `in` (see
	 * struct perfring_json_in), with header misc `misc` and the trailer
	 * from sid (NULL: all zeros), into buf (len bytes).  A member that
	 * is absent means 0 (or what misc says); a value the record cannot
	 * hold is reported with in->fail.  parse_json(format_json(r)) must
	 * give r back byte for byte whenever r is well formed.  Returns the
	 * record size, -EINVAL after reporting, -ENOSPC / -EMSGSIZE as
	 * encode.  Optional (NULL: the type's JSON is for reading only and
	 * its records travel as hex).
	 */
	int (*parse_json)(const struct perfring_attr *attr, uint32_t type,
			  uint16_t misc, const struct perfring_json_in *in,
			  const struct perfring_sample_id *sid, void *buf,
			  size_t len);
};

/* Backend operations (struct perfring_backend_ops). */
#include <perfring/backend.h>

/*
 * The plugin descriptor.  ABI: fields are only ever appended (bump
 * PERFRING_PLUGIN_ABI_MINOR); never reorder, resize or remove one (bump the
 * major).  Fill it with PERFRING_PLUGIN_DEFINE, which stamps struct_size and
 * the ABI numbers of the plugin.h the plugin is compiled against.
 */
struct perfring_plugin_descriptor {
	uint32_t struct_size;
	uint16_t abi_major;
	uint16_t abi_minor;
	const char *name;		/* required, short: "comm" */
	const char *version;		/* optional: "1.0" */
	const char *description;	/* optional, one line */
	uint32_t kind;			/* enum perfring_plugin_kind */
	uint32_t n_types;		/* record kind: number of claimed types */
	const uint32_t *types;		/* record kind: claimed record types */
	/*
	 * Optional; called once after validation, before any other function.
	 * A negative return rejects the plugin.
	 */
	int (*init)(void);
	void (*fini)(void);		/* optional; called before unloading */
	const struct perfring_record_ops *record_ops;	/* record kind */
	const struct perfring_backend_ops *backend_ops; /* backend kind */
};

#if defined(__GNUC__)
#define PERFRING_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define PERFRING_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
#define PERFRING_PLUGIN_EXTERN_C extern "C"
#else
#define PERFRING_PLUGIN_EXTERN_C extern
#endif

/* Number of elements of an array, for .n_types. */
#define PERFRING_PLUGIN_N(array) (sizeof(array) / sizeof((array)[0]))

/*
 * Define the plugin's descriptor from designated initializers:
 *
 *	static const uint32_t types[] = { PERFRING_RECORD_COMM };
 *	static const struct perfring_record_ops ops = {
 *		.struct_size = sizeof(ops), .decode = ..., ...
 *	};
 *	PERFRING_PLUGIN_DEFINE(
 *		.name = "comm", .version = "1.0",
 *		.kind = PERFRING_PLUGIN_KIND_RECORD,
 *		.types = types, .n_types = PERFRING_PLUGIN_N(types),
 *		.record_ops = &ops);
 *
 * Use it once per plugin, at file scope.
 */
#define PERFRING_PLUGIN_DEFINE(...)						\
	PERFRING_PLUGIN_EXTERN_C PERFRING_PLUGIN_EXPORT const struct		\
		perfring_plugin_descriptor perfring_plugin_descriptor;		\
	PERFRING_PLUGIN_EXPORT const struct perfring_plugin_descriptor	\
		perfring_plugin_descriptor = {					\
		.struct_size = sizeof(struct perfring_plugin_descriptor),	\
		.abi_major = PERFRING_PLUGIN_ABI_MAJOR,				\
		.abi_minor = PERFRING_PLUGIN_ABI_MINOR,				\
		__VA_ARGS__							\
	}

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_PLUGIN_H */
