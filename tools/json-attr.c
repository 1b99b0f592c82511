/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The perf_event_attr fields by name, for the JSON encoder and decoder. */
#include "config.h"

#include <stddef.h>

#include "json-codec-priv.h"

const char *const jc_flag_names[38] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user",
	"exclude_kernel", "exclude_hv", "exclude_idle", "mmap", "comm", "freq",
	"inherit_stat", "enable_on_exec", "task", "watermark", NULL, NULL,
	"mmap_data", "sample_id_all", "exclude_host", "exclude_guest",
	"exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward",
	"namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup",
	"text_poke", "build_id", "inherit_thread", "remove_on_exec", "sigtrap",
};


const struct attr_field jc_attr_fields[] = {
	{ "wakeup_events", "wakeup_watermark", PERFRING_ATTR_WATERMARK,
	  offsetof(struct perfring_attr, wakeup_events), 4, false },
	{ "bp_type", NULL, 0, offsetof(struct perfring_attr, bp_type), 4, false },
	{ "config1", NULL, 0, offsetof(struct perfring_attr, config1), 8, false },
	{ "config2", NULL, 0, offsetof(struct perfring_attr, config2), 8, false },
	{ "branch_sample_type", NULL, 0, offsetof(struct perfring_attr, branch_sample_type), 8, false },
	{ "sample_regs_user", NULL, 0, offsetof(struct perfring_attr, sample_regs_user), 8, false },
	{ "sample_stack_user", NULL, 0, offsetof(struct perfring_attr, sample_stack_user), 4, false },
	{ "clockid", NULL, 0, offsetof(struct perfring_attr, clockid), 4, true },
	{ "sample_regs_intr", NULL, 0, offsetof(struct perfring_attr, sample_regs_intr), 8, false },
	{ "aux_watermark", NULL, 0, offsetof(struct perfring_attr, aux_watermark), 4, false },
	{ "sample_max_stack", NULL, 0, offsetof(struct perfring_attr, sample_max_stack), 2, false },
	{ "reserved_2", NULL, 0, offsetof(struct perfring_attr, reserved_2), 2, false },
	{ "aux_sample_size", NULL, 0, offsetof(struct perfring_attr, aux_sample_size), 4, false },
	{ "reserved_3", NULL, 0, offsetof(struct perfring_attr, reserved_3), 4, false },
	{ "sig_data", NULL, 0, offsetof(struct perfring_attr, sig_data), 8, false },
	{ "config3", NULL, 0, offsetof(struct perfring_attr, config3), 8, false },
};
const size_t jc_n_attr_fields = sizeof(jc_attr_fields) / sizeof(jc_attr_fields[0]);
