/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ioreel record internals: device resolution (devices.c) and the reorder/translate stage
 * between the BPF ring buffers and the trace writer (drain.c). */
#ifndef IOREEL_RECORD_INT_H
#define IOREEL_RECORD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "formats/trace.h"
#include "bpf/record.h"
#include "record/common.h"

/* One recorded device (whole disk or partition); its index is its trace device index. */
struct rec_target {
	struct trace_device td; /* name, own major:minor, size, block sizes, model */
	uint32_t disk_dev;	/* whole disk, kernel encoding (major << 20 | minor) */
	uint64_t start_sector;	/* partition start on the disk; 0 for a whole disk */
	uint64_t nr_sectors;
	uint32_t level;		/* enum rec_level actually used */
	bool is_partition;
	bool has_mq;		/* the disk has a blk-mq request queue (rq level possible) */
	uint64_t diskseq;	/* the disk's sequence number at the start; 0: kernel has none */
};

/* --level */
enum rec_level_req { REC_REQ_AUTO = 0, REC_REQ_BIO = 1, REC_REQ_RQ = 2 };

/* Resolves "/dev/X" or "MAJ:MIN" into *t. -ENOENT (no such device), -ENOTBLK (not a block
 * device), -EOPNOTSUPP (rq level asked for a bio-based device). */
int rec_device_resolve(const char *spec, enum rec_level_req req, struct rec_target *t);
/* Every whole disk in /sys/block with a non-zero size; returns the count or -errno. */
int rec_device_all(enum rec_level_req req, struct rec_target *t, int max);
const char *rec_level_name(uint32_t level);
/*
 * NULL while t's disk is still the one resolved at the start, else what became of it: removed
 * (zram hot_remove, a disk unplugged) or given a new sequence number (a loop device detached
 * or attached to another file, a medium changed). Its dev_t may then name another device,
 * whose I/O the recorder would take for the first one's.
 */
const char *rec_device_gone(const struct rec_target *t);
/* Whether a file on the filesystem of device dev (st_dev) is on t: t itself, or a partition
 * of t when t is a whole disk. */
bool rec_device_holds(const struct rec_target *t, dev_t dev);

/* Kernel dev_t encoding used by the BPF side. */
static inline uint32_t rec_mkdev(uint32_t major, uint32_t minor)
{
	return (major << 20) | minor;
}

/* ---- drain.c: rings -> reorder heap -> io_event -> writer ---- */

struct rec_drain;

struct rec_drain_stats {
	uint64_t events;       /* written to the trace */
	uint64_t bytes_io;     /* sum of lengths written */
	uint64_t unmatched;    /* completions outside every recorded device range (filtered) */
	uint64_t out_of_order; /* written after a later-queued event (should stay 0) */
	uint64_t pending;      /* in the reorder heap now */
};

struct rec_drain *rec_drain__new(struct trace_writer *w, const struct rec_target *t, int nt,
				 uint64_t genesis_ktime);
/* Where the rings hand each record's payload (after its seq): 0, or -errno to stop (the record
 * stays in its ring). */
typedef int (*rec_sink_fn)(void *ctx, const void *payload);

/* A rec_sink_fn (ctx: the rec_drain): queues one struct rec_event (copied) for release in
 * queue-time order; 0. */
int rec_drain__push(void *ctx, const void *e);
/* Writes every queued event whose queue time is before ktime `before` (UINT64_MAX: all).
 * Returns 0 or the writer's -errno. */
int rec_drain__release(struct rec_drain *d, uint64_t before);
/* The first writer error seen by push/release (0 if none): push cannot return it to libbpf
 * without stopping the ring consumption half way, so it is kept here. */
int rec_drain__error(const struct rec_drain *d);
void rec_drain__stats(const struct rec_drain *d, struct rec_drain_stats *s);
void rec_drain__free(struct rec_drain *d);

/* An I/O becomes visible in the table a few instructions after it read its queue time; an IRQ
 * in between can delay that. Releasing only what is older than this margin keeps the trace
 * ordered unless a BPF program is held up longer than that (then out_of_order counts it). */
#define RELEASE_MARGIN_NS (5ULL * 1000000ULL)

/* ---- rings.c: the per-CPU rings of completed I/Os (bpf/record.h), mmap()ed ---- */
struct rec_rings {
	struct rec_ring_ctl *ctl; /* one per CPU */
	void *buf;		  /* CPU i's records at i << shift, rec_size bytes each */
	size_t rec_size;	  /* u64 seq, then the payload */
	size_t ctl_len, buf_len;
	int ncpu;
	uint32_t shift;		  /* log2 of records per CPU */
	uint64_t *stuck_since;	  /* per CPU: when its oldest record was first seen unpublished */
	uint64_t holes;		  /* records skipped as never published (counted as drops) */
};

int rec_rings_open(int ctl_fd, int buf_fd, int ncpu, uint32_t shift, struct rec_rings *r);
/* The same protocol with records of rec_size bytes (the file level's struct fl_rec). */
int rec_rings_open_sized(int ctl_fd, int buf_fd, int ncpu, uint32_t shift, size_t rec_size,
			 struct rec_rings *r);
