// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * replay_run(), the conductor: it picks the source (from the trace's level), the mode (asked,
 * or the trace's default) and the engine (asked, or the source's hint), then runs the stages
 * in order (replay/core/run.h). Whatever is wrong is reported before the first I/O. It is the
 * only place that names every variant.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze/analyze.h"
#include "formats/elastic.h"
#include "formats/trace.h"
#include "replay/block/block.h"
#include "replay/core/run.h"
#include "replay/file/file_int.h"

extern const struct replay_mode_ops replay_mode_dep;

/* The mode table: a new mode is a row here and a file of its own. */
static const struct replay_mode_ops *const modes[] = {
	&replay_mode_timed,
	&replay_mode_afap,
	&replay_mode_closed,
	&replay_mode_dep,
};

static const struct replay_mode_ops *mode_find(int id)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i]->id == id)
			return modes[i];
	return NULL;
}

const char *replay_mode_name(int mode)
{
	const struct replay_mode_ops *m = mode_find(mode);

	return m ? m->name : "auto";
}

/*
 * The mode a trace replays in when none is given. A synthesized job keeps its streams' depths
 * (closed). A recording answers "how would this workload run there" best in dep mode: in
 * bench/predict.sh (pgbench, recorded on one stack, replayed onto a slower one), dep's
 * latencies were 0.7-1.35x the real runs' where timed's were 3.6-7x, for like IOPS. An
 * imported trace (fio, blktrace, MSR: other tools' threads and clocks) keeps its schedule.
 */
static int default_mode(const struct trace_meta *m)
{
	if (m->mode == TRACE_MODE_CLOSED)
		return REPLAY_CLOSED;
	return strcmp(m->source, "record") ? REPLAY_TIMED : REPLAY_DEP;
}

/* The mode's setup, which may hand over to another mode (dep without what it needs falls back
 * to the mode the user chose for that case): then that mode's setup runs. */
static int setup_mode(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	for (int hops = 0; hops < 4; hops++) {
		int ret = r->mops->setup ? r->mops->setup(r, p, err, errlen) : 0;

		if (ret || r->mode == r->mops->id)
			return ret;
		r->mops = mode_find(r->mode);
		if (!r->mops)
			return -EINVAL;
		r->res->mode = r->mode;
	}
	return -ELOOP;
}

static void finish(struct run *r, const struct prescan *p)
{
	struct replay_result *res = r->res;

	res->trace_span_ns = r->mops->clocked ? sched_deadline(p->last, p->first, r->o->speed)
					      : p->last - p->first;
	if (r->mops->finish)
		r->mops->finish(r);
	/* the clock ran out as the last I/O went, or while the last ones were in flight (timed
	 * and afap issue what they take from the input ring; dep keeps a window): nothing was
	 * left */
	if (res->runtime_hit &&
	    ((r->mops->clocked && res->trace_reached_ns >= res->trace_span_ns) ||
	     (r->mode != REPLAY_DEP && r->mops->fed && r->input_done && !spsc_peek(&r->in))))
		res->runtime_hit = false;
	res->replay_span_ns = r->first_submit_set ? r->last_submit - r->first_submit : 0;
	res->stretch = stretch_base_ns(res) ? (double)res->replay_span_ns /
						      (double)stretch_base_ns(res) - 1.0
					    : 0;
	res->elapsed_ns = r->end_mono > r->start_mono ? r->end_mono - r->start_mono : 0;
	res->analysis = r->an;
	r->an = NULL;
}

/* The report names its events after the result trace; one not written is not named. */
static void result_not_written(struct replay_result *res)
{
	if (res->analysis)
		analysis__set_name(res->analysis, "replay (result trace not written)");
}

static void run_free(struct run *r)
{
	run_cpu_stop(r); /* a replay that ended before its clock: the load threads go */
	run_free_slots(r);
	spsc_free(&r->in);
	spsc_free(&r->out);
	if (r->mops && r->mops->free)
		r->mops->free(r);
	if (r->src && r->src->free)
		r->src->free(r);
	if (r->rd)
		trace_reader__close(r->rd);
	free(r);
}

/*
 * --spin as asked, else 200 us; but a block-level dep replay beside the host's load (its load
 * threads, run_cpu_setup) sleeps to each release and for its completions instead of spinning
 * for them: the spin held a CPU the load threads and the loop device's workers needed, and
 * the replay fell behind. bench/predict_fs.sh's block self-check (pgbench on xfs, the same
 * real runs, in turn, four bench runs): IOPS x0.83-0.89 of the real runs' against x0.73-0.78
 * with the 200 us spin, means x0.78-1.08 against x0.64-1.40 (bench/PREDICTION.md, "Without the spin
 * beside the load"). At file level each recorded thread's calls are made by its own worker and the
 * spin matters less: there --spin 0 measured no better.
 */
