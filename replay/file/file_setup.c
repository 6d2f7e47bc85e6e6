// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A file-level replay before its clock starts, and what the helper thread does for it while it
 * runs: the options checked, the trace's paths rebased and checked (file_root.c), one pass
 * that numbers the descriptors and decides which files exist before the clock
 * (file_decode.c), the lay-out, the descriptors open at start; then the decoding of calls into
 * the input ring (with what each waited for, in dep mode) and the result trace's header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "analyze/analyze.h"
#include "replay/file/file_int.h"
#include "util/cli.h"

/* Options that do not fit a file-level trace: a usage error (exit 2), said before any write. */
static int check_opts(const struct run *r, char *err, size_t errlen)
{
	const struct replay_opts *o = r->o;

	r->res->usage_error = true;

	if (!o->root) {
		snprintf(err, errlen, "%s is a file-level trace (record --level file): it replays on "
				      "files recreated under a directory; give --root DIR "
				      "--allow-writes", o->trace);
		return -EINVAL;
	}
	if (o->target || o->nmaps || o->size || o->prefill == REPLAY_PREFILL_ON ||
	    o->writes_as_reads || o->offsets) {
		snprintf(err, errlen, "--target, --map, --size, --offsets, --prefill and "
				      "--writes-as-reads are for block-level traces: a file-level "
				      "replay recreates the recorded files under --root");
		return -EINVAL;
	}
	if (!o->allow_writes) {
		snprintf(err, errlen, "a file-level replay creates the recorded files under %s and "
				      "writes to them: give --allow-writes (it replaces the files "
				      "the trace names there)", o->root);
		return -EPERM;
	}
	r->res->usage_error = false;
	return 0;
}

/* One call of the prescan, as the block source's prescan counts a block I/O. */
static void prescan_call(struct prescan *p, const struct fcall *c)
{
	uint64_t t = c->s.t;

	if (t < p->last)
		p->sorted = false;
	p->first = t < p->first ? t : p->first;
	p->last = t > p->last ? t : p->last;
	p->events++;
	p->no_completion += c->iev.complete_ns == IO_TS_NONE;
	p->no_tid += !c->s.tid;
	if (c->s.stream > p->max_stream)
		p->max_stream = c->s.stream;
	p->oncpu_events += c->iev.oncpu_ns != 0;
	p->oncpu_total_ns += c->iev.oncpu_ns;
	if (c->s.op == IO_FOP_READ)
		p->count[IO_OP_READ]++;
	else if (c->s.op == IO_FOP_WRITE)
		p->count[IO_OP_WRITE]++;
	if ((c->s.op == IO_FOP_READ || c->s.op == IO_FOP_WRITE) && c->s.len > p->max_len)
		p->max_len = c->s.len;
	if (c->s.op == IO_FOP_READ && c->s.len > p->max_read)
		p->max_read = c->s.len;
}

static int prescan(struct run *r, struct prescan *p, char *err, size_t errlen)
{
	struct frun *f = frun_of(r);
	long n = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	p->first = UINT64_MAX;
	p->sorted = true;
	ret = fdec_init(&f->dec, f, true);
	while (!ret && (n = trace_reader__next_file(r->rd, f->ev, f->x, RUN_DECODE)) > 0)
		for (long i = 0; !ret && i < n; i++) {
			ret = fdec_event(&f->dec, &f->ev[i], &f->x[i]);
			p->async_calls += f->x[i].iface == IO_FIF_AIO ||
					  f->x[i].iface == IO_FIF_URING;
			for (size_t k = 0; k < f->npend; k++)
				prescan_call(p, &f->pend[k]);
			f->npend = 0;
		}
	if (!ret && n < 0) {
		snprintf(err, errlen, "reading %s: %s", r->o->trace, trace_reader__error(r->rd));
		ret = (int)n;
	} else if (ret) {
		snprintf(err, errlen, "decoding %s: %s", r->o->trace, strerror(-ret));
	} else if (!p->events) {
		snprintf(err, errlen, "%s holds no call to replay", r->o->trace);
		ret = -ENODATA;
	}
	fdec_free(&f->dec);
	return ret;
}

/* Two files laid out at one name (unlinked and made again unseen): the first wins. */
static void settle_layout(struct frun *f)
{
	uint8_t *claimed = calloc(f->nnames + 1, 1);

	for (uint32_t id = 1; id <= f->nfiles; id++) {
		struct ffile *ff = &f->files[id];

		if (ff->layout == FLAY_NONE || ff->tmpfile)
			continue;
		if (!claimed || claimed[ff->name]) {
			ff->layout = FLAY_NONE;
			f->res->layout_conflicts++;
			continue;
		}
		claimed[ff->name] = 1;
	}
	free(claimed);
}

