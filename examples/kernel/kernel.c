/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/kernel: a small x86-64 kernel that profiles itself into a perf
 * ring with libperfring's freestanding core, for stock perf on the host.
 *
 *  - boot.S: multiboot entry, long mode; this file: IDT, PIC, PIT at
 *    1000 Hz, three tasks and a round-robin scheduler.
 *  - the ring: an ivshmem-plain PCI device (QEMU's memory-backend-file with
 *    share=on: a file on the host).  The kernel lays a libperfring ring file
 *    out at the start of it (perfring_core_file_init), so the host reads it
 *    with perfring-dump / perfring-replay while the guest runs, after it
 *    hangs, or after QEMU was killed.
 *  - process context (init, the tasks) writes COMM, MMAP2 (the kernel's own
 *    image, named by the host path given on the command line, with its GNU
 *    build id), FORK and EXIT; the timer interrupt writes a SAMPLE per tick
 *    (IP, TID, TIME, CALLCHAIN by frame pointers, PERIOD).  No interrupt is
 *    masked around a write: a tick that interrupts a process-context write
 *    nests (each EXIT record waits for a tick inside its open reservation,
 *    to show it happen every run).
 *  - the tasks spend designed shares of the ticks in known functions:
 *    render_frame 60%, step_physics 30%, mix_audio 10%.
 *
 * Command line (QEMU -append): image=HOST-PATH-OF-THIS-ELF pgoff=N
 * rounds=N.  Last page of the device: a mailbox (struct mailbox) the host
 * test polls.  Exit: isa-debug-exit at port 0xf4 (QEMU exit status 33).
 */
#include <stdint.h>
#include <stddef.h>

#include <perfring/core/core.h>

/* ---- libc the core needs, and port I/O ------------------------------------------- */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);

void *memcpy(void *d, const void *s, size_t n)
{
	void *r = d;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return r;
}

void *memset(void *d, int c, size_t n)
{
	void *r = d;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return r;
}

static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p));
	return v;
}
static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(p)); }
static inline uint32_t inl(uint16_t p)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p));
	return v;
}
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* ---- serial console (COM1) --------------------------------------------------------- */
static void putc_serial(char c)
{
	while (!(inb(0x3f8 + 5) & 0x20))
		;
	outb(0x3f8, (uint8_t)c);
}

static void puts_serial(const char *s)
{
	while (*s)
		putc_serial(*s++);
}

static void putn(uint64_t v)
{
	char b[21];
	int i = 20;

	b[i] = 0;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	puts_serial(b + i);
}

static void putx(uint64_t v)
{
	int i;

	puts_serial("0x");
	for (i = 60; i >= 0; i -= 4)
		putc_serial("0123456789abcdef"[(v >> i) & 15]);
}

/* ---- the mailbox, in the device's last page ------------------------------------------- */
#define MAILBOX_MAGIC 0x5842414d4b525250ull	/* "PRRKMABX" */
struct mailbox {
	uint64_t magic;
	uint64_t state;			/* 1 running, 2 done, 3 failed */
	uint64_t ticks;
	uint64_t samples;		/* SAMPLE records committed */
	uint64_t records;		/* all records committed (data_head covers them) */
	uint64_t nested;		/* ticks that landed inside a process-context write */
	uint64_t sample_cycles;		/* TSC (instructions under -icount shift=0) in sampling */
	uint64_t dropped;
};
static volatile struct mailbox *mbox;

/* ---- time: PIT ticks plus the PIT's count within the tick -------------------------------- */
#define PIT_HZ 1193182u
#define PIT_DIV 1193u
#define TICK_NS 999847ull		/* PIT_DIV / PIT_HZ seconds */
static volatile uint64_t ticks;

/*
 * Monotonic, also before the first tick is taken (init writes its records
 * with interrupts off, while the PIT counter wraps without ticks moving):
 * never below the last value given to process context.
 */
static uint64_t last_ns;

static uint64_t now_ns(void)
{
	uint64_t t, t2, v;
	uint32_t count;

	do {
		t = ticks;
		outb(0x43, 0x00);	/* latch channel 0 */
		count = inb(0x40);
		count |= (uint32_t)inb(0x40) << 8;
		t2 = ticks;
	} while (t != t2);
	if (count > PIT_DIV)
		count = PIT_DIV;
	v = t * TICK_NS + (uint64_t)(PIT_DIV - count) * 838u;
	if (v <= last_ns)
		v = last_ns + 1;
	last_ns = v;
	return v;
}

