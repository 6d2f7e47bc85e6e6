/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Calls by name that move no data, included once by bpf/file.bpf.c (no include guard, one
 * compilation unit): stat, lstat, newfstatat and statx of a path (fio's filestat and dirstat
 * engines, a build's or a mail server's lookups), mkdir and mkdirat, rmdir. unlinkat with
 * AT_REMOVEDIR is the unlink kind here; record/ makes it an rmdir. Like unlink, each parks its
 * path for record/ and needs no file: the name is the file-table entry.
 */

#define FOPS_AT_EMPTY_PATH 0x1000

/* Entry of a call of kind k (arguments a) that file_ops.h knows: fills e, parks its path.
 * False when the call is not one of them, or one that names no path (fstat-like). */
static __always_inline bool fops_enter(__u32 k, const __u64 *a, struct fl_event *e)
{
	switch (k) {
	case FL_SC_STAT: /* (path, buf): lstat too */
		e->op = FL_OP_STAT;
		put_name(e, AT_FDCWD, 0, (const char *)a[0], false);
		return true;
	case FL_SC_NEWFSTATAT: /* (dirfd, path, buf, flags) */
	case FL_SC_STATX:      /* (dirfd, path, flags, mask, buf) */
		e->aux = k == FL_SC_STATX ? a[2] : a[3];
		/* glibc's fstat() is newfstatat(fd, "", buf, AT_EMPTY_PATH): a descriptor's
		 * attributes, no lookup; not recorded (no path to replay it by) */
		if (e->aux & FOPS_AT_EMPTY_PATH)
			return false;
		e->op = FL_OP_STAT;
		put_name(e, a[0], 0, (const char *)a[1], false);
		return true;
	case FL_SC_MKDIR: /* (path, mode) */
		e->op = FL_OP_MKDIR;
		e->aux = a[1];
		put_name(e, AT_FDCWD, 0, (const char *)a[0], false);
		return true;
	case FL_SC_MKDIRAT: /* (dirfd, path, mode) */
		e->op = FL_OP_MKDIR;
		e->aux = a[2];
		put_name(e, a[0], 0, (const char *)a[1], false);
		return true;
	case FL_SC_RMDIR: /* (path) */
		e->op = FL_OP_RMDIR;
		put_name(e, AT_FDCWD, 0, (const char *)a[0], false);
		return true;
	}
	return false;
}
