/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The asynchronous interfaces of bpf/file.bpf.c, included once by it (no include guard, one
 * compilation unit: one skeleton): libaio's iocbs, read from user memory at io_submit and
 * completed by the io_getevents that returns them (bpf_loop callbacks the system call handlers
 * call), and io_uring's requests, from its own tracepoints.
 */

/* ---- libaio ---- */

struct aio_ctx {
	__u64 iocbpp;
	__u64 now; /* io_submit's entry */
};

/*
 * aio_one's event and iocb. A bpf_loop callback's stack counts on top of its caller's: the
 * system call handler's (~270 bytes) plus this callback's event and iocb (~250) plus iov_len's
 * callback passed the 512 bytes a chain of calls may take, which Linux 6.18's verifier refuses
 * ("combined stack size of 2 calls is 528. Too large") where earlier ones let it load. Per CPU,
 * as name_buf: system call tracepoints run in task context and do not nest.
 */
struct aio_scratch {
	struct fl_event e;
	struct iocb cb;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aio_scratch);
} aio_buf SEC(".maps");

/* One iocb of an io_submit: parked in "async" until io_getevents returns it. */
static long aio_one(__u32 i, void *data)
{
	struct aio_ctx *c = data;
	struct fl_akey key = {(__u64)FL_AK_AIO << 32 | (bpf_get_current_pid_tgid() >> 32)};
	__u32 zero = 0;
	struct aio_scratch *s = bpf_map_lookup_elem(&aio_buf, &zero);
	struct fl_event *e;
	struct iocb *cb;
	__u64 p;

	if (!s)
		return 1;
	e = &s->e;
	cb = &s->cb;
	if (bpf_probe_read_user(&p, sizeof(p), (void *)(c->iocbpp + 8ull * i)) ||
	    bpf_probe_read_user(cb, sizeof(*cb), (void *)p)) {
		count(FL_DROP_AIO_READ, 1);
		return 0;
	}
	fill_task(e, c->now);
	e->iface = FL_IF_AIO;
	e->fd = cb->aio_fildes;
	if (!file_ident(fd_file(cb->aio_fildes), e))
		return 0;
	switch (cb->aio_lio_opcode) {
	case 0: /* IOCB_CMD_PREAD */
	case 7: /* IOCB_CMD_PREADV */
		e->op = FL_OP_READ;
		break;
	case 1: /* IOCB_CMD_PWRITE */
	case 8: /* IOCB_CMD_PWRITEV */
		e->op = FL_OP_WRITE;
		break;
	case 2:
		e->op = FL_OP_FSYNC;
		break;
	case 3:
		e->op = FL_OP_FDATASYNC;
		break;
	default:
		count(FL_UNC_AIO_OTHER, 1);
		return 0;
	}
	if (e->op <= FL_OP_WRITE) {
		e->offset = cb->aio_offset;
		e->aux = cb->aio_rw_flags;
		if (cb->aio_lio_opcode >= 7)
			iov_len(e, cb->aio_buf, cb->aio_nbytes); /* a bpf_loop in this one */
		else
			e->len = rw_count(cb->aio_nbytes);
	}
	key.id = p;
	if (bpf_map_update_elem(&async, &key, e, BPF_ANY))
		count(FL_DROP_PENDING, 1);
	return 0;
}

struct aio_undo_ctx {
	__u64 iocbpp;
	__u32 tgid;
};

/* An iocb io_submit did not take (it returned fewer than asked): forget it. */
static long aio_undo(__u32 i, void *data)
{
	struct aio_undo_ctx *c = data;
	struct fl_akey key = {(__u64)FL_AK_AIO << 32 | c->tgid};

	if (!bpf_probe_read_user(&key.id, sizeof(key.id), (void *)(c->iocbpp + 8ull * i)))
		bpf_map_delete_elem(&async, &key);
	return 0;
}

struct reap_ctx {
	__u64 events;
	__u64 now;
	__u32 tgid;
};

/* One io_event io_getevents returned: completes its iocb. */
static long aio_reap(__u32 i, void *data)
{
	struct reap_ctx *c = data;
	struct fl_akey key = {(__u64)FL_AK_AIO << 32 | c->tgid};
	struct io_event ev;
	struct fl_event *e;

	if (bpf_probe_read_user(&ev, sizeof(ev), (void *)(c->events + (__u64)i * sizeof(ev))))
		return 0;
	key.id = ev.obj;
	e = bpf_map_lookup_elem(&async, &key);
	if (!e)
		return 0;
	e->exit_ns = c->now;
	e->result = ev.res;
	if ((e->flags & FL_F_LEN_GUESS) && ev.res > 0)
		e->len = ev.res;
	emit(e);
	bpf_map_delete_elem(&async, &key);
	return 0;
}