static uint64_t clock_cb(void *user)
{
	(void)user;
	return now_ns();
}

/* ---- the ring ----------------------------------------------------------------------------- */
#define DATA_SIZE (2u << 20)
static struct perfring_core_ring ring;

static const struct perfring_attr attr = {
	.type = PERFRING_TYPE_SOFTWARE,
	.size = PERFRING_ATTR_SIZE_VER7,
	.config = 0,			/* cpu-clock */
	.sample_period = TICK_NS,
	.sample_type = PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
		       PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CALLCHAIN | PERFRING_SAMPLE_CPU |
		       PERFRING_SAMPLE_PERIOD,
	/*
	 * The image is reported as a program's (cpumode USER): perf then names
	 * its functions from the ELF file on the host, found by the MMAP2.
	 */
	.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_KERNEL |
		 PERFRING_ATTR_EXCLUDE_HV | PERFRING_ATTR_EXCLUDE_IDLE | PERFRING_ATTR_COMM |
		 PERFRING_ATTR_COMM_EXEC | PERFRING_ATTR_MMAP | PERFRING_ATTR_MMAP2 |
		 PERFRING_ATTR_TASK | PERFRING_ATTR_USE_CLOCKID,
	.clockid = 1,			/* CLOCK_MONOTONIC: since boot */
};
static const uint64_t event_id = 1;

/*
 * One process-context record.  TIME must not go back on this CPU: a
 * tick's SAMPLE (at the tick's time) that lands before our record must
 * not be later than our time, and one that nests inside our reservation
 * lands after it with a later time.  So the time is read just before the
 * reserve, and if a tick came in between (its SAMPLE went first), the
 * space is given back and it all starts again.  wait_tick: wait for a
 * tick between the two halves of the copy, to show a SAMPLE nesting
 * inside the open reservation (the EXIT records do).
 */
typedef int (*encode_fn)(const void *arg, uint64_t time, unsigned char *rec, size_t len);

static void emit_proc(encode_fn enc, const void *arg, int wait_tick)
{
	unsigned char rec[8 + 72 + 256 + 48];
	struct perfring_wr w;
	int n;

	for (;;) {
		uint64_t t0 = ticks;

		n = enc(arg, now_ns(), rec, sizeof(rec));
		if (n < 0 || perfring_core_reserve(&ring, (size_t)n, &w) != 0) {
			mbox->dropped++;
			return;
		}
		if (ticks == t0)
			break;
		perfring_core_abort(&ring, &w);
	}
	if (wait_tick) {
		uint64_t t0 = ticks;

		perfring_core_copy(&ring, &w, 0, rec, 16);
		while (ticks == t0)
			__asm__ volatile("pause");
		perfring_core_copy(&ring, &w, 16, rec + 16, (size_t)n - 16);
	} else {
		perfring_core_copy(&ring, &w, 0, rec, (size_t)n);
	}
	perfring_core_commit(&ring, &w);
	mbox->records++;
}

static struct perfring_sample_id sid_at(uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perfring_sample_id sid = { .pid = pid, .tid = tid, .time = time,
					  .id = event_id, .identifier = event_id };

	return sid;
}

static int enc_comm(const void *arg, uint64_t time, unsigned char *rec, size_t len)
{
	const struct perfring_comm *c = arg;
	struct perfring_sample_id sid = sid_at(c->pid, c->tid, time);

	return perfring_core_comm_encode(&attr, c, &sid, rec, len);
}

/* FORK (from the parent, init) or EXIT (from the task) of pid, child of init */
struct task_rec {
	uint32_t type, pid;
};

static int enc_task(const void *arg, uint64_t time, unsigned char *rec, size_t len)
{
	const struct task_rec *tr = arg;
	struct perfring_task tk = { .pid = tr->pid, .ppid = 1, .tid = tr->pid, .ptid = 1,
				    .time = time };
	uint32_t who = tr->type == PERFRING_RECORD_FORK ? 1 : tr->pid;
	struct perfring_sample_id sid = sid_at(who, who, time);

	return perfring_core_task_encode(&attr, tr->type, &tk, &sid, rec, len);
}

static int enc_mmap2(const void *arg, uint64_t time, unsigned char *rec, size_t len)
{
	const struct perfring_mmap2 *m = arg;
	struct perfring_sample_id sid = sid_at(m->pid, m->tid, time);

	return perfring_core_mmap2_encode(&attr, PERFRING_RECORD_MMAP2, m, &sid, rec, len);
}