/* What the recording says it could not see: its named counters and drops. */
static void take_counters(struct frun *f)
{
	const struct trace_stats *st = trace_reader__stats(f->rd);
	struct replay_file_result *res = f->res;

	res->dropped = st ? st->dropped : UINT64_MAX;
	for (size_t i = 0; i < trace_reader__counter_count(f->rd); i++) {
		const struct trace_counter *c = trace_reader__counter(f->rd, i);

		if (res->ncounters == 64 || !c->value ||
		    (strncmp(c->name, "uncovered_", 10) && strncmp(c->name, "dropped_", 8)))
			continue;
		snprintf(res->counter_names[res->ncounters], TRACE_COUNTER_NAME_MAX, "%s", c->name);
		res->counters[res->ncounters].name = res->counter_names[res->ncounters];
		res->counters[res->ncounters++].value = c->value;
	}
}

static int scan(struct run *r, struct prescan *p, char *err, size_t errlen)
{
	struct frun *f;
	int ret = check_opts(r, err, errlen);

	if (ret)
		return ret;
	f = calloc(1, sizeof(*f));
	r->src_state = f;
	if (!f || !(r->res->file = calloc(1, sizeof(*r->res->file))))
		return -ENOMEM;
	f->res = r->res->file;
	for (int op = 0; op < IO_FOP__COUNT; op++)
		hist_init(&f->res->lat[op]);
	f->o = r->o;
	f->rd = r->rd;
	f->rootfd = -1;
	f->nfiles = (uint32_t)trace_reader__file_count(r->rd);
	f->files = calloc(f->nfiles + 1, sizeof(*f->files));
	f->ev = calloc(RUN_DECODE, sizeof(*f->ev));
	f->x = calloc(RUN_DECODE, sizeof(*f->x));
	if (!f->files || !f->ev || !f->x)
		return -ENOMEM;
	ret = froot_open(f, r->o->root, r->o->force, err, errlen);
	if (!ret)
		ret = froot_names(f, r->o->strip, err, errlen);
	if (!ret)
		ret = fops_mark_parents(f);
	/* the prescan first: it learns which names are directories, which the vetting allows */
	if (!ret)
		ret = prescan(r, p, err, errlen);
	if (!ret)
		ret = froot_vet(f, err, errlen);
	if (!ret)
		ret = fops_settle_weak(f);
	if (ret)
		return ret;
	settle_layout(f);
	take_counters(f);
	f->slots = calloc(f->nslots + 1, sizeof(*f->slots));
	f->tg = calloc(f->nslots + 1, sizeof(*f->tg));
	if (!f->slots || !f->tg)
		return -ENOMEM;
	for (uint32_t i = 0; i <= f->nslots; i++) {
		f->tg[i].fd = -1;
		f->tg[i].wb_fd = -1;
		f->slots[i].close_at = UINT64_MAX;
	}
	return trace_reader__rewind(r->rd);
}

/* The descriptors open before the clock: open at start, or used before their open was seen. */
static int open_at_setup(struct run *r, char *err, size_t errlen)
{
	struct frun *f = frun_of(r);
	struct rlimit rl;

	/* every descriptor the recorded processes held at once is one of ours */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (uint32_t i = 0; i < f->nslots; i++) {
		const struct fslot_info *in = &f->info[i];
		int fl = file_open_flags(r, in->oflags) & ~(O_CREAT | O_EXCL | O_TRUNC), fd;

		if (!in->at_setup || f->files[in->file].layout == FLAY_NONE)
			continue;
		fd = froot_open_name(f, f->files[in->file].name, fl, 0);
		if (fd == -EINVAL && (fl & O_DIRECT)) {
			f->res->direct_refused++;
			fd = froot_open_name(f, f->files[in->file].name, fl & ~O_DIRECT, 0);
		}
		if (fd < 0) {
			snprintf(err, errlen, "cannot open %s/%s (open when the recording started): "
					      "%s", f->res->root,
				 f->names[f->files[in->file].name].rel, strerror(-fd));
			return fd;
		}
		f->tg[i].fd = fd;
		f->slots[i].oflags = in->oflags;
	}
	return 0;
}

