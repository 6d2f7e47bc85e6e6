// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where each job's I/O lies, as fio settles it against its files (fio's filesetup.c): sizes
 * and offsets given as a share of the file ("25%"), in zones ("8z"), or not at all (the whole
 * file or device), one file shared by the jobs that name it and one file per job clone when
 * none is named. A region whose size depends on a file or device that only the replay will
 * know becomes relative: its stream record says how replay resolves it (formats/FORMAT.md,
 * "Streams"). Also the checks and the run groups (stonewall, wait_for) every job needs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "synth/synth.h"

#define SYNTH_NOMINAL_SPAN (1ULL << 50) /* scaled offsets lie in [0, 1 PiB) */
#define SYNTH_NO_END (1ULL << 62)	/* a sequential walk with no end known */
#define FILE_ALIGN (1ULL << 20)		/* files laid out on the target at 1 MiB boundaries */
#define MAX_EVENTS_PER_STREAM (1ULL << 26)
/* A timed job's arrivals are streamed to the trace, not held: bounded only so that a runtime
 * typed in the wrong unit is refused, not written until the disk is full (2^33 I/Os: a day at
 * 99k IOPS, some 60 GB of trace) */
#define MAX_TIMED_EVENTS_PER_STREAM (1ULL << 33)

static uint64_t ppm_of(uint64_t size, uint32_t ppm)
{
	return (uint64_t)((unsigned __int128)size * ppm / 1000000u);
}

uint32_t synth_job_min_bs(const struct synth_job *j)
{
	uint32_t mn = UINT32_MAX;

	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		if (!(j->ddirs & (1u << d)))
			continue;
		for (uint32_t i = 0; i < j->bs[d].n; i++)
			if (j->bs[d].e[i].pct && j->bs[d].e[i].bs < mn)
				mn = j->bs[d].e[i].bs;
	}
	return mn;
}

static uint32_t max_bs_of(const struct synth_job *j)
{
	uint32_t mx = 0;

	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		if (!(j->ddirs & (1u << d)))
			continue;
		for (uint32_t i = 0; i < j->bs[d].n; i++)
			if (j->bs[d].e[i].pct && j->bs[d].e[i].bs > mx)
				mx = j->bs[d].e[i].bs;
		if (j->bs[d].range_hi > mx)
			mx = j->bs[d].range_hi;
	}
	return mx;
}

static double mean_bs(const struct synth_bsplit *b)
{
	double m = 0;

	if (b->range_hi)
		return (b->range_lo + b->range_hi) / 2.0;
	for (uint32_t i = 0; i < b->n; i++)
		m += (double)b->e[i].bs * b->e[i].pct / 100.0;
	return m;
}

uint32_t synth_job_unit(const struct synth_job *j)
{
	return j->blockalign ? j->blockalign : synth_job_min_bs(j);
}

/* Random offsets over a relative region are scaled; anything with absolute positions in it
 * (zoned_abs, a sequence of block numbers, sequential walks, strided zones) wraps instead. */
static bool scales(const struct synth_job *j)
{
	return j->random && j->dist.kind != DIST_ZONED_ABS && j->dist.kind != DIST_SEQUENCE &&
	       !j->zone_size && j->perc_rand == 100 && j->rand_run <= 1;
}

/* The constant stride of a sequential job (bs + hole), 0 when sizes vary or it is random. */
static uint64_t seq_stride(const struct synth_job *j)
{
	uint32_t bs = 0;

	if (j->random || j->zone_size)
		return 0;
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		if (!(j->ddirs & (1u << d)))
			continue;
		if (j->bs[d].n != 1 || j->bs[d].range_hi || (bs && j->bs[d].e[0].bs != bs))
			return 0;
		bs = j->bs[d].e[0].bs;
	}
	return (uint64_t)((int64_t)bs + j->seq_add);
}

bool synth_job_len_rel(const struct synth_job *j)
{
	return j->rel && (!j->size || j->size_ppm);
}