/* ---- tasks ----------------------------------------------------------------------------------- */
struct regs {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t rip, cs, rflags, rsp, ss;
};

struct task {
	uint32_t pid;
	const char *name;
	void (*work)(void);
	uint32_t quantum;		/* ticks per turn */
	uint64_t budget;		/* ticks in all */
	uint64_t ran;
	uint32_t left;
	int state;			/* 0 free, 1 runnable, 2 dead */
	volatile int should_exit;
	struct regs *saved;
	unsigned char *stack_lo, *stack_hi;
};

#define NR_TASKS 3
#define STACK_SIZE 16384
static unsigned char stacks[NR_TASKS][STACK_SIZE] __attribute__((aligned(16)));
extern unsigned char boot_stack[], boot_stack_top[];
static struct task tasks[NR_TASKS];
static struct task *current;		/* NULL: init (kmain) is the idle loop */
static struct regs *idle_regs;
static volatile uint32_t alive;
static volatile uint64_t spin_sink;

/* The work, in three functions the profile must show in their shares. */
__attribute__((noinline)) static void render_frame(void)
{
	for (int i = 0; i < 20000; i++)
		spin_sink += (uint64_t)i * 3;
}

__attribute__((noinline)) static void step_physics(void)
{
	for (int i = 0; i < 20000; i++)
		spin_sink ^= (uint64_t)i << 1;
}

__attribute__((noinline)) static void mix_audio(void)
{
	for (int i = 0; i < 20000; i++)
		spin_sink += (uint64_t)i | 1;
}

static __attribute__((noreturn)) void task_entry(struct task *t);

/*
 * A task's EXIT, from its own context.  The record is reserved, half
 * copied, then the task waits for the next tick with interrupts on: the
 * tick's SAMPLE nests inside the open reservation (and lands after it),
 * and only this commit publishes both.
 */
__attribute__((noinline)) static void write_exit(struct task *t)
{
	struct task_rec tr = { PERFRING_RECORD_EXIT, t->pid };

	emit_proc(enc_task, &tr, 1);
}

static __attribute__((noreturn)) void task_entry(struct task *t)
{
	struct perfring_comm c = { .pid = t->pid, .tid = t->pid, .exec = true,
				   .misc = PERFRING_MISC_USER };
	int i;

	for (i = 0; t->name[i] && i < PERFRING_COMM_LEN - 1; i++)
		c.comm[i] = t->name[i];
	emit_proc(enc_comm, &c, 0);
	while (!t->should_exit)
		t->work();
	write_exit(t);
	__asm__ volatile("int $0x81");	/* never returns: the task is dead */
	for (;;)
		__asm__ volatile("hlt");
}

/*
 * init forks a task: the FORK record from init's context (its trailer
 * describes the parent), and a first frame that returns into init, so
 * that the task's call chains end in kmain like a thread's end in its
 * creator's start routine.
 */
__attribute__((noinline)) static void spawn(struct task *t)
{
	struct task_rec tr = { PERFRING_RECORD_FORK, t->pid };
	uint64_t *sp;
	struct regs *r;

	emit_proc(enc_task, &tr, 0);
	const uint64_t *fp = __builtin_frame_address(0);	/* our frame: init's rbp, return */

	sp = (uint64_t *)(void *)(t->stack_hi - 24);	/* 8 mod 16, as after a call */
	*sp = fp[1];
	r = (struct regs *)(void *)((unsigned char *)sp - 64 - sizeof(struct regs));
	memset(r, 0, sizeof(*r));
	r->rip = (uint64_t)task_entry;
	r->cs = 0x08;
	r->rflags = 0x202;
	r->rsp = (uint64_t)sp;
	r->ss = 0x10;
	r->rdi = (uint64_t)t;
	r->rbp = fp[0];
	t->saved = r;
	t->state = 1;
	alive++;
}

/* ---- sampling ------------------------------------------------------------------------------ */
static int on_stack(uint64_t p)
{
	uint32_t i;

	if (p >= (uint64_t)boot_stack && p + 16 <= (uint64_t)boot_stack_top)
		return 1;
	for (i = 0; i < NR_TASKS; i++)
		if (p >= (uint64_t)tasks[i].stack_lo && p + 16 <= (uint64_t)tasks[i].stack_hi)
			return 1;
	return 0;
}

