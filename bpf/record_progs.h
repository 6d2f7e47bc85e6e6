/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The programs of bpf/record.bpf.c and the helpers that read kernel objects. No include guard:
 * record.bpf.c includes this once per program type (tp_btf, raw_tp) with TP, P, RD, KEY and RAW
 * defined (see there), so both sets run the same per-I/O logic.
 */

static __always_inline __u32 P(disk_dev)(const struct gendisk *disk)
{
	if (!disk)
		return 0;
	return ((__u32)RD(disk, major) << 20) | (__u32)RD(disk, first_minor);
}

static __always_inline struct gendisk *P(rq_disk)(struct request *rq)
{
	struct request_queue *q;

	if (bpf_core_field_exists(((struct request___old *)0)->rq_disk))
		return BPF_CORE_READ((struct request___old *)rq, rq_disk);
	q = RD(rq, q);
	return RD(q, disk);
}

static __always_inline void P(fill)(struct rec_event *e, __u64 now, __u32 dev, __u64 sector,
				    __u32 bytes, __u8 op, __u8 flags)
{
#if RAW
	__u64 id = bpf_get_current_pid_tgid();
#else
	/* Read from the task directly: cheaper than the comm helper's padded string copy. */
	struct task_struct *task = bpf_get_current_task_btf();
#endif

	e->queue_ns = now;
	e->issue_ns = 0;
	e->complete_ns = 0;
	e->sector = sector;
	e->bytes = bytes;
	e->dev = dev;
#if RAW
	e->pid = id >> 32;
	e->tid = (__u32)id;
#else
	e->pid = task->tgid;
	e->tid = task->pid;
#endif
	e->status = 0;
	e->cpu = bpf_get_smp_processor_id();
	e->op = op;
	/* Kernel threads from task->flags, not from their names: dependency-aware replay tells a
	 * database thread (closed loop) from a kworker or jbd2 (include/linux/sched.h). */
#if RAW
	if (BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), flags) & PF_KTHREAD)
		flags |= REC_F_KTHREAD;
#else
	if (task->flags & PF_KTHREAD)
		flags |= REC_F_KTHREAD;
#endif
	e->flags = flags;
	/* a kernel thread's CPU is the kernel's work for the I/O: a replay makes it again */
	e->oncpu = (flags & REC_F_KTHREAD) ? 0 : oncpu_since(now, e->tid, true);
	e->_pad = 0;
#if RAW
	bpf_get_current_comm(e->comm, sizeof(e->comm));
#else
	__builtin_memcpy(e->comm, task->comm, sizeof(e->comm));
#endif
}

/*
 * Starts tracking an I/O in the submitter's context. fresh: the I/O is new by definition
 * (block_bio_queue, block_io_start), so an entry still live under its pointer belongs to an
 * earlier I/O at the same address that ended unseen: it is written out (end_unseen) and
 * replaced. Otherwise (insert, issue) an existing entry is kept.
 */
static __always_inline void P(track)(__u64 key, __u32 dev, __u64 sector, __u32 bytes, __u32 opf,
				     bool fresh)
{
	__u32 i = rec_slot_index(key);
	struct rec_slot *s = bpf_map_lookup_elem(&slots, &i);
	struct rec_event e, *prev;
	__u8 op, flags;
	__u64 now;

	if (stopping || !key || decode_opf(opf, bytes, &op, &flags))
		return;
	now = bpf_ktime_get_ns();
	if (now < track_from)
		return;
	if (s) {
		__u64 old = __sync_val_compare_and_swap(&s->key, 0, key);

		if (old == 0) {
			P(fill)(&s->e, now, dev, sector, bytes, op, flags);
			return;
		}
		if (old == key) {
			if (fresh) {
				end_unseen(&s->e);
				P(fill)(&s->e, now, dev, sector, bytes, op, flags);
			}
			return;
		}
	}
	/* The slow path: the slot belongs to another I/O. */
	prev = bpf_map_lookup_elem(&inflight, &key);
	if (prev && !prev->complete_ns) {
		if (!fresh)
			return; /* already tracked */
		end_unseen(prev);
	}
	P(fill)(&e, now, dev, sector, bytes, op, flags);
	if (bpf_map_update_elem(&inflight, &key, &e, BPF_ANY))
		count(REC_DROP_INFLIGHT); /* the map is full (or its bucket busy on this CPU) */
}

