/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel side of the per-CPU rings both recorders hand their records through (the protocol
 * is at struct rec_ring_ctl in record.h; record/rings.c is the reader). Included once by
 * bpf/record.bpf.c (struct rec_rec, I/Os) and bpf/file.bpf.c (struct fl_rec, calls):
 *
 *   REC_RINGS(struct my_rec, 15)
 *
 * declares the maps ring_ctl and ring_buf (sized by record/ before load: one control block
 * per possible CPU, possible CPUs << ring_shift records) and ring_shift (log2 of the records
 * per CPU, set by record/), and defines ring_claim(). A record type is a __u64 seq followed
 * by the payload; a record is published with ring_publish() once filled.
 */
#ifndef IOREEL_BPF_RINGS_BPF_H
#define IOREEL_BPF_RINGS_BPF_H

#define REC_RINGS(REC_T, DEFAULT_SHIFT)                                                     \
	const volatile __u32 ring_shift = DEFAULT_SHIFT;                                    \
                                                                                            \
	struct {                                                                            \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                           \
		__uint(max_entries, 1); /* the number of possible CPUs */                   \
		__uint(map_flags, BPF_F_MMAPABLE);                                          \
		__type(key, __u32);                                                         \
		__type(value, struct rec_ring_ctl);                                         \
	} ring_ctl SEC(".maps");                                                            \
                                                                                            \
	struct {                                                                            \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                           \
		__uint(max_entries, 1); /* possible CPUs << ring_shift */                   \
		__uint(map_flags, BPF_F_MMAPABLE);                                          \
		__type(key, __u32);                                                         \
		__type(value, REC_T);                                                       \
	} ring_buf SEC(".maps");                                                            \
                                                                                            \
	/* Claims this CPU's next record: the record to fill at *pos, or NULL. *full: the   \
	 * ring had no room (a drop for the caller to count); NULL without it cannot happen \
	 * (record/ sized the array): the claimed record stays a hole, which record/ skips   \
	 * after a while and counts as a drop. */                                           \
	static __always_inline REC_T *ring_claim(__u64 *pos, bool *full)                    \
	{                                                                                   \
		__u32 cpu = bpf_get_smp_processor_id(), idx;                                \
		__u64 n = 1ull << ring_shift;                                               \
		struct rec_ring_ctl *c = bpf_map_lookup_elem(&ring_ctl, &cpu);              \
                                                                                            \
		*full = !c || c->head - *(volatile __u64 *)&c->tail > n - REC_RING_SLACK;   \
		if (*full)                                                                  \
			return NULL;                                                        \
		*pos = __sync_fetch_and_add(&c->head, 1);                                   \
		idx = (cpu << ring_shift) | (__u32)(*pos & (n - 1));                        \
		return bpf_map_lookup_elem(&ring_buf, &idx);                                \
	}

/*
 * Publishes a filled record: seq must become visible after the fill. x86 keeps stores in program
 * order (TSO) and the JIT emits them as written, so a compiler barrier and a plain store do; the
 * atomic exchange elsewhere is a full barrier (JITs emit it fully ordered). The exchange is a
 * locked instruction on x86, on the path of every recorded I/O or call.
 */
#if defined(__TARGET_ARCH_x86)
#define ring_publish(rec, pos)                                    \
	do {                                                      \
		asm volatile("" ::: "memory");                    \
		*(volatile __u64 *)&(rec)->seq = (pos) + 1;       \
	} while (0)
#else
#define ring_publish(rec, pos) __sync_lock_test_and_set(&(rec)->seq, (pos) + 1)
#endif

#endif