#define MAX_FRAMES 32

static void sample(struct task *t, const struct regs *r)
{
	uint64_t cc[MAX_FRAMES + 2], fp = r->rbp;
	unsigned char rec[8 + 8 * 8 + 8 * (MAX_FRAMES + 2)];
	struct perfring_sample s = { .identifier = event_id, .ip = r->rip, .pid = t->pid,
				     .tid = t->pid, .time = ticks * TICK_NS, .cpu = 0,
				     .period = TICK_NS, .callchain = cc };
	uint32_t n = 0;
	int len;

	cc[n++] = PERFRING_CONTEXT_USER;
	cc[n++] = r->rip;
	while (n < MAX_FRAMES + 2 && fp && !(fp & 7) && on_stack(fp)) {
		uint64_t ret = ((const uint64_t *)fp)[1];

		if (!ret)
			break;
		cc[n++] = ret;
		fp = ((const uint64_t *)fp)[0];
	}
	s.callchain_nr = n;
	len = perfring_core_sample_encode(&attr, &s, PERFRING_MISC_USER, rec, sizeof(rec));
	if (len > 0 && perfring_core_write(&ring, rec) == 0) {
		mbox->samples++;
		mbox->records++;
	} else {
		mbox->dropped++;
	}
}

static struct regs *pick_next(struct regs *r, struct task *from)
{
	uint32_t start = from ? (uint32_t)(from - tasks) + 1 : 0, i;

	for (i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[(start + i) % NR_TASKS];

		if (t->state == 1) {
			if (from)
				from->saved = r;
			else
				idle_regs = r;
			t->left = t->quantum;
			current = t;
			return t->saved;
		}
	}
	/* nothing runnable: back to init */
	if (from) {
		current = 0;
		return idle_regs;
	}
	return r;
}

struct regs *timer_interrupt(struct regs *r);
struct regs *yield_interrupt(struct regs *r);
void fault_interrupt(struct regs *r);
void kmain(uint32_t mbi);

struct regs *timer_interrupt(struct regs *r)
{
	struct task *t = current;

	ticks++;
	mbox->ticks = ticks;
	outb(0x20, 0x20);	/* EOI: the PIT's next tick waits for iretq (IF) */
	if (!t)
		return alive ? pick_next(r, 0) : r;
	if (ring.ws->nest)
		mbox->nested++;
	{
		uint64_t c0 = rdtsc();

		sample(t, r);
		mbox->sample_cycles += rdtsc() - c0;
	}
	t->ran++;
	if (t->ran >= t->budget) {
		t->should_exit = 1;	/* it writes its EXIT and yields */
		return r;
	}
	if (--t->left == 0)
		return pick_next(r, t);
	return r;
}

struct regs *yield_interrupt(struct regs *r)
{
	struct task *t = current;

	if (t) {
		t->state = 2;
		alive--;
		return pick_next(r, t);
	}
	return r;
}

void fault_interrupt(struct regs *r)
{
	puts_serial("kernel: fault at rip ");
	putx(r->rip);
	puts_serial("\n");
	mbox->state = 3;
	outl(0xf4, 0x1);
}

/* ---- IDT, PIC, PIT, PCI ------------------------------------------------------------------ */
struct idt_entry {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, zero;
} __attribute__((packed));
static struct idt_entry idt[256] __attribute__((aligned(16)));
extern void isr_timer(void), isr_yield(void), isr_fault(void);

static void set_gate(int v, void (*fn)(void))
{
	uint64_t a = (uint64_t)fn;

	idt[v].off0 = (uint16_t)a;
	idt[v].sel = 0x08;
	idt[v].ist = 0;
	idt[v].type = 0x8e;		/* present, interrupt gate: IF cleared on entry */
	idt[v].off1 = (uint16_t)(a >> 16);
	idt[v].off2 = (uint32_t)(a >> 32);
	idt[v].zero = 0;
}