bool synth_job_back_rel(const struct synth_job *j)
{
	int64_t stride = (int64_t)seq_stride(j);

	return synth_job_len_rel(j) && j->seq_add < 0 && stride < 0 && -j->seq_add < (1LL << 31);
}

uint64_t synth_job_gen_size(const struct synth_job *j)
{
	if (!j->rel || !synth_job_len_rel(j))
		return j->size;
	if (scales(j)) {
		uint64_t unit = synth_job_unit(j);

		return SYNTH_NOMINAL_SPAN / unit * unit;
	}
	return SYNTH_NO_END;
}

void synth_stream_rec(const struct synth_job *j, uint32_t clone, struct trace_stream *rec,
		      uint64_t *base)
{
	memset(rec, 0, sizeof(*rec));
	rec->depth = j->sync_engine ? 1 : j->iodepth;
	rec->group = j->group;
	rec->delay_ns = j->delay_ns;
	rec->runtime_ns = j->runtime_ns ? j->runtime_ns + j->ramp_ns : 0;
	/* fio runs a time-based job for its runtime whatever number_ios says (backend.c keeps
	 * going while time_based); here number_ios bounds the I/Os the trace holds, which the
	 * replay cycles for the runtime */
	if (j->time_based)
		rec->flags |= TRACE_STREAM_TIME_BASED;
	if (j->think_ns) {
		rec->flags |= TRACE_STREAM_THINK | (j->think_issue ? TRACE_STREAM_THINK_ISSUE : 0);
		rec->think_ns = j->think_ns;
		/* fio spins at most the whole think time, then sleeps what is left (none) */
		rec->think_spin_ns = j->think_spin_ns < j->think_ns ? j->think_spin_ns
								    : j->think_ns;
		rec->think_iotime_ns = j->think_iotime_ns;
		rec->think_blocks = j->think_blocks;
	}
	if (j->lat_target_ns) {
		rec->flags |= TRACE_STREAM_LAT_TARGET | (j->lat_run ? TRACE_STREAM_LAT_RUN : 0);
		rec->lat_target_ns = j->lat_target_ns;
		rec->lat_window_ns = j->lat_window_ns;
		rec->lat_pct_ppm = j->lat_pct_ppm;
	}
	if (!j->rel) {
		*base = j->file_base + clone * j->clone_span + j->offset + clone * j->offset_inc;
		return;
	}
	*base = 0;
	rec->flags |= TRACE_STREAM_REL;
	rec->rel_base = j->offset + clone * j->offset_inc;
	rec->rel_start_ppm = j->offset_ppm + clone * j->inc_ppm;
	rec->rel_len_ppm = j->size ? 0 : j->size_ppm;
	rec->rel_align = synth_job_unit(j);
	if (synth_job_len_rel(j) && scales(j)) {
		rec->flags |= TRACE_STREAM_SCALE;
		rec->rel_span = synth_job_gen_size(j);
	} else if (synth_job_back_rel(j)) {
		/* a backwards walk over a region of unknown length: its offsets are distances
		 * back from the end (format 1.7); a step of bs - N, and N past the start */
		rec->flags |= TRACE_STREAM_BACK;
		rec->rel_back_add = (uint32_t)-j->seq_add;
		rec->rel_back_step = (uint32_t)-(int64_t)seq_stride(j);
	} else if (synth_job_len_rel(j)) {
		rec->rel_span = seq_stride(j);
	}
}

static uint64_t zoned_abs_bytes(const struct dist_spec *d)
{
	uint64_t b = 0;

	for (uint32_t i = 0; i < d->nzones; i++)
		b += d->zones[i].size;
	return b;
}