/* ---- bio level ---- */

SEC(TP("block_bio_queue"))
int PROG(P(bio_queue), struct bio *bio)
{
	HOOK_ONLY_RETURN();
	struct block_device *bdev = RD(bio, bi_bdev);
	__u32 dev = P(disk_dev)(RD(bdev, bd_disk));
	__u64 sector = RD(bio, bi_iter.bi_sector);
	__u32 bytes = RD(bio, bi_iter.bi_size);

	if (!wanted(dev, REC_LEVEL_BIO, sector, bytes))
		return 0;
	P(track)(KEY(bio), dev, sector, bytes, RD(bio, bi_opf), true);
	return 0;
}

SEC(TP("block_bio_complete"))
int PROG(P(bio_complete), struct request_queue *q, struct bio *bio)
{
	HOOK_ONLY_RETURN();
	__u64 key = KEY(bio);
	struct inflight_ref r;

	if (find(key, &r))
		emit(key, &r, RD(bio, bi_status));
	return 0;
}

/*
 * Bios of blk-mq disks (loop, virtio, nvme) never reach block_bio_complete: blk-mq ends them
 * without BIO_TRACE_COMPLETION. Their request's completion is where they end, so at bio level
 * on such a disk the request's bio chain is walked here (block_rq_complete runs before
 * blk_update_request ends the bios, so the chain is intact).
 */
SEC(TP("block_rq_complete"))
int PROG(P(bio_rq_complete), struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	HOOK_ONLY_RETURN();
	struct bio *bio = RD(rq, bio);

	for (int i = 0; i < MAX_RQ_BIOS && bio; i++) {
		__u64 key = KEY(bio);
		struct inflight_ref r;

		if (find(key, &r))
			emit(key, &r, error);
		bio = RD(bio, bi_next);
	}
	return 0;
}

/* ---- request level ---- */

static __always_inline void P(rq_track)(struct request *rq, bool fresh)
{
	__u32 dev = P(disk_dev)(P(rq_disk)(rq));
	__u64 sector = RD(rq, __sector);
	__u32 bytes = RD(rq, __data_len);

	if (!wanted(dev, REC_LEVEL_RQ, sector, bytes))
		return;
	P(track)(KEY(rq), dev, sector, bytes, RD(rq, cmd_flags), fresh);
}

/* A request made from a submitter's bio (its first bio: later bios merge into it). Since
 * v6.5 (commit 5a80bd075f3b); without it record/ leaves this program out (record/LEVELS.md). */
SEC(TP("block_io_start"))
int PROG(P(rq_start), struct request *rq)
{
	HOOK_ONLY_RETURN();
	P(rq_track)(rq, true);
	return 0;
}

/*
 * The flush machinery's own request (REQ_OP_FLUSH: only the block layer makes one) carries out
 * flushes that submitters asked for with REQ_PREFLUSH/REQ_FUA; those submitters' requests are
 * recorded already (an empty preflush write as a flush, a data write with its preflush/fua
 * flags), so recording this one too would count every flush twice and replay it twice. It can
 * also stand for several coalesced preflushes, or a post-flush emulating FUA: replaying the
 * submitters' flushes and FUA writes makes the target's block layer do the same again.
 */
static __always_inline bool P(is_flush_machinery)(struct request *rq)
{
	return (RD(rq, cmd_flags) & REQ_OP_MASK) == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH);
}

/*
 * Without block_io_start nothing says when a request is new, so an I/O the kernel ended without
 * a completion event (see end_unseen) would leave its entry to the next I/O on that request,
 * recorded with the old one's queue time and submitter while the old one was lost. But a
 * request is issued once per I/O unless it is requeued (driver busy), and a requeue is traced
 * (rq_requeue): a request found issued at insert or issue carries a new I/O. Kernels with
 * block_io_start run the programs without this check (renew false), at no cost.
 */
