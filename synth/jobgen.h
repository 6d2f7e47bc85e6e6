/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One job clone's I/O stream (synth/jobgen.c), merged with the others by synth/gen.c. */
#ifndef IOREEL_SYNTH_JOBGEN_H
#define IOREEL_SYNTH_JOBGEN_H

#include "synth/synth.h"

struct jobgen;

/* Clone `clone` of j as trace stream `stream`; timed: arrivals from t0 (ns). NULL + *err. */
struct jobgen *jobgen_new(const struct synth_job *j, uint32_t stream, uint32_t clone, bool timed,
			  double t0, int *err);
/* 1: *ev is the next I/O and *key its merge key (timed: arrival ns; closed: the share of the
 * stream done, so streams interleave by progress); 0: the stream is finished; -errno. */
int jobgen_next(struct jobgen *g, struct io_event *ev, double *key);
/* Timed: moves the stream's arrivals t0 ns later (its stonewall group starts then). */
void jobgen_shift(struct jobgen *g, double t0);
/* Timed: the next arrival (after the last I/O, the time the stream ended). */
double jobgen_time(const struct jobgen *g);
void jobgen_free(struct jobgen *g);

#endif