int synth_job_check(const struct synth_job *j, char *why, size_t why_len)
{
	uint32_t mn = synth_job_min_bs(j), mx = max_bs_of(j);
	uint64_t size = synth_job_gen_size(j);

	if (!j->size && !j->rel) {
		snprintf(why, why_len,
			 "job '%s': no size: give --size (the region each job works in)", j->name);
		return -EINVAL;
	}
	if (mn == UINT32_MAX || !mn) {
		snprintf(why, why_len, "job '%s': every block size has a 0%% share", j->name);
		return -EINVAL;
	}
	if (mx > size) {
		snprintf(why, why_len, "job '%s': block size %u is larger than size %llu", j->name,
			 mx, (unsigned long long)size);
		return -EINVAL;
	}
	if (j->time_based && !j->runtime_ns && !j->number_ios) {
		snprintf(why, why_len,
			 "job '%s': time_based without a runtime runs until fio is stopped: give "
			 "runtime= or number_ios=",
			 j->name);
		return -EINVAL;
	}
	if (j->dist.kind == DIST_ZONED_ABS && zoned_abs_bytes(&j->dist) > size) {
		snprintf(why, why_len, "job '%s': zoned_abs zones end past the region (%llu bytes)",
			 j->name, (unsigned long long)size);
		return -EINVAL;
	}
	return 0;
}

/* The jobs' I/O rates: fio caps each direction; with a mix the job runs at the pace of the
 * tightest cap given its share (rate=1m on randrw 50/50 is 1 MiB/s of reads and of writes). */
static void resolve_rate(struct synth_job *j)
{
	double best = 0;

	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		double ios, share;

		if (!(j->ddirs & (1u << d)))
			continue;
		ios = j->rate_ios[d] > 0     ? j->rate_ios[d]
		      : j->rate_bytes[d] > 0 ? j->rate_bytes[d] / mean_bs(&j->bs[d])
					     : 0;
		if (!ios)
			continue;
		share = (j->ddirs & 3) == 3 && d < 2
			    ? (d == 0 ? j->rwmixread : 100 - j->rwmixread) / 100.0
			    : (j->trimwrite ? 0.5 : 1.0);
		if (share <= 0)
			continue;
		if (!best || ios / share < best)
			best = ios / share;
	}
	if (best > 0)
		j->rate_iops = best;
}

static int zones_to_bytes(struct synth_job *j, char *why, size_t why_len)
{
	if (!j->size_nz && !j->offset_nz && !j->inc_nz)
		return 0;
	if (!j->zbd || !j->zone_size) {
		/* fio turns zone counts into bytes in zonemode=zbd only (zbd.c); elsewhere it
		 * leaves the size unset, which is not what the job means */
		snprintf(
		    why, why_len,
		    "job '%s': sizes in zones ('8z') mean something only with zonemode=zbd and "
		    "zonesize=",
		    j->name);
		return -EOPNOTSUPP;
	}
	if (j->size_nz)
		j->size = j->size_nz * j->zone_size;
	if (j->offset_nz)
		j->offset = j->offset_nz * j->zone_size;
	if (j->inc_nz)
		j->offset_inc = j->inc_nz * j->zone_size;
	j->size_nz = j->offset_nz = j->inc_nz = 0;
	return 0;
}

/* Job i's end (its runtime, or its cut) cuts the jobs it ends; how many it cut shorter. */
static unsigned int exitall_round(const struct synth_spec *s, unsigned int i,
				  const uint32_t *rgroup, uint64_t *cut, char *why, size_t why_len)
{
	const struct synth_job *e = &s->jobs[i];
	uint64_t end = e->runtime_ns && (!cut[i] || e->runtime_ns < cut[i]) ? e->runtime_ns
									    : cut[i];
	unsigned int moved = 0;

	for (unsigned int k = 0; k < s->njobs; k++) {
		const struct synth_job *j = &s->jobs[k];

		if (e->exit_what == SYNTH_EXIT_ALL && j->group > e->group) {
			/* fio marks them ended before they start */
			snprintf(why, why_len,
				 "job '%s': exit_what=all with exitall ends every job when it "
				 "ends, also job '%s' of a later group before it starts; ioreel "
				 "does not model jobs that never run: drop exit_what=all, or take "
				 "the jobs apart with --section",
				 e->name, j->name);
			return 0;
		}
		if (j->group != e->group || !end ||
		    (e->exit_what == SYNTH_EXIT_GROUP && rgroup[k] != rgroup[i]))
			continue;
		if (!cut[k] || end < cut[k])
			cut[k] = end, moved++;
	}
	return moved;
}

