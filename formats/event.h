/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One block I/O as every stage of ioreel sees it: recorded, replayed, synthesized or imported.
 * Fixed-width fields and explicit padding so the layout is the same for every compiler
 * (the BPF side uses its own smaller struct, see bpf/record.h, translated by record/).
 */
#ifndef IOREEL_FORMATS_EVENT_H
#define IOREEL_FORMATS_EVENT_H

#include <stdint.h>

/* A timestamp that was not observed (synthesized events have no issue/completion time). */
#define IO_TS_NONE UINT64_MAX

enum io_op {
	IO_OP_READ = 0,
	IO_OP_WRITE = 1,
	IO_OP_FLUSH = 2,
	IO_OP_DISCARD = 3,
	IO_OP_WRITE_ZEROES = 4,
	IO_OP__COUNT
};

enum io_flag {
	IO_F_SYNC = 1 << 0,
	IO_F_FUA = 1 << 1,
	IO_F_PREFLUSH = 1 << 2,
	IO_F_META = 1 << 3,
	IO_F_READAHEAD = 1 << 4,
	IO_F_KTHREAD = 1 << 5, /* recorded: queued by a kernel thread (kworker, jbd2, xfs log) */
	IO_F__ALL = (1 << 6) - 1
};

#define IO_COMM_LEN 16

struct io_event {
	/*
	 * Nanoseconds since the trace's genesis, or IO_TS_NONE.
	 * Recorded: queued by the submitter, issued to the driver, completed.
	 * Replayed: scheduled deadline, handed to the kernel (the submit call returned, as fio's
	 * issue time; for the psync engine, when the call began), completed.
	 */
	uint64_t queue_ns;
	uint64_t issue_ns;
	uint64_t complete_ns;
	uint64_t offset; /* bytes from the start of the device (partition-relative when recorded) */
	uint32_t length; /* bytes; 0 for a flush without data */
	uint32_t dev;	 /* index into the trace's device table */
	uint32_t pid;
	uint32_t tid;
	int32_t error; /* 0 or -errno as the kernel reported it */
	uint32_t stream; /* closed-loop stream (synth job); 0 for recorded traces */
	uint16_t cpu;
	uint8_t op;    /* enum io_op */
	uint8_t flags; /* enum io_flag bits */
	/*
	 * File level, recorded with the CPU (1.8): how long the thread waited for a CPU while
	 * the call was in progress (runnable, not running: once its I/O completed, or
	 * preempted), in ns, from the scheduler's own accounting; saturates at 4.29 s. Known
	 * where oncpu_ns is (0 then means no wait); a replay fills it for its own calls.
	 */
	uint32_t cpuwait_ns;
	char comm[IO_COMM_LEN];
	/*
	 * The submitting thread's time on a CPU since its previous recorded call (file level:
	 * from that call's return to this call's entry; block level: since its previous I/O),
	 * in ns, as the recorder's scheduler accounting measured it; 0 when not recorded (older
	 * traces, kernel threads, a thread's first call). What a CPU-replaying engine burns.
	 */
	uint64_t oncpu_ns;
};

_Static_assert(sizeof(struct io_event) == 88, "io_event layout changed: bump the format version");

/* The time an event is ordered and seeked by: the first of queue, issue, completion present. */
static inline uint64_t io_event_time(const struct io_event *e)
{
	if (e->queue_ns != IO_TS_NONE)
		return e->queue_ns;
	if (e->issue_ns != IO_TS_NONE)
		return e->issue_ns;
	return e->complete_ns;
}

/* "read", "write", "flush", "discard", "write-zeroes"; "?" for an unknown value. */
const char *io_op_name(unsigned int op);
/* Parses a name from io_op_name() (also "trim" for discard); -EINVAL if unknown. */
int io_op_parse(const char *name);
/* Writes flag names joined by '|' ("sync|fua"), "" when none; returns buf. */
char *io_flags_format(unsigned int flags, char *buf, unsigned long len);
/* Parses what io_flags_format() writes; -EINVAL on an unknown name. */
int io_flags_parse(const char *s, unsigned int *flags);

#endif