static void resolve_spin(struct run *r)
{
	bool block_dep_load = r->load && r->meta->level != TRACE_LEVEL_FILE &&
			      r->mode == REPLAY_DEP;

	r->spin_ns = r->o->spin_set ? r->o->spin_ns : block_dep_load ? 0 : SPIN_DEFAULT_NS;
	r->res->spin_ns = r->mops->clocked ? r->spin_ns : 0;
}

/* The stages before the clock: every check and every preparation, in order. */
static int prepare(struct run *r, struct prescan *p, char *err, size_t errlen)
{
	const struct replay_opts *o = r->o;
	const char *hint;
	int ret;

	ret = r->src->scan(r, p, err, errlen);
	if (ret)
		return ret;
	r->genesis = o->origin_set ? o->origin_ns : p->first;
	ret = setup_mode(r, p, err, errlen);
	if (ret)
		return ret;
	if (!p->sorted && r->mops->clocked)
		run_warn(r, "%s is not in time order: I/Os that come after later ones in the file "
			    "will be issued late", o->trace);
	if (p->bad_op)
		run_warn(r, "%llu events with an unknown op are not replayed",
			 (unsigned long long)p->bad_op);
	if (o->runtime_trace && !r->mops->clocked) {
		snprintf(err, errlen, "--runtime trace: %s mode ignores the trace's times, so the "
				      "trace has no span to run for: give a duration (--runtime 30s)",
			 r->mops->name);
		r->res->usage_error = true;
		return -EINVAL;
	}
	r->res->runtime_ns = o->runtime_trace ? sched_deadline(p->last, p->first, o->speed)
					      : o->runtime_ns;
	ret = r->src->prepare(r, p, err, errlen);
	if (!ret && o->hook && o->hook(o->hook_arg, REPLAY_STAGE_CHECKED, NULL)) {
		snprintf(err, errlen, "called off by the caller before any I/O");
		ret = -ECANCELED;
	}
	if (ret)
		return ret;
	if (!o->engine && r->src->engine_hint && (hint = r->src->engine_hint(r)))
		r->eng = engine_find(hint);
	ret = run_cpu_setup(r, p, err, errlen); /* may choose the engine threads */
	if (ret)
		return ret;
	if (o->think_scale > 0 && r->mode != REPLAY_DEP && !r->res->cpu_replayed)
		run_warn(r, "--think-scale scales dep mode's think times and the CPU a replay "
			    "reproduces (--cpu replay, host, load): ignored in %s mode with the CPU "
			    "idle", r->mops->name);
	r->res->engine = r->eng->name;
	if (o->async_writeback && strcmp(r->eng->name, "io_uring") && !r->eng->moves_no_data) {
		snprintf(err, errlen, "--async-writes writeback needs the io_uring engine (here %s): "
			 "only its flush can leave the device's page cache alone, as the recorded "
			 "preflush did", r->eng->name);
		r->res->usage_error = true;
		return -EINVAL;
	}
	resolve_spin(r);
	if (r->src->ready && (ret = r->src->ready(r, p, err, errlen)))
		return ret;
	if (r->mops->prepare)
		ret = r->mops->prepare(r, p, err, errlen);
	else
		ret = trace_reader__rewind(r->rd);
	if (ret)
		return ret;
	ret = run_setup_slots(r, p, err, errlen);
	if (!ret)
		ret = spsc_init(&r->in, r->mops->in_item, RUN_RING);
	if (!ret)
		ret = spsc_init(&r->out, r->src->out_item, RUN_RING);
	if (ret) {
		if (!*err)
			snprintf(err, errlen, "setting up: %s", strerror(-ret));
		return ret;
	}
	ret = r->src->open_output(r);
	if (ret) {
		snprintf(err, errlen, "cannot create result trace %s: %s", o->output,
			 strerror(-ret));
		return ret;
	}
	/* the counters so far came from a mode's loading (closed); the run counts them again */
	if (r->mops->fed) {
		memset(r->res->skipped, 0, sizeof(r->res->skipped));
		r->res->converted = r->res->remapped = r->res->realigned = 0;
	}
	return 0;
}