static void setup_interrupts(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) p = { sizeof(idt) - 1, (uint64_t)idt };
	int v;

	for (v = 0; v < 32; v++)
		set_gate(v, isr_fault);
	set_gate(0x20, isr_timer);
	set_gate(0x81, isr_yield);
	__asm__ volatile("lidt %0" : : "m"(p));
	/* PIC: IRQ 0-7 at 0x20, 8-15 at 0x28, only IRQ 0 (the PIT) unmasked */
	outb(0x20, 0x11); outb(0xa0, 0x11);
	outb(0x21, 0x20); outb(0xa1, 0x28);
	outb(0x21, 0x04); outb(0xa1, 0x02);
	outb(0x21, 0x01); outb(0xa1, 0x01);
	outb(0x21, 0xfe); outb(0xa1, 0xff);
	/* PIT channel 0, rate generator, 1000 Hz */
	outb(0x43, 0x34);
	outb(0x40, PIT_DIV & 0xff);
	outb(0x40, PIT_DIV >> 8);
}

static uint32_t pci_read(uint32_t bus, uint32_t dev, uint32_t fn, uint32_t off)
{
	outl(0xcf8, 0x80000000u | bus << 16 | dev << 11 | fn << 8 | (off & 0xfc));
	return inl(0xcfc);
}

static void pci_write(uint32_t bus, uint32_t dev, uint32_t fn, uint32_t off, uint32_t v)
{
	outl(0xcf8, 0x80000000u | bus << 16 | dev << 11 | fn << 8 | (off & 0xfc));
	outl(0xcfc, v);
}

extern uint64_t pdpt[512];
static uint64_t high_pd[512] __attribute__((aligned(4096)));

/* ivshmem (1af4:1110): its shared memory BAR 2, mapped; size in *size. */
static unsigned char *find_ivshmem(uint64_t *size)
{
	uint32_t dev;

	for (dev = 0; dev < 32; dev++) {
		uint32_t id = pci_read(0, dev, 0, 0), lo, hi, cmd;
		uint64_t bar, sz;

		if (id != 0x11101af4u)
			continue;
		cmd = pci_read(0, dev, 0, 4);
		lo = pci_read(0, dev, 0, 0x18);
		hi = (lo & 6) == 4 ? pci_read(0, dev, 0, 0x1c) : 0;
		pci_write(0, dev, 0, 0x18, 0xffffffffu);
		sz = ~(uint64_t)(pci_read(0, dev, 0, 0x18) & ~0xfu) + 1;
		sz &= 0xffffffffu;
		pci_write(0, dev, 0, 0x18, lo);
		pci_write(0, dev, 0, 4, cmd | 2);	/* memory space on */
		bar = ((uint64_t)hi << 32) | (lo & ~0xfu);
		if (bar >= (4ull << 30)) {
			/* above 4 GiB: map its GiB with one more directory */
			uint64_t g = bar >> 30, i;

			for (i = 0; i < 512; i++)
				high_pd[i] = (g << 30) + (i << 21) + 0x83;
			if (g >= 512)
				return 0;
			pdpt[g] = (uint64_t)high_pd + 3;
			__asm__ volatile("mov %%cr3, %%rax; mov %%rax, %%cr3" : : : "rax", "memory");
		}
		*size = sz;
		return (unsigned char *)bar;
	}
	return 0;
}

/* ---- the command line (multiboot info) ------------------------------------------------- */
static const char *cmdline = "";

static const char *arg(const char *key, char *buf, size_t len)
{
	const char *p = cmdline;
	size_t kl = 0, n = 0;

	while (key[kl])
		kl++;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t k = 0;

		while (k < kl && p[k] == key[k])
			k++;
		if (k == kl && p[kl] == '=') {
			p += kl + 1;
			while (p[n] && p[n] != ' ' && n + 1 < len) {
				buf[n] = p[n];
				n++;
			}
			buf[n] = 0;
			return buf;
		}
		while (*p && *p != ' ')
			p++;
	}
	return 0;
}

static uint64_t num(const char *s, uint64_t dflt)
{
	uint64_t v = 0;
	int base = 10;

	if (!s || !*s)
		return dflt;
	if (s[0] == '0' && s[1] == 'x') {
		base = 16;
		s += 2;
	}
	for (; *s; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0 || d >= base)
			return dflt;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	return v;
}

/* ---- init ------------------------------------------------------------------------------------ */
extern unsigned char _load_start[], _bss_end[], _build_id_note[];