static __always_inline void P(rq_renew)(struct request *rq, __u64 key, struct inflight_ref *r)
{
	end_unseen(r->e);
	forget(key, r);
	P(rq_track)(rq, false);
}

/* Requests the block layer makes itself (requeued, or made without block_io_start), and on
 * kernels without block_io_start every request that is inserted before it is issued. */
static __always_inline int P(on_insert)(struct request *rq, bool renew)
{
	__u64 key = KEY(rq);
	struct inflight_ref r;

	if (P(is_flush_machinery)(rq))
		return 0;
	if (!find(key, &r))
		P(rq_track)(rq, false);
	else if (renew && r.e->issue_ns)
		P(rq_renew)(rq, key, &r);
	return 0;
}

/* Merges are over when the driver gets the request: take its final extent here. */
static __always_inline int P(on_issue)(struct request *rq, bool renew)
{
	__u64 key = KEY(rq);
	__u32 bytes = RD(rq, __data_len);
	struct rec_event *inf;
	struct inflight_ref r;
	__u8 kept, thread;

	if (!find(key, &r)) {
		if (P(is_flush_machinery)(rq))
			return 0;
		P(rq_track)(rq, false);
		if (!find(key, &r))
			return 0;
	} else if (renew && r.e->issue_ns) {
		P(rq_renew)(rq, key, &r);
		if (!find(key, &r))
			return 0;
	}
	inf = r.e;
	/* blk_insert_flush() strips PREFLUSH/FUA from a request it sequences: keep what the
	 * submitter asked for (seen at block_io_start), it is what a replay must ask again.
	 * Whether a kernel thread queued it is the submitter's, too (issue may run elsewhere). */
	kept = inf->flags & (REC_F_PREFLUSH | REC_F_FUA);
	thread = inf->flags & REC_F_KTHREAD;
	inf->issue_ns = bpf_ktime_get_ns();
	inf->sector = RD(rq, __sector);
	inf->bytes = bytes;
	decode_opf(RD(rq, cmd_flags), bytes, &inf->op, &inf->flags);
	inf->flags |= thread;
	if (inf->op == REC_OP_WRITE)
		inf->flags |= kept;
	return 0;
}

SEC(TP("block_rq_insert"))
int PROG(P(rq_insert), struct request *rq)
{
	HOOK_ONLY_RETURN();
	return P(on_insert)(rq, false);
}

SEC(TP("block_rq_issue"))
int PROG(P(rq_issue), struct request *rq)
{
	HOOK_ONLY_RETURN();
	return P(on_issue)(rq, false);
}

/* ---- request level on kernels without block_io_start (before v6.5): see rq_renew ---- */

SEC(TP("block_rq_insert"))
int PROG(P(rq_insert_nostart), struct request *rq)
{
	HOOK_ONLY_RETURN();
	return P(on_insert)(rq, true);
}

SEC(TP("block_rq_issue"))
int PROG(P(rq_issue_nostart), struct request *rq)
{
	HOOK_ONLY_RETURN();
	return P(on_issue)(rq, true);
}

/* A requeued request is issued again as the same I/O: not a new one for rq_renew. */
SEC(TP("block_rq_requeue"))
int PROG(P(rq_requeue), struct request *rq)
{
	HOOK_ONLY_RETURN();
	__u64 key = KEY(rq);
	struct inflight_ref r;

	if (find(key, &r))
		r.e->issue_ns = 0;
	return 0;
}

/* A request merged into another one never completes: forget it (its bytes are in the other). */
SEC(TP("block_rq_merge"))
int PROG(P(rq_merge), struct request *rq)
{
	HOOK_ONLY_RETURN();
	__u64 key = KEY(rq);
	struct inflight_ref r;

	if (find(key, &r)) {
		forget(key, &r);
		count(REC_STAT_MERGED);
	}
	return 0;
}

SEC(TP("block_rq_complete"))
int PROG(P(rq_complete), struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	HOOK_ONLY_RETURN();
	__u64 key = KEY(rq);
	struct inflight_ref r;

	if (find(key, &r))
		emit(key, &r, error);
	return 0;
}