int replay_run(const struct replay_opts *o, struct replay_result *res, char *err, size_t errlen)
{
	struct run *r = calloc(1, sizeof(*r));
	struct prescan p;
	char why[256] = "";
	int ret;

	memset(res, 0, sizeof(*res));
	hist_init(&res->lateness);
	if (!r)
		return -ENOMEM;
	r->o = o;
	r->res = res;
	r->pid = (uint32_t)getpid();
	r->eng = engine_find(o->engine ? o->engine : "io_uring");
	if (!r->eng) {
		snprintf(err, errlen, REPLAY_UNKNOWN_ENGINE, o->engine);
		res->usage_error = true; /* a wrong option: exit 2 */
		ret = -EINVAL;
		goto out;
	}
	res->engine = r->eng->name;
	r->rd = trace_reader__open(o->trace, 0, why, sizeof(why));
	if (!r->rd) {
		ret = -errno;
		/* the reader's message names the file itself */
		if (*why)
			snprintf(err, errlen, "cannot read trace %s", why);
		else
			snprintf(err, errlen, "cannot read trace %s: %s", o->trace, strerror(-ret));
		goto out;
	}
	r->meta = trace_reader__meta(r->rd);
	r->src = r->meta->level == TRACE_LEVEL_FILE ? &replay_source_file : &replay_source_block;
	r->mode = o->mode != REPLAY_MODE_AUTO ? o->mode : default_mode(r->meta);
	r->mops = mode_find(r->mode);
	if (!r->mops) {
		snprintf(err, errlen, "unknown replay mode %d", r->mode);
		ret = -EINVAL;
		goto out;
	}
	res->mode = r->mode;
	/* an option that changes nothing must not look as if it did (closed mode takes
	 * --dep-chain) */
	if (o->dep_set && (r->mode == REPLAY_TIMED || r->mode == REPLAY_AFAP))
		run_warn(r, "the --dep-* options apply to --mode dep (--dep-chain to closed too): "
			    "ignored in %s mode", r->mops->name);
	if (o->iodepth && r->mode != REPLAY_AFAP)
		run_warn(r, "--iodepth sets afap mode's I/Os in flight: ignored in %s mode "
			    "(--max-inflight caps the others)", r->mops->name);
	if (o->max_inflight && r->mode == REPLAY_AFAP)
		run_warn(r, "--max-inflight caps the other modes: ignored in afap mode "
			    "(--iodepth sets its I/Os in flight)");
	if (r->mops->loads_all && !r->src->each) {
		snprintf(err, errlen, "%s mode replays synthesized jobs: give --mode dep, timed or "
				      "afap for a %s trace", r->mops->name, r->src->name);
		res->usage_error = true;
		ret = -EINVAL;
		goto out;
	}
	ret = prepare(r, &p, err, errlen);
	if (ret)
		goto out;
	ret = run_start_helper(r);
	if (ret) {
		snprintf(err, errlen, "cannot start the helper thread: %s", strerror(-ret));
		goto out;
	}
	ret = run_cpu_start(r);
	if (ret) {
		snprintf(err, errlen, "cannot start the CPU load threads: %s", strerror(-ret));
		goto out;
	}
	ret = run_schedule(r);
	res->interrupted = replay_stop != 0;
	run_cpu_stop(r);
	run_stop_helper(r);
	if (!ret && (r->rerr || r->werr))
		ret = r->rerr ? r->rerr : r->werr;
	if (ret)
		snprintf(err, errlen, "%s", r->herr);
	finish(r, &p);
	if (r->w && r->werr) {
		/* not written whole: its temporary file goes (run_open_result) */
		trace_writer__abort(r->w);
		r->w = NULL;
		snprintf(err, errlen, "%s; %s not written (an earlier file of that name is kept)",
			 r->herr, o->output);
		result_not_written(res);
	}
	if (r->w && ret && ret != -ECANCELED && !r->start_mono) {
		/* the engine failed before the clock (its threads not started): nothing was
		 * replayed, and an empty result is none (as when its init fails) */
		trace_writer__abort(r->w);
		r->w = NULL;
		result_not_written(res);
	}
	if (r->w) {
		struct trace_stats st = { .events = res->ios, .end_ns = res->elapsed_ns };
		struct trace_elastic el;
		int eret = 0, wret;

		/* a dep replay's models, so analyze --compare and info of the result show them */
		if (res->mode == REPLAY_DEP &&
		    dep_elastic_record(&res->elastic, (unsigned long long)res->dep.flushes,
				       (unsigned long long)res->dep.redundant, &res->wbt, &el))
			eret = trace_writer__set_elastic(r->w, &el);
		wret = trace_writer__close(r->w, &st);
		wret = wret ? wret : eret;

		r->w = NULL;
		if (wret && !ret) {
			snprintf(err, errlen,
				 "closing the result trace %s failed: %s; %s not written (an "
				 "earlier file of that name is kept)",
				 o->output, strerror(-wret), o->output);
			ret = wret;
			result_not_written(res);
		}
	}
out:
	if (r->w)
		trace_writer__abort(r->w);
	if (r->an)
		analysis__free(r->an);
	run_free(r);
	return ret;
}

void replay_result_free(struct replay_result *res)
{
	if (res->analysis)
		analysis__free(res->analysis);
	res->analysis = NULL;
	free(res->file);
	res->file = NULL;
}