/*
 * fio's exitall is global (one job's turns it on for all, options.c str_exitall_cb); a job that
 * ends then ends others by its exit_what (libfio.c fio_terminate_threads): its reporting group
 * (td->groupid, a new one at each stonewall or new_group), every running job, or all. The
 * runtimes say when that is at the latest (a job that ends sooner by its size is not known
 * here), so each job is cut at the shortest runtime among the jobs whose end ends it.
 */
static int resolve_exitall(struct synth_spec *s, char *why, size_t why_len)
{
	uint32_t rgroup[SYNTH_MAX_JOBS], r = 0;
	uint64_t cut[SYNTH_MAX_JOBS] = { 0 };
	bool on = false;

	if (why_len)
		why[0] = '\0';
	for (unsigned int i = 0; i < s->njobs; i++) {
		on |= s->jobs[i].exitall;
		if (i && (s->jobs[i].stonewall || s->jobs[i].new_group))
			r++;
		rgroup[i] = r;
		s->jobs[i].rgroup = r;
	}
	for (unsigned int i = 0; i < s->njobs; i++)
		s->jobs[i].exit_on = on;
	/* a job cut short ends others in turn: repeat until nothing moves (njobs rounds) */
	for (unsigned int round = 0, moved = 1; on && moved && round <= s->njobs; round++) {
		moved = 0;
		for (unsigned int i = 0; i < s->njobs; i++)
			moved += exitall_round(s, i, rgroup, cut, why, why_len);
		if (why[0])
			return -EOPNOTSUPP;
	}
	for (unsigned int k = 0; k < s->njobs; k++)
		if (cut[k] && (!s->jobs[k].runtime_ns || s->jobs[k].runtime_ns > cut[k]))
			s->jobs[k].runtime_ns = cut[k];
	return 0;
}

/* Groups: fio starts jobs in file order; a stonewall job waits for every job before it, a
 * wait_for job for the job it names. */
static int resolve_groups(struct synth_spec *s, char *why, size_t why_len)
{
	uint32_t cur = 0, top = 0;

	for (unsigned int i = 0; i < s->njobs; i++) {
		struct synth_job *j = &s->jobs[i];

		if (j->stonewall && i)
			cur = top + 1;
		j->group = cur;
		if (j->wait_for[0]) {
			unsigned int k;

			for (k = 0; k < i && strcmp(s->jobs[k].name, j->wait_for); k++)
				;
			if (k == i) {
				snprintf(why, why_len,
					 "job '%s': wait_for=%s names no job before it", j->name,
					 j->wait_for);
				return -EINVAL;
			}
			j->group = s->jobs[k].group + 1 > cur ? s->jobs[k].group + 1 : cur;
		}
		if (j->group > top)
			top = j->group;
	}
	return resolve_exitall(s, why, why_len);
}

/*
 * Members of a flow set share one stream, so one region and one rule placing its offsets:
 * known regions, or (butterfly.fio) one region of unknown length in the same file, walked
 * sequentially, forward with one stride or backward with one step (format 1.7 tells the two
 * apart by each offset's bit 63).
 */
static bool flow_regions_agree(const struct synth_job *l, const struct synth_job *j)
{
	if (!l->rel && !j->rel)
		return true;
	if (!l->rel || !j->rel || l->own_files || j->own_files || strcmp(l->file, j->file) ||
	    l->offset != j->offset || l->offset_ppm != j->offset_ppm || l->size != j->size ||
	    l->size_ppm != j->size_ppm || l->inc_ppm || j->inc_ppm || l->offset_inc ||
	    j->offset_inc || synth_job_unit(l) != synth_job_unit(j) || scales(l) || scales(j))
		return false;
	if (!synth_job_len_rel(l))
		return true;
	if (synth_job_back_rel(l) && synth_job_back_rel(j))
		return l->seq_add == j->seq_add && seq_stride(l) == seq_stride(j);
	if (synth_job_back_rel(l) || synth_job_back_rel(j))
		return !(l->seq_add < 0 && !synth_job_back_rel(l)) &&
		       !(j->seq_add < 0 && !synth_job_back_rel(j));
	return seq_stride(l) == seq_stride(j);
}