static void write_image_mmap2(const char *path)
{
	char pg[24];
	const uint32_t *note = (const uint32_t *)(const void *)_build_id_note;
	struct perfring_mmap2 m = { .pid = 1, .tid = 1, .addr = (uint64_t)_load_start,
				    .len = (uint64_t)(_bss_end - _load_start),
				    .prot = 5 /* PROT_READ | PROT_EXEC */, .flags = 2 /* MAP_PRIVATE */,
				    .misc = PERFRING_MISC_USER, .filename = path };
	size_t n = 0;

	m.pgoff = num(arg("pgoff", pg, sizeof(pg)), 0);
	while (path[n])
		n++;
	m.filename_len = n;
	/* the GNU build-id note: namesz, descsz, type 3, "GNU\0", the id */
	if (note[2] == 3 && note[0] == 4 && note[1] <= PERFRING_BUILD_ID_SIZE) {
		m.misc |= PERFRING_MISC_MMAP_BUILD_ID;
		m.build_id_size = (uint8_t)note[1];
		memcpy(m.build_id, (const unsigned char *)(note + 4), note[1]);
	}
	emit_proc(enc_mmap2, &m, 0);
}

void kmain(uint32_t mbi)
{
	static const struct perfring_core_event ev = { .attr = &attr, .ids = &event_id,
						       .nr_ids = 1, .name = "cpu-clock" };
	static char image[256];
	static const char *names[NR_TASKS] = { "render", "physics", "audio" };
	static void (*const works[NR_TASKS])(void) = { render_frame, step_physics, mix_audio };
	static const uint32_t quanta[NR_TASKS] = { 6, 3, 1 };	/* 60/30/10 */
	struct perfring_comm c = { .pid = 1, .tid = 1, .comm = "init", .exec = true,
				   .misc = PERFRING_MISC_USER };
	unsigned char *bar;
	uint64_t bar_size = 0, rounds;
	char rb[24];
	int64_t fsz;
	uint32_t i;

	outb(0x3f8 + 1, 0x00);		/* COM1: no interrupts, 8N1 */
	outb(0x3f8 + 3, 0x03);
	if (mbi && (*(const uint32_t *)(uintptr_t)mbi & 4))
		cmdline = (const char *)(uintptr_t)((const uint32_t *)(uintptr_t)mbi)[4];
	puts_serial("kernel: up, command line: ");
	puts_serial(cmdline);
	puts_serial("\n");
	if (!arg("image", image, sizeof(image)))
		image[0] = 0;
	rounds = num(arg("rounds", rb, sizeof(rb)), 300);

	bar = find_ivshmem(&bar_size);
	if (!bar || bar_size < DATA_SIZE + 3 * 4096) {
		puts_serial("kernel: no ivshmem device with room for the ring\n");
		outl(0xf4, 0x1);
		return;
	}
	mbox = (volatile struct mailbox *)(void *)(bar + bar_size - 4096);
	memset((void *)mbox, 0, 4096);
	fsz = perfring_core_file_init(bar, bar_size - 4096, 4096, DATA_SIZE, 0, 1, &ev, 1, &ring);
	if (fsz < 0) {
		puts_serial("kernel: cannot lay the ring out\n");
		outl(0xf4, 0x1);
		return;
	}
	perfring_core_ring_set_lost(&ring, &attr, event_id, 0, clock_cb, 0);
	mbox->magic = MAILBOX_MAGIC;
	mbox->state = 1;
	puts_serial("kernel: ring at ");
	putx((uint64_t)bar);
	puts_serial(", ");
	putn((uint64_t)fsz);
	puts_serial(" bytes\n");

	setup_interrupts();
	emit_proc(enc_comm, &c, 0);
	if (image[0])
		write_image_mmap2(image);
	for (i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		t->pid = 2 + i;
		t->name = names[i];
		t->work = works[i];
		t->quantum = quanta[i];
		t->budget = quanta[i] * rounds;
		t->stack_lo = stacks[i];
		t->stack_hi = stacks[i] + STACK_SIZE;
		spawn(t);
	}
	/* init is the idle loop until every task has exited */
	while (alive)
		__asm__ volatile("sti; hlt; cli");
	outb(0x21, 0xff);		/* the PIT's interrupt off */
	puts_serial("kernel: done, ");
	putn(mbox->samples);
	puts_serial(" samples, ");
	putn(mbox->records);
	puts_serial(" records, ");
	putn(mbox->nested);
	puts_serial(" ticks inside a process-context write, ");
	putn(mbox->samples ? mbox->sample_cycles / mbox->samples : 0);
	puts_serial(" TSC cycles per sample\n");
	mbox->state = 2;
	outl(0xf4, 0x10);		/* isa-debug-exit: QEMU exits with 33 */
}