static int prepare(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	struct frun *f = frun_of(r);
	int ret = froot_prepare(f, err, errlen);
	struct stat st;

	f->syscalls_only = !p->async_calls;

	if (!ret && !stat(r->o->root, &st)) {
		char what[512];

		snprintf(what, sizeof(what), "--root %s, on a loop device (%u:%u)", r->o->root,
			 major(st.st_dev), minor(st.st_dev));
		run_warn_realtime_loop(r, st.st_dev, what);
	}
	if (!ret)
		ret = open_at_setup(r, err, errlen);
	if (!ret)
		ret = fdec_init(&f->dec, f, false);
	if (f->res->direct_refused)
		run_warn(r, "%llu files opened without O_DIRECT: %s refuses it (the recording had it)",
			 (unsigned long long)f->res->direct_refused, f->res->root);
	return ret;
}

/*
 * With no --engine: io_uring, unless the trace is a closed loop whose streams each make one
 * plain system call at a time (a job of fio's sync engines: falloc, ftruncate, filecreate,
 * psync...): then threads, each stream's calls made by a thread of its own (by the scheduling
 * thread itself at depth 1), as fio's job makes them. io_uring makes fallocate and the syncs
 * only in its io-wq workers (REQ_F_FORCE_ASYNC), and that hand-off cost each fallocate 45-51 us
 * here against the call's 2.2 us in fio: fio's falloc.fio replayed at x0.05 of fio's calls per
 * second (bench/fio_fileops.sh, synth/FIO.md "Rates against fio"). A recorded trace keeps
 * io_uring unless --cpu picks threads (core/cpu.c): that default is measured by
 * bench/predict_fs.sh, not here.
 */
static const char *engine_hint(struct run *r)
{
	if (r->mode != REPLAY_CLOSED || !frun_of(r)->syscalls_only)
		return NULL;
	for (uint32_t i = 0; i < r->meta->nstreams && i < TRACE_MAX_STREAMS; i++)
		if (r->meta->streams[i].depth > 1)
			return NULL;
	return "threads";
}

static long feed(struct run *r)
{
	struct frun *f = frun_of(r);
	long moved = 0;

	for (;;) {
		while (f->pend_pos < f->npend) {
			const struct fcall *c = &f->pend[f->pend_pos];
			struct sev *s = run_feed_slot(r);
			uint32_t back[4];

			if (!s)
				return moved;
			*s = c->s;
			s->t = run_deadline(r, c->s.t);
			run_cpu_sev(r, s, c->iev.oncpu_ns);
			s->cpuwait_ns = r->cpu_wait ? c->iev.cpuwait_ns : 0;
			/* the calls of other threads it must follow, for a mode that orders by
			 * dependencies (dep): how many calls back each lies */
			for (uint8_t k = 0; k < c->nafter; k++) {
				uint64_t d = c->seq - c->after[k];

				back[k] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
			}
			f->res->res_edges += run_feed_push(r, &c->iev, back, c->nafter);
			f->pend_pos++;
			moved++;
		}
		f->npend = f->pend_pos = 0;
		if (f->pos == f->nbuf) {
			long n;

			if (f->eof)
				break;
			n = trace_reader__next_file(r->rd, f->ev, f->x, RUN_DECODE);
			if (n <= 0) {
				if (n < 0) {
					snprintf(r->herr, sizeof(r->herr), "reading %s: %s",
						 r->o->trace, trace_reader__error(r->rd));
					r->rerr = (int)n;
				}
				f->eof = true;
				break;
			}
			f->nbuf = (size_t)n;
			f->pos = 0;
		}
		if (fdec_event(&f->dec, &f->ev[f->pos], &f->x[f->pos])) {
			snprintf(r->herr, sizeof(r->herr), "decoding %s: out of memory", r->o->trace);
			r->rerr = -ENOMEM;
			f->eof = true;
			f->pos = f->nbuf;
			break;
		}
		f->pos++;
	}
	if (f->eof && f->pos == f->nbuf && f->pend_pos == f->npend)
		__atomic_store_n(&r->input_done, true, __ATOMIC_RELEASE);
	return moved;
}

/* The engine's targets are the slots: one per descriptor, opened and closed as the run goes. */
static void engine_targets(struct run *r, struct engine_params *ep)
{
	ep->targets = frun_of(r)->tg;
	ep->ntargets = frun_of(r)->nslots;
	ep->fds_change = true;
	ep->names = (struct engine_names){ .call = file_name_call, .ctx = frun_of(r) };
}

