/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/kernel: multiboot (v1) entry in 32-bit protected mode, page
 * tables identity-mapping the first 4 GiB with 2 MiB pages, long mode, and
 * the interrupt entry stubs.  QEMU's -kernel loads this ELF64 file through
 * the multiboot header's address fields (the "a.out kludge", flag 16).
 */
	.set MB_MAGIC, 0x1BADB002
	.set MB_FLAGS, 0x00010000
	.set MB_CHECK, -(MB_MAGIC + MB_FLAGS)

	.section .multiboot, "a"
	.align 4
mb_header:
	.long MB_MAGIC, MB_FLAGS, MB_CHECK
	.long mb_header, _load_start, _load_end, _bss_end, _start32

	.section .bss
	.align 4096
	.globl pml4, pdpt
pml4:	.skip 4096
pdpt:	.skip 4096
pds:	.skip 4 * 4096
	.globl boot_stack, boot_stack_top
boot_stack:
	.skip 16384
boot_stack_top:

	.section .data
	.align 8
gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
gdt_end:
gdt_ptr:
	.word gdt_end - gdt - 1
	.quad gdt

	.section .text
	.code32
	.globl _start32
	.type _start32, @function
_start32:
	cli
	movl $boot_stack_top, %esp
	/* pml4[0] -> pdpt, pdpt[0..3] -> pds, pds: 2048 x 2 MiB pages */
	movl $pdpt, %eax
	orl $3, %eax
	movl %eax, pml4
	movl $pds, %eax
	orl $3, %eax
	movl $pdpt, %edi
	movl $4, %ecx
1:	movl %eax, (%edi)
	addl $4096, %eax
	addl $8, %edi
	loop 1b
	movl $pds, %edi
	movl $0x83, %eax		/* present, writable, 2 MiB */
	xorl %edx, %edx
	movl $2048, %ecx
2:	movl %eax, (%edi)
	movl %edx, 4(%edi)
	addl $0x200000, %eax
	jnc 3f
	incl %edx
3:	addl $8, %edi
	loop 2b
	movl %cr4, %eax
	orl $0x20, %eax			/* PAE */
	movl %eax, %cr4
	movl $pml4, %eax
	movl %eax, %cr3
	movl $0xC0000080, %ecx		/* EFER.LME */
	rdmsr
	orl $0x100, %eax
	wrmsr
	movl %cr0, %eax
	orl $0x80000001, %eax		/* PG, PE */
	movl %eax, %cr0
	lgdt gdt_ptr
	ljmp $0x08, $long_entry
	.size _start32, . - _start32

	.code64
	.globl long_entry
	.type long_entry, @function
long_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq $boot_stack_top, %rsp
	xorl %ebp, %ebp
	movl %ebx, %edi			/* the multiboot information */
	call kmain
4:	cli
	hlt
	jmp 4b
	.size long_entry, . - long_entry

/*
 * Interrupt entry: save every general register (struct regs in kernel.c),
 * call the C handler with a pointer to them; it returns the register
 * block to resume (another task's, on a switch).
 */
.macro SAVE
	pushq %rax; pushq %rbx; pushq %rcx; pushq %rdx; pushq %rsi; pushq %rdi
	pushq %rbp; pushq %r8; pushq %r9; pushq %r10; pushq %r11; pushq %r12
	pushq %r13; pushq %r14; pushq %r15
.endm
.macro RESTORE
	popq %r15; popq %r14; popq %r13; popq %r12; popq %r11; popq %r10
	popq %r9; popq %r8; popq %rbp; popq %rdi; popq %rsi; popq %rdx
	popq %rcx; popq %rbx; popq %rax
.endm

	.globl isr_timer
	.type isr_timer, @function
isr_timer:
	SAVE
	movq %rsp, %rdi
	call timer_interrupt
	movq %rax, %rsp
	RESTORE
	iretq
	.size isr_timer, . - isr_timer

	/* int $0x81: a task gives the CPU up (after its EXIT record) */
	.globl isr_yield
	.type isr_yield, @function
isr_yield:
	SAVE
	movq %rsp, %rdi
	call yield_interrupt
	movq %rax, %rsp
	RESTORE
	iretq
	.size isr_yield, . - isr_yield

	.globl isr_fault
	.type isr_fault, @function
isr_fault:
	SAVE
	movq %rsp, %rdi
	call fault_interrupt
5:	cli
	hlt
	jmp 5b
	.size isr_fault, . - isr_fault

	.section .note.GNU-stack, "", @progbits