void rec_rings_close(struct rec_rings *r);
/* Hands every published record's payload to sink, CPU by CPU; 0, or the sink's -errno when it
 * refused one (the rest wait for the next call). *fullest (if not NULL) gets the largest share
 * of a ring that was waiting, 0..1. */
int rec_rings_drain(struct rec_rings *r, rec_sink_fn sink, void *ctx, double *fullest);

/* ---- inflight.c: the in-flight table (mmap()ed BPF slots + overflow hash map) ---- */
struct rec_table {
	int hash_fd;
	struct rec_slot *slots;
	uint64_t *suspect; /* queue time of a slot seen stale at the previous scan */
};

int rec_table_open(int slots_fd, int hash_fd, struct rec_table *t);
void rec_table_close(struct rec_table *t);
/*
 * Queue time (ktime) of the oldest I/O still in flight (UINT64_MAX if none); *count (if not
 * NULL) gets how many there are. Entries that never completed for 10 s are removed and counted
 * in *stale.
 */
uint64_t rec_table_oldest(struct rec_table *t, uint64_t now, uint64_t *stale, uint64_t *count);
/* Hands every I/O still in the table to fn, with no completion (complete_ns 0), and returns
 * how many: at the end, after the programs are detached. */
uint64_t rec_table_each(struct rec_table *t, rec_sink_fn fn, void *ctx);

/* ---- collect.c: the drain thread (rings -> batches), at a raised priority; both levels ---- */
struct rec_collect;

/* What the drain thread runs at (--json "drain_priority"). */
enum rec_prio { REC_PRIO_KEPT, REC_PRIO_FIFO, REC_PRIO_NICE };

struct rec_collect_stats {
	uint64_t stale;	      /* in-flight entries removed as stale (rec_collect_src.oldest) */
	double ring_peak;     /* fullest ring seen by a pass, 0..1 */
	uint64_t gap_max_ns;  /* longest the rings went unread: between two passes' starts */
	bool buffer_full;     /* the batches ran out once: the writer was BUFFER_MAX behind */
	uint64_t buffer_peak; /* bytes of batches it allocated (at most BUFFER_MAX) */
};

/* What a level's drain thread empties, and where the oldest record not yet in a ring began. */
struct rec_collect_src {
	struct rec_rings *rg;
	/* On the drain thread, before each pass: the start (ktime) of the oldest I/O or call still
	 * in flight (UINT64_MAX: none), which the records after the pass are released up to
	 * (less RELEASE_MARGIN_NS); *stale (0 on entry) gets entries it gave up on. */
	uint64_t (*oldest)(void *ctx, uint64_t now, uint64_t *stale);
	void *ctx;
};

/* The level's reorder stage: writes what began before ktime `before`; 0 or -errno. */
typedef int (*rec_release_fn)(void *ctx, uint64_t before);

/* Starts the thread, which owns src's rings (and what oldest reads) until rec_collect__stop();
 * keep_priority: leave its scheduling as inherited. 0 or -errno. */
int rec_collect__start(struct rec_collect **c, const struct rec_collect_src *src,
		       bool keep_priority);
/* What the thread runs at; *err (if not NULL) gets the errno that refused a raise. */
enum rec_prio rec_collect__priority(const struct rec_collect *c, int *err);
uint64_t rec_collect__stale(const struct rec_collect *c);
/* On the writer's thread: pushes what the thread collected and releases as far as it may.
 * 0 or release's -errno. */
int rec_collect__deliver(struct rec_collect *c, rec_sink_fn push, rec_release_fn release,
			 void *ctx);
/* Stops and joins the thread, then pushes everything it held (nothing released beyond what
 * deliver did). 0 or release's -errno. */
int rec_collect__stop(struct rec_collect *c, rec_sink_fn push, rec_release_fn release,
		      void *ctx, struct rec_collect_stats *st);
void rec_collect__free(struct rec_collect *c);
/* Why the drain thread runs at the priority it got, said when it is not the one asked for. */
void rec_collect__warn(const struct rec_collect *c);

/* blk_status_t -> -errno, as blk_status_to_errno() does. */
int rec_status_errno(uint32_t status);

/* --attach: which program type carries the programs (bpf/record.bpf.c). */
enum rec_attach { REC_ATTACH_AUTO, REC_ATTACH_TP_BTF, REC_ATTACH_RAW_TP };

struct rec_opts {
	struct rec_common c; /* the options the file level takes too (common.h) */
	const char *devs[TRACE_MAX_DEVS];
	int ndevs;
	enum rec_level_req level;
	enum rec_attach attach;
};

/* load.c: the block level's programs */
struct record_bpf;
bool rec_has_level(const struct rec_target *t, int nt, uint32_t level);
/* block_io_start (v6.5) is in the kernel's BTF (or IOREEL_RECORD_FAULT says it is not) */
bool rec_kernel_has_io_start(void);
/* Loads and attaches the programs --attach asks for (auto: tp_btf, else raw_tp); on failure
 * says what failed and what to do and returns NULL. *raw says which set runs. */
struct record_bpf *rec_load(const struct rec_opts *o, const struct rec_target *t, int nt,
			   int ncpu, int cgfd, bool io_start, bool *raw);

#endif