/* ---- io_uring ---- */

/* What a request asked, read from the prepared request or, when its preparation failed, from its
 * submission queue entry. */
struct uring_args {
	__u64 off, len, addr;
	__u32 flags; /* rw_flags, fsync_flags, sync_range_flags; fallocate: the mode */
	__s32 fd;
	__u8 opcode;
	bool fixed; /* IOSQE_FIXED_FILE */
};

/* What io_uring request opcode a->opcode becomes; -1 for ones we do not record (counted if they
 * are about files). Opcodes are UAPI (include/uapi/linux/io_uring.h). */
static __always_inline int uring_op(const struct uring_args *a, struct fl_event *e)
{
	__u8 op = a->opcode;

	switch (op) {
	case 1:	 /* READV */
	case 4:	 /* READ_FIXED */
	case 22: /* READ */
	case 60: /* READV_FIXED */
	case 2:	 /* WRITEV */
	case 5:	 /* WRITE_FIXED */
	case 23: /* WRITE */
	case 61: /* WRITEV_FIXED */
		e->op = (op == 1 || op == 4 || op == 22 || op == 60) ? FL_OP_READ : FL_OP_WRITE;
		e->offset = a->off;
		e->aux = a->flags;
		if (op == 4 || op == 5 || op == 60 || op == 61)
			e->flags |= FL_F_FIXED;
		if ((__s64)e->offset == -1)
			e->flags |= FL_F_FPOS;
		if (op == 1 || op == 2 || op == 60 || op == 61)
			iov_len(e, a->addr, a->len);
		else
			e->len = a->len;
		return 0;
	case 3: /* FSYNC */
		e->op = (a->flags & IORING_FSYNC_DATASYNC) ? FL_OP_FDATASYNC : FL_OP_FSYNC;
		return 0;
	case 8: /* SYNC_FILE_RANGE */
		e->op = FL_OP_SYNC_RANGE;
		e->offset = a->off;
		e->len = a->len;
		e->aux = a->flags;
		return 0;
	case 17: /* FALLOCATE */
		e->op = FL_OP_FALLOCATE;
		e->offset = a->off;
		e->len = a->len;
		e->aux = a->flags;
		return 0;
	case 18: /* OPENAT */
	case 19: /* CLOSE */
	case 28: /* OPENAT2 */
	case 30: /* SPLICE */
	case 33: /* TEE */
	case 35: /* RENAMEAT */
	case 36: /* UNLINKAT */
	case 55: /* FTRUNCATE */
		count(FL_UNC_URING_OTHER, 1);
		return -1;
	default:
		return -1;
	}
}

/* Before v6.13 a registered file was an io_fixed_file in file_table.files[]. */
struct io_fixed_file___old {
	unsigned long file_ptr;
} __attribute__((preserve_access_index));

struct io_file_table___old {
	struct io_fixed_file___old *files;
} __attribute__((preserve_access_index));

struct io_ring_ctx___old {
	struct io_file_table___old file_table;
	unsigned int nr_user_files;
} __attribute__((preserve_access_index));

/*
 * The file behind a registered file index, from the ring's table: read at submission, because
 * req->file of a request io-wq runs (fsync) is gone again by its completion. The low bits of
 * file_ptr are flags (FFS_NOWAIT, FFS_ISREG).
 */
static __always_inline struct file *fixed_file(struct io_kiocb *req, __u32 idx)
{
	struct io_ring_ctx *ctx = BPF_CORE_READ(req, ctx);
	unsigned long ptr = 0;

	if (bpf_core_field_exists(ctx->file_table.data.nodes)) {
		struct io_rsrc_node **nodes = BPF_CORE_READ(ctx, file_table.data.nodes),
				    *node = NULL;

		if (idx >= BPF_CORE_READ(ctx, file_table.data.nr))
			return NULL;
		bpf_probe_read_kernel(&node, sizeof(node), &nodes[idx]);
		ptr = node ? BPF_CORE_READ(node, file_ptr) : 0;
	} else if (bpf_core_field_exists(((struct io_ring_ctx___old *)0)->file_table.files)) {
		struct io_ring_ctx___old *old = (void *)ctx;
		struct io_fixed_file___old *files = BPF_CORE_READ(old, file_table.files);

		if (idx >= BPF_CORE_READ(old, nr_user_files))
			return NULL;
		ptr = BPF_CORE_READ(&files[idx], file_ptr);
	}
	return (struct file *)(ptr & ~3ul);
}