/* The result trace: the same file table (paths under the root), the calls as they ran. */
static int open_output(struct run *r)
{
	struct frun *f = frun_of(r);
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct trace_device dv = { .logical_block_size = 512, .physical_block_size = 512 };
	char path[TRACE_FILE_PATH_MAX + 1];
	int ret = 0;

	f->done = calloc(r->depth, sizeof(*f->done));
	if (!m || !f->done) {
		free(m);
		return -ENOMEM;
	}
	trace_meta_init(m, "replay");
	snprintf(m->source, sizeof(m->source), "replay:%s", r->mops->name);
	snprintf(m->options, sizeof(m->options), "%s", r->o->command_line ? r->o->command_line : "");
	m->level = TRACE_LEVEL_FILE;
	if (r->o->output) {
		r->w = run_open_result(r, m);
		ret = r->w ? 0 : -errno;
	}
	for (uint32_t id = 1; !ret && r->w && id <= f->nfiles; id++) {
		struct trace_file tf = *trace_reader__file(r->rd, id);

		snprintf(path, sizeof(path), "%s/%s", f->res->root, f->names[f->files[id].name].rel);
		tf.path = path;
		ret = trace_writer__add_files(r->w, &tf, 1);
	}
	/* the analysis of the data calls (fsync and fdatasync as flushes), as of a device */
	m->level = TRACE_LEVEL_BLOCK;
	snprintf(dv.name, sizeof(dv.name), "%.63s",
		 f->res->root[1] ? strrchr(f->res->root, '/') + 1 : f->res->root);
	snprintf(dv.model, sizeof(dv.model), "files under --root");
	trace_meta_add_device(m, &dv);
	r->an = analysis__new(NULL, m, r->o->output ? r->o->output : "replay");
	free(m);
	return ret;
}

static void file_free(struct run *r)
{
	struct frun *f = frun_of(r);

	if (!f)
		return;
	for (uint32_t i = 0; f->tg && i < f->nslots; i++)
		if (f->tg[i].fd >= 0)
			close(f->tg[i].fd);
	for (uint32_t i = 0; i < f->nretired; i++)
		close(f->retired[i].fd);
	free(f->retired);
	fdec_free(&f->dec);
	froot_free(f);
	free(f->files);
	free(f->info);
	free(f->slots);
	free(f->tg);
	free(f->ev);
	free(f->x);
	free(f->pend);
	free(f->done);
	free(f);
	r->src_state = NULL;
}

/*
 * A read's buffer must be its own while in flight on btrfs and ZFS, which verify a direct
 * read's checksum in it (the block source says why); the files' alignment is the engine's.
 */
static void buffers(struct run *r, uint32_t *align, bool *own_reads)
{
	struct statfs sf;

	(void)align;
	*own_reads = !statfs(r->o->root, &sf) && (sf.f_type == BTRFS_SUPER_MAGIC ||
						  (unsigned long)sf.f_type == 0x2fc12fc1UL);
}

/*
 * Every call of the trace, for closed mode (a synthesized file-level trace: fio's file and
 * directory engines, jobs over several files): the decoder's pass over the whole trace before
 * the clock, its calls handed to fn in file order, each carrying its stream (the job). The
 * calls on one descriptor stay in their stream's order: opens, stats and the other calls by
 * name are made on the scheduling thread as they are released, so a stream's open is done
 * before its next call is issued, at any depth.
 */
static int each(struct run *r, int (*fn)(struct run *r, const struct sev *s, void *arg), void *arg,
		char *err, size_t errlen)
{
	struct frun *f = frun_of(r);
	long n;
	int ret = 0;

	while (!ret && (n = trace_reader__next_file(r->rd, f->ev, f->x, RUN_DECODE)) > 0)
		for (long i = 0; !ret && i < n; i++) {
			ret = fdec_event(&f->dec, &f->ev[i], &f->x[i]);
			for (size_t k = 0; !ret && k < f->npend; k++)
				ret = fn(r, &f->pend[k].s, arg);
			f->npend = 0;
		}
	if (!ret && n < 0) {
		snprintf(err, errlen, "reading %s: %s", r->o->trace, trace_reader__error(r->rd));
		return (int)n;
	}
	if (ret)
		snprintf(err, errlen, "decoding %s: %s", r->o->trace, strerror(-ret));
	f->eof = true;
	return ret;
}

const struct replay_source_ops replay_source_file = {
	.name = "file-level",
	.out_item = sizeof(struct done_fev),
	.scan = scan,
	.prepare = prepare,
	.engine_hint = engine_hint,
	.buffers = buffers,
	.engine_targets = engine_targets,
	.open_output = open_output,
	.each = each,
	.feed = feed,
	.out = file_out,
	.issue = file_issue,
	.reap = file_reap,
	.complete = file_complete,
	.skip = file_skip,
	.to_engine = file_to_engine,
	.free = file_free,
};
