/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reads of never-written space (issue 16). A read of a file hole, of a zram page never
 * written, of a loop device over a sparse file never reaches a disk: it returns zeroes from
 * memory and makes the target look 10x faster than it is. Before the clock starts, replay
 * works out which regions the trace reads (readmap, filled during the prescan), asks the
 * target how much of them was never written (unwritten.c) and warns, or with --prefill writes
 * them once with incompressible data (prefill.c).
 */
#ifndef IOREEL_REPLAY_PREFILL_H
#define IOREEL_REPLAY_PREFILL_H

#include <stdbool.h>
#include <stdint.h>
#include "formats/event.h"
#include "replay/block/target.h"

struct run;

/*
 * The byte ranges a trace reads, exact (issue 21 W15: 1 MiB granules made 54 reads of 4 KiB
 * count as 54 MiB never written, and --prefill write that much). Sorted, disjoint runs; new
 * ranges are appended and merged in batches. Memory stays bounded: when more than
 * GRANMAP_MAX_RUNS / 2 disjoint runs remain after a merge, every run is rounded outwards to a
 * granule that doubles until they fit (shift > 0: the map then covers somewhat more than the
 * reads). 2^20 runs of 16 bytes: at most 16 MiB per map, exact up to 512 Ki disjoint runs.
 */
#define GRANMAP_MAX_RUNS (1ULL << 20)

struct granmap_run {
	uint64_t from, to;
};

struct granmap {
	struct granmap_run *runs;
	uint64_t nruns, cap; /* runs[0, nsorted) sorted and merged; the rest appended since */
	uint64_t nsorted;
	unsigned int shift; /* 0: exact; else runs are rounded out to 1 << shift bytes */
	bool used;	    /* a range was marked or the map was set up for a target */
	int err;	    /* -ENOMEM once a grow failed: the map is then incomplete */
};

/* Marks [from, to): appends it, merging and (past GRANMAP_MAX_RUNS) rounding as needed. */
void granmap_set(struct granmap *m, uint64_t from, uint64_t to);
/*
 * The next run of marked bytes at or after *pos (an index, start at 0), as [*from, *to)
 * clipped to limit; false when there is none. *pos moves past it. Merges what was appended.
 */
bool granmap_next_run(struct granmap *m, uint64_t *pos, uint64_t limit, uint64_t *from,
		      uint64_t *to);
/* An empty map for a target of size bytes (it marks the map as used). 0. */
int granmap_init_fixed(struct granmap *m, uint64_t size);
void granmap_free(struct granmap *m);

/* The regions a trace reads, per trace device, in the trace's own offsets. */
struct readmap;

/* writes_read: writes are replayed as reads (--writes-as-reads), so they count. NULL+errno. */
struct readmap *readmap_new(unsigned int ndev, bool writes_read);
/* Called for every event of the prescan (setup.c): reads mark their bytes. */
void readmap_note(struct readmap *m, const struct io_event *ev);
void readmap_free(struct readmap *m);
/* The trace map of device dev (NULL when it reads nothing there). */
struct granmap *readmap_dev(struct readmap *m, unsigned int dev);
/*
 * Projects device dev's read regions onto a target of size bytes the way replay maps offsets
 * (sched_map_offset: inside stays, beyond wraps, or --offsets scale by size / src_size) and
 * marks them in out (from granmap_init_fixed(out, size)).
 */
void readmap_project(struct granmap *in, uint64_t size, uint64_t src_size, bool scale,
		     struct granmap *out);

/*
 * How much of [from, to) of a target was never written, by the cheapest thing the kernel
 * says: SEEK_HOLE/SEEK_DATA for files and for loop devices over files, mm_stat for zram.
 */
struct uw_probe {
	const char *method; /* NULL: no way to tell for this target */
	bool per_extent;    /* it names the unwritten ranges (holes), not only their amount */
	bool lower_bound;   /* zram partly written: only "at least region - written" is known */
	int fd;		    /* where holes are looked for (the file, or the loop's backing file) */
	bool own_fd;
	uint64_t shift;	    /* target offset + shift = offset in fd (loop offset, partition) */
	uint64_t written;   /* zram: bytes stored on the whole device (discards free them) */
};

void uw_probe_open(struct uw_probe *p, const struct target *t);
void uw_probe_close(struct uw_probe *p);
/*
 * Calls fn for every never-written range inside [from, to) (per_extent probes), or once for
 * the whole range otherwise. Ranges are aligned outwards to align and clipped to [from, to).
 * Stops at fn's first non-zero return and returns it; -errno when the probe fails.
 */
int uw_walk(const struct uw_probe *p, uint64_t from, uint64_t to, uint32_t align,
	    int (*fn)(void *arg, uint64_t from, uint64_t to), void *arg);
/*
 * Adds to *sum the bytes uw_walk visits in [from, to): the never-written ones for per_extent
 * probes (others know only a device-wide count: see uw_bound). 0 or -errno.
 */
int uw_sum(const struct uw_probe *p, uint64_t from, uint64_t to, uint32_t align, uint64_t *sum);
/* For a probe that is not per_extent: never-written bytes in a region of region bytes, at least
 * (exact on a fresh or full zram). */
uint64_t uw_bound(const struct uw_probe *p, uint64_t region);

/*
 * After the targets are opened and before the clock starts (setup.c): detects never-written
 * space in what the trace reads on each target, warns, and prefills as opts->prefill says.
 * Fills res->unwritten. 0, or -errno with a message in err.
 */
int prefill_targets(struct run *r, char *err, size_t errlen);

#endif