/*
 * fio's flow: jobs of one flow_id keep their I/O counts in the ratio of their weights. A trace
 * stream is what the replay keeps in step, so the jobs of a flow set (all their clones) share
 * one stream: their I/Os interleaved by weight, the depths added up.
 */
static int resolve_flows(struct synth_spec *s, char *why, size_t why_len)
{
	for (unsigned int i = 0; i < s->njobs; i++) {
		struct synth_job *j = &s->jobs[i];
		unsigned int k;

		j->flow_lead = -1;
		if (!j->flow)
			continue;
		for (k = 0; k < i; k++)
			if (s->jobs[k].flow && s->jobs[k].flow_id == j->flow_id &&
			    s->jobs[k].group == j->group)
				break;
		if (k == i)
			continue;
		const struct synth_job *l =
		    &s->jobs[s->jobs[k].flow_lead >= 0 ? (unsigned int)s->jobs[k].flow_lead : k];

		if (l->time_based != j->time_based || l->runtime_ns != j->runtime_ns ||
		    l->ramp_ns != j->ramp_ns || l->delay_ns != j->delay_ns ||
		    !flow_regions_agree(l, j) ||
		    l->rate_iops > 0 || j->rate_iops > 0 || l->think_ns || j->think_ns ||
		    l->lat_target_ns || j->lat_target_ns) {
			/* think time and the latency search are per fio job; a flow set is one
			 * stream, which pauses and searches as a whole */
			snprintf(
			    why, why_len,
			    "jobs '%s' and '%s' share flow_id %u but differ in runtime, start, "
			    "rate or region (one resolved at replay must be the same, walked "
			    "sequentially), or have think time or a latency target, which one "
			    "stream cannot hold",
			    l->name, j->name, j->flow_id);
			return -EOPNOTSUPP;
		}
		s->jobs[k].flow_lead = (int32_t)(l - s->jobs);
		j->flow_lead = s->jobs[k].flow_lead;
	}
	return 0;
}

/* What a job needs of its file's size F: offset and size as shares, or the rest of it. */
static bool needs_file_size(const struct synth_job *j)
{
	return !j->size || j->size_ppm || j->offset_ppm || j->inc_ppm || j->fill || j->filesize;
}

/* The bytes a job reaches in its file once F is known (fio extends files to fit). */
static void settle(struct synth_job *j, uint64_t F)
{
	uint32_t align = j->offset_align ? j->offset_align : synth_job_min_bs(j);

	if (j->offset_ppm)
		j->offset = ppm_of(F, j->offset_ppm) / align * align;
	if (j->inc_ppm)
		j->offset_inc = ppm_of(F, j->inc_ppm);
	if (j->fill)
		j->size = 0, j->size_ppm = 0;
	if (j->filesize) {
		/* fio: filesize sizes the file; size is then only io_size's default */
		uint64_t io = j->size_ppm ? ppm_of(F, j->size_ppm) : j->size;

		if (!j->io_size && io)
			j->io_size = io;
		j->size = F > j->offset ? F - j->offset : 0;
	} else if (j->size_ppm) {
		j->size = ppm_of(F, j->size_ppm);
	} else if (!j->size) {
		j->size = F > j->offset ? F - j->offset : 0;
	}
	j->offset_ppm = j->inc_ppm = j->size_ppm = 0;
}

/* The bytes of its file a job reaches: with offset_increment, the last clone's region end
 * (in a shared file, or in the last clone's own file: every clone file is that big). */
static uint64_t job_extent(const struct synth_job *j)
{
	return j->offset + (uint64_t)(j->numjobs - 1) * j->offset_inc + j->size;
}

