/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What bpf/oncpu.bpf.h (the CPU accounting both recorders share) hands record/: per CPU, the
 * time its tasks ran, by kind, and what runs there now. Kernel units: bpf_ktime_get_ns().
 */
#ifndef IOREEL_BPF_ONCPU_H
#define IOREEL_BPF_ONCPU_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Who a CPU runs: idle (or the recorder itself: neither is reproduced), a recorded thread
 * (one with a recorded call or I/O), another user task, a kernel thread. */
enum oncpu_kind { ONCPU_NONE = 0, ONCPU_TRACED, ONCPU_OTHER, ONCPU_KTHREAD, ONCPU__KINDS };

/* The "oncpu_cpus" per-CPU array's value. ns[kind] sums the finished stretches; the one
 * running since `since` (kind `kind`) is added by whoever reads. */
struct oncpu_cpu {
	__u64 since;
	__u64 ns[ONCPU__KINDS];
	__u32 kind;
	__u32 _pad;
};

/* Per recorded thread (the "oncpu_tasks" hash map, by tid). */
struct oncpu_task {
	__u64 acc_ns;  /* time on a CPU up to its last switch out */
	__u64 in_ns;   /* when it last switched in (it is running when `running`) */
	__u64 mark_ns; /* its total at the end of its previous recorded call (0: none yet) */
	__u64 rd_entry; /* file level: its run-queue wait total (sched_info.run_delay) + 1 at
			 * the entry of its call in progress; 0: none */
	__u32 running;
	__u32 _pad;
};

#define ONCPU_TASKS_MAX 65536
#define ONCPU_SAT 0xffffffffu /* on-CPU time saturates at 4.29 s in the ring records */
#define CPUWAIT_SAT 0xffffffffu /* so does a call's wait for a CPU */

#endif