/* Parks a request of a recorded process (the caller checked wanted()) until io_uring_complete,
 * keyed by the request. */
static __always_inline void uring_park(struct io_kiocb *req, const struct uring_args *a)
{
	struct fl_akey key = {(__u64)FL_AK_URING << 32};
	struct fl_event e;
	struct file *f;

	fill_task(&e, bpf_ktime_get_ns());
	e.iface = FL_IF_URING;
	if (uring_op(a, &e))
		return;
	e.fd = a->fd;
	f = a->fixed ? fixed_file(req, a->fd) : fd_file(a->fd);
	if (a->fixed)
		e.flags |= FL_F_FIXED;
	if (!f && a->fixed) {
		/* a table layout we cannot read: req->file at completion (rw has it) */
		e.flags |= FL_F_NO_FILE;
	} else {
		if (!file_ident(f, &e))
			return;
		if (e.flags & FL_F_FPOS)
			e.offset = BPF_CORE_READ(f, f_pos);
	}
	key.id = (__u64)req;
	if (bpf_map_update_elem(&async, &key, &e, BPF_ANY))
		count(FL_DROP_PENDING, 1);
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(uring_submit, struct io_kiocb *req)
{
	struct io_rw *rw = (void *)&req->cmd;
	struct io_sync *sy = (void *)&req->cmd;
	struct uring_args a = {};

	/* every ring of the machine passes here: the filter before any read of the request */
	if (stopping || !wanted())
		return 0;
	a.opcode = BPF_CORE_READ(req, opcode);
	a.fd = BPF_CORE_READ(req, cqe.fd);
	a.fixed = BPF_CORE_READ(req, flags) & REQ_F_FIXED_FILE;

	/* prepared by io_init_req() already: io_rw or io_sync in req->cmd */
	if (a.opcode == 3 || a.opcode == 8 || a.opcode == 17) {
		a.off = BPF_CORE_READ(sy, off);
		a.len = BPF_CORE_READ(sy, len);
		a.flags = a.opcode == 17 ? BPF_CORE_READ(sy, mode) : BPF_CORE_READ(sy, flags);
	} else {
		a.off = BPF_CORE_READ(rw, kiocb.ki_pos);
		a.len = BPF_CORE_READ(rw, len);
		a.addr = BPF_CORE_READ(rw, addr);
		a.flags = BPF_CORE_READ(rw, flags);
	}
	uring_park(req, &a);
	return 0;
}

/*
 * A request whose preparation failed never reaches io_uring_submit_req, but it was asked and
 * its error comes back through io_uring_complete: taken from the submission queue entry.
 */
SEC("tp_btf/io_uring_req_failed")
int BPF_PROG(uring_failed, const struct io_uring_sqe *sqe, struct io_kiocb *req, int error)
{
	struct uring_args a = {};

	if (stopping || !wanted())
		return 0;
	a.opcode = BPF_CORE_READ(sqe, opcode);
	a.fd = BPF_CORE_READ(sqe, fd);
	a.fixed = BPF_CORE_READ(sqe, flags) & 1; /* IOSQE_FIXED_FILE */
	a.off = BPF_CORE_READ(sqe, off);
	a.len = BPF_CORE_READ(sqe, len);
	a.addr = BPF_CORE_READ(sqe, addr);
	a.flags = BPF_CORE_READ(sqe, rw_flags);

	if (a.opcode == 17) { /* fallocate: length in addr, mode in len */
		a.flags = a.len;
		a.len = a.addr;
	}
	uring_park(req, &a);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete, void *ring, void *req, struct io_uring_cqe *cqe)
{
	struct fl_akey key = {(__u64)FL_AK_URING << 32, (__u64)req};
	struct fl_event *e = bpf_map_lookup_elem(&async, &key);

	if (!e)
		return 0;
	e->exit_ns = bpf_ktime_get_ns();
	e->result = BPF_CORE_READ(cqe, res);
	if (e->flags & FL_F_NO_FILE) {
		struct file *f = BPF_CORE_READ((struct io_kiocb *)req, file);

		if (!file_ident(f, e)) {
			bpf_map_delete_elem(&async, &key);
			return 0;
		}
		e->flags &= ~FL_F_NO_FILE;
	}
	if ((e->flags & FL_F_LEN_GUESS) && e->result > 0)
		e->len = e->result;
	emit(e);
	bpf_map_delete_elem(&async, &key);
	return 0;
}
