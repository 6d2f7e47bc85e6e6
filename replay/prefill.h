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
#include "replay/target.h"

struct run;

/*
 * A coarse bitmap of byte ranges: bit i stands for [i << shift, (i + 1) << shift). Granules
 * are 1 MiB (GRANMAP_SHIFT) until the map would need more than GRANMAP_MAX_BITS bits (1 MiB of
 * memory, 8 TiB at 1 MiB); then they double, so a map never takes more than that.
 */
#define GRANMAP_SHIFT 20
#define GRANMAP_MAX_BITS (8ULL << 20)

struct granmap {
	uint64_t *bits;
	uint64_t nbits; /* bits allocated (a multiple of 64) */
	unsigned int shift;
	int err;	/* -ENOMEM once a grow failed: the map is then incomplete */
};

/* Marks [from, to): grows the map, or coarsens it when it would pass GRANMAP_MAX_BITS. */
void granmap_set(struct granmap *m, uint64_t from, uint64_t to);
/*
 * The next run of marked granules at or after *pos, as bytes [*from, *to) clipped to limit;
 * false when there is none. *pos moves past it.
 */
bool granmap_next_run(const struct granmap *m, uint64_t *pos, uint64_t limit, uint64_t *from,
		      uint64_t *to);
/* A map for [0, size) with granules coarse enough to stay under GRANMAP_MAX_BITS. 0/-ENOMEM. */
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
const struct granmap *readmap_dev(const struct readmap *m, unsigned int dev);
/*
 * Projects device dev's read regions onto a target of size bytes the way replay maps offsets
 * (sched_map_offset: inside stays, beyond wraps, or --offsets scale by size / src_size) and
 * marks them in out (from granmap_init_fixed(out, size)).
 */
void readmap_project(const struct granmap *in, uint64_t size, uint64_t src_size, bool scale,
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
