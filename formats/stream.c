// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a stream record means (formats/FORMAT.md, "Streams"): where a stream's offsets land
 * on a target whose size is known only at replay, and when a closed-loop stream is done.
 * Kept with the format so every reader applies one rule.
 */
#include "formats/trace.h"

static uint64_t ppm_of(uint64_t size, uint32_t ppm)
{
	return (uint64_t)((unsigned __int128)size * ppm / 1000000u);
}

/*
 * A backwards walk (fio's get_next_seq_offset with a negative add): from position p the next
 * is p - step, and once that would fall below the start, len - add. Its positions are
 * len - a, len - a - step, ... down to r = (len - a) % step, then len - a again: the
 * distances back from the end cycle through a, a + step, ..., len - r, n = (len - a) / step
 * + 1 of them. Distance d of the trace (a, a + step, ... as the walk goes on without an end)
 * lands at len - (a + (d - a) mod (n * step)); d = 0 is the region's start (fio's first I/O
 * when the region starts the file, whatever r is).
 */
static uint64_t back_pos(const struct trace_stream *s, uint64_t d, uint64_t len)
{
	uint64_t a = s->rel_back_add, g = s->rel_back_step, w, m, back;

	if (len < a || !d)
		return 0;
	w = ((len - a) / g + 1) * g;
	m = d >= a ? (d - a) % w : (w - (a - d) % w) % w;
	back = a + m;
	return back > len ? 0 : len - back;
}

uint64_t trace_stream_offset(const struct trace_stream *s, uint64_t offset, uint64_t target_size,
			     uint64_t *region_len)
{
	uint64_t align = s->rel_align ? s->rel_align : 1, start, len, w;

	if (!(s->flags & TRACE_STREAM_REL)) {
		*region_len = target_size;
		return offset;
	}
	start = (s->rel_base + ppm_of(target_size, s->rel_start_ppm)) / align * align;
	if (start >= target_size) {
		*region_len = 0;
		return start;
	}
	len = s->rel_len_ppm ? ppm_of(target_size, s->rel_len_ppm) : target_size - start;
	if (len > target_size - start)
		len = target_size - start;
	len = len / align * align;
	*region_len = len;
	if (!len)
		return start;
	if (s->flags & TRACE_STREAM_SCALE) {
		/* A random pattern drawn over [0, rel_span): the same fractions of the region. */
		uint64_t off = (uint64_t)((unsigned __int128)offset * len / s->rel_span);

		return start + off / align * align;
	}
	if ((s->flags & TRACE_STREAM_BACK) && (offset >> 63))
		return start + back_pos(s, offset & ~(1ULL << 63), len);
	/* A sequential pattern: fio restarts it at the region's start once it passes the end;
	 * with a constant stride the pass holds ceil(len / stride) I/Os. Rounded up without
	 * len + rel_span - 1, which a header's stride near 2^64 wraps to a w of 0. */
	w = s->rel_span && len % s->rel_span ? len - len % s->rel_span + s->rel_span : len;
	return start + offset % w;
}

bool trace_stream_ended(const struct trace_stream *s, uint64_t nevents, uint64_t issued,
			uint64_t elapsed_ns)
{
	if (!nevents)
		return true;
	if (s->runtime_ns && elapsed_ns >= s->runtime_ns)
		return true;
	if (s->ios)
		return issued >= s->ios;
	if ((s->flags & TRACE_STREAM_TIME_BASED) && s->runtime_ns)
		return false;
	return issued >= nevents;
}