static bool same_file(const struct synth_job *a, const struct synth_job *b)
{
	return !a->own_files && !b->own_files && !strcmp(a->file, b->file);
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* the I/Os a rated job's arrivals make over its runtime (and ramp) */
static double rated_ios(const struct synth_job *j)
{
	return j->rate_iops * ((double)(j->runtime_ns + j->ramp_ns) / 1e9);
}

static int check_bounded(const struct synth_job *j, char *why, size_t why_len)
{
	uint64_t size = synth_job_gen_size(j), pass, unit = synth_job_min_bs(j), loops;

	if (j->rate_iops > 0 && !j->rate_cap && j->time_based) {
		/* arrivals stop at the runtime, but every one of them is in the trace */
		double n = rated_ios(j);

		if (j->number_ios || n <= (double)MAX_TIMED_EVENTS_PER_STREAM)
			return 0;
		snprintf(why, why_len,
			 "job '%s' would put %.3g I/Os per job clone in the trace (rate_iops %g for "
			 "%g s): at most %llu; shorten runtime= or lower the rate (or bound it with "
			 "number_ios=)",
			 j->name, n, j->rate_iops, (double)(j->runtime_ns + j->ramp_ns) / 1e9,
			 (unsigned long long)MAX_TIMED_EVENTS_PER_STREAM);
		return -EINVAL;
	}
	/* with a rate and a runtime, arrivals stop at the runtime whatever the size says: only
	 * rate x runtime I/Os can be made (issue 21 W14: --size 1t was refused) */
	if (j->rate_iops > 0 && !j->rate_cap && j->runtime_ns &&
	    rated_ios(j) < (double)MAX_EVENTS_PER_STREAM / 2)
		return 0;
	if (synth_job_len_rel(j) && !j->number_ios && !j->io_size) {
		snprintf(
		    why, why_len,
		    "job '%s' has no size of its own: fio runs it over the whole file or device, "
		    "whose size ioreel learns only at replay; bound its I/O with number_ios= or "
		    "io_size= (--number-ios N), or give the target's size (--device-size)",
		    j->name);
		return -EINVAL;
	}
	loops = j->time_based ? 1 : (j->loops ? j->loops : 1);
	pass = (j->io_size ? j->io_size : size) / (unit ? unit : 1);
	if (!j->number_ios &&
	    (pass > MAX_EVENTS_PER_STREAM || pass * loops > MAX_EVENTS_PER_STREAM ||
	     loops > MAX_EVENTS_PER_STREAM)) {
		snprintf(why, why_len,
			 "job '%s' would put up to %llu I/Os per job clone in the trace: bound it "
			 "with number_ios= (--number-ios N) or io_size=",
			 j->name,
			 (unsigned long long)(pass > MAX_EVENTS_PER_STREAM ? pass : pass * loops));
		return -EINVAL;
	}
	return 0;
}

/*
 * A trace is timed (arrivals at the rate) when every job has a rate. Beside an unrated job a
 * rated one caps a closed loop instead, which is what fio's rate is (rate_ddir: the job waits
 * for its I/O in flight, then sleeps until its direction's next slot).
 */
static void mark_rate_caps(struct synth_spec *s)
{
	bool rated = false, unrated = false;

	for (unsigned int i = 0; i < s->njobs; i++) {
		rated |= s->jobs[i].rate_iops > 0;
		unrated |= !(s->jobs[i].rate_iops > 0);
	}
	for (unsigned int i = 0; i < s->njobs; i++)
		s->jobs[i].rate_cap = rated && unrated && s->jobs[i].rate_iops > 0;
}

int synth_spec_groups(struct synth_spec *s, char *why, size_t why_len)
{
	return resolve_groups(s, why, why_len);
}

int synth_spec_resolve(struct synth_spec *s, uint64_t device_size, char *why, size_t why_len)
{
	uint64_t next = 0;
	unsigned int nrel = 0, nfiles = 0;
	int err;

	if (s->innodb) {
		if (s->inno.log_min <= s->inno.log_max)
			return 0;
		snprintf(why, why_len, "--log-min %u is above --log-max %u: redo writes are drawn "
			 "between the two; give log-min <= log-max", s->inno.log_min,
			 s->inno.log_max);
		return -EINVAL;
	}
	err = resolve_groups(s, why, why_len);
	for (unsigned int i = 0; !err && i < s->njobs; i++) {
		struct synth_job *j = &s->jobs[i];

		resolve_rate(j);
		err = zones_to_bytes(j, why, why_len);
		/* a rated job becomes a timed trace (each I/O at its moment): the closed loop,
		 * which pauses and searches a depth, never runs it */
		if (!err && j->rate_iops > 0 && (j->think_ns || j->lat_target_ns)) {
			snprintf(why, why_len,
				 "job '%s': %s with rate or rate_iops is not modeled: a rated job "
				 "replays on a clock, and only the closed loop (no rate) %s",
				 j->name, j->think_ns ? "thinktime" : "latency_target",
				 j->think_ns ? "pauses as fio does" : "searches fio's depth");
			err = -EINVAL;
		}
	}
	if (err)
		return err;
	mark_rate_caps(s);
	/* Files in order of first use: a size of their own (filesize=, or what their jobs
	 * reach), else the target's (device_size, or relative: resolved at replay). */
	for (unsigned int i = 0; i < s->njobs; i++) {
		struct synth_job *j = &s->jobs[i];
		uint64_t F = 0, end = 0, copies = j->own_files ? j->numjobs : 1, span;
		bool unknown = false;
		unsigned int k;

		for (k = 0; k < i && !same_file(&s->jobs[k], j); k++)
			;
		if (k < i)
			continue; /* laid out with the file's first job */
		for (k = i; k < s->njobs; k++)
			if (k == i || same_file(j, &s->jobs[k])) {
				if (s->jobs[k].filesize > F)
					F = s->jobs[k].filesize;
				unknown |= needs_file_size(&s->jobs[k]);
			}
		if (unknown && !F)
			F = device_size;
		for (k = i; k < s->njobs; k++) {
			struct synth_job *o = &s->jobs[k];

			if (k != i && !same_file(j, o))
				continue;
			if (F)
				settle(o, F);
			else
				o->rel = needs_file_size(o);
			if (!o->rel && job_extent(o) > end)
				end = job_extent(o);
		}
		if (F > end)
			end = F;
		if (!F && unknown)
			nrel++;
		nfiles += (unsigned int)copies;
		span = align_up(end, FILE_ALIGN);
		for (k = i; k < s->njobs; k++)
			if (k == i || same_file(j, &s->jobs[k])) {
				s->jobs[k].file_base = next;
				s->jobs[k].clone_span = copies > 1 ? span : 0;
			}
		next += span * copies;
	}
	if (nrel && nfiles > 1) {
		snprintf(why, why_len,
			 "a file of unknown size among %u files: with several files (one per job "
			 "clone when no filename is given) each needs a size (size= or filesize=), "
			 "or give the target's size (--device-size)",
			 nfiles);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < s->njobs; i++) {
		struct synth_job *j = &s->jobs[i];

		if (j->rel && j->seq_add < 0 && synth_job_len_rel(j) && !synth_job_back_rel(j)) {
			/* the trace carries a walk back from an end found at replay with one
			 * step (synth_job_back_rel); several sizes step unevenly */
			snprintf(why, why_len,
				 "job '%s' refused: %s%s walks backwards from its region's end, "
				 "and that region (%s) is known only when the trace meets its "
				 "target, where a walk back is placed only with one block size "
				 "and a hole larger than it: give size=, or the target's size "
				 "with --device-size",
				 j->name, j->at_rw[0] ? j->at_rw : "rw=...:-N",
				 j->at_rw[0] ? ":" : "",
				 j->size_ppm || j->offset_ppm
					 ? "a share of the file or device, in %"
					 : "no size=: the whole file or device");
			return -EINVAL;
		}
		err = synth_sprandom_check(j, why, why_len);
		if (!err)
			err = synth_job_check(j, why, why_len);
		if (!err)
			err = check_bounded(j, why, why_len);
		if (err)
			return err;
	}
	return resolve_flows(s, why, why_len);
}
