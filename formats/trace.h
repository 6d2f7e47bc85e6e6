/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The .ioreel trace container: a streaming writer and a batch reader.
 * Byte layout and versioning rules: formats/FORMAT.md.
 *
 * Functions return 0 (or a count) on success and -errno on failure; the handle keeps a
 * human-readable description of the last failure (with the file offset where it applies)
 * for the verb to print: trace_reader__error(), trace_writer__error().
 */
#ifndef IOREEL_FORMATS_TRACE_H
#define IOREEL_FORMATS_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "formats/event.h"
#include "formats/file.h"

#define TRACE_MAX_DEVICES 64
#define TRACE_MAX_STREAMS 1024
/* The deepest stream a header may claim (synth's iodepth limit, fio's too) */
#define TRACE_MAX_STREAM_DEPTH 65536

enum trace_mode {
	TRACE_MODE_TIMED = 0,  /* each I/O at its recorded time (recorded, imported traces) */
	TRACE_MODE_CLOSED = 1, /* keep each stream's depth in flight (synthesized fio-like jobs) */
};

/* What the events describe (header tag 32; absent in 1.0 files, which are all block-level). */
enum trace_level {
	TRACE_LEVEL_BLOCK = 0, /* block I/O of devices: struct io_event */
	TRACE_LEVEL_FILE = 1,  /* calls on files: io_event + io_fext, and a file table */
};

struct trace_device {
	char name[64];	/* "nvme0n1p2", "zram0", or the imported file's device id */
	uint32_t major; /* 0:0 when unknown (imported traces) */
	uint32_t minor;
	uint64_t size_bytes; /* 0 when unknown */
	uint32_t logical_block_size;
	uint32_t physical_block_size;
	char model[64];
};

/* What a stream's record says (formats/FORMAT.md, "Streams"); format 1.1 and later. */
enum trace_stream_flags {
	TRACE_STREAM_TIME_BASED = 1 << 0, /* cycle the stream's events until runtime_ns */
	TRACE_STREAM_REL = 1 << 1,	  /* offsets are relative to a region of the target */
	TRACE_STREAM_SCALE = 1 << 2,	  /* REL: scale offsets from [0, rel_span) onto it */
	/* 1.5: set whenever the think or latency-target fields are, so that a 1.4 reader, which
	 * would take the record's first 64 bytes and replay without them, refuses it instead */
	TRACE_STREAM_THINK = 1 << 3,	    /* closed mode: pause as fio's thinktime */
	TRACE_STREAM_THINK_ISSUE = 1 << 4,  /* THINK: count issued I/Os, not completed ones */
	TRACE_STREAM_LAT_TARGET = 1 << 5,   /* closed mode: search the depth as latency_target */
	TRACE_STREAM_LAT_RUN = 1 << 6,	    /* LAT_TARGET: keep searching once it settled */
	/* 1.7: a closed-loop stream capped by a rate (fio's rate and rate_iops in a file with
	 * unrated jobs), and a stream whose end ends others (fio's exitall) */
	TRACE_STREAM_RATE = 1 << 7,	    /* closed mode: at most rate_bps per direction */
	TRACE_STREAM_EXIT = 1 << 8,	    /* closed mode: its end ends its exit group */
	TRACE_STREAM_EXIT_RUNNING = 1 << 9, /* EXIT: it ends every stream of its group */
	/* after 1.8: a walk back over a relative region (fio's rw=read:-N, no size) */
	TRACE_STREAM_BACK = 1 << 10,	    /* REL: bit 63 of an offset: back from the end */
	TRACE_STREAM__ALL = (1 << 11) - 1,
};

struct trace_stream {
	uint32_t depth;	     /* closed mode: I/Os of this stream kept in flight */
	uint32_t flags;	     /* enum trace_stream_flags */
	uint32_t group;	     /* closed mode: starts once every stream of a lower group ended */
	uint32_t rel_align;  /* REL: region bounds and scaled offsets are multiples of this */
	uint64_t runtime_ns; /* closed mode: the stream stops this long after it starts; 0: never */
	uint64_t ios;	     /* closed mode: I/Os to issue, cycling the events; 0: the events once */
	uint64_t delay_ns;   /* closed mode: the stream starts this long after its group */
	/* REL: the region is [start, start + len) with start = rel_base + target * start_ppm / 1e6
	 * and len = target * len_ppm / 1e6, or the rest of the target when len_ppm is 0. */
	uint64_t rel_base;
	uint32_t rel_start_ppm, rel_len_ppm;
	uint64_t rel_span; /* SCALE: offsets lie in [0, rel_span); else the sequential stride that
			    * wraps (0: offsets wrap at the region's length) */
	/* BACK (1.8, bit 10): an offset with bit 63 set is d = the rest, a distance back from the
	 * region's end of a walk that steps back rel_back_step bytes per I/O and, past the
	 * start, starts over rel_back_add bytes before the end (fio's rw=read:-N: N is
	 * rel_back_add, N - bs rel_back_step); trace_stream_offset() places it */
	uint32_t rel_back_add, rel_back_step;
	/* THINK (1.5): after every think_blocks I/Os (0: not set, which is 1 unless think_iotime
	 * is set) or think_iotime_ns of I/O, drain the stream, spin think_spin_ns, then sleep the
	 * rest of think_ns (fio's thinktime, thinktime_blocks, thinktime_spin,
	 * thinktime_iotime) */
	uint64_t think_ns, think_spin_ns, think_iotime_ns;
	uint32_t think_blocks;
	/* LAT_TARGET (1.5): the depth, at most `depth`, whose I/Os meet lat_target_ns at
	 * lat_pct_ppm (millionths: 100 % = 1000000) over each lat_window_ns (fio's
	 * latency_target, latency_percentile, latency_window) */
	uint32_t lat_pct_ppm;
	uint64_t lat_target_ns, lat_window_ns;
	/* RATE (1.7): an I/O of direction d (read, write, trim) waits until the stream has run
	 * (bytes of d issued before it) / rate_bps[d] seconds, its I/O in flight drained first
	 * (fio's rate, rate_ddir); 0: no cap on d */
	uint64_t rate_bps[3];
	/* EXIT (1.7): when the stream ends, the streams of its group with the same exit_group
	 * end too (EXIT_RUNNING: every stream of its group); fio's exitall, exit_what and the
	 * reporting group (new_group) */
	uint32_t exit_group;
};

/* Everything the header says about a trace. */
struct trace_meta {
	uint32_t version; /* format version of the file (set by the writer, read by the reader) */
	char tool_version[32];
	char host[64];
	char kernel[128];
	char source[32];   /* "record", "replay", "synth", "import:fio-v3", ... */
	char options[1024]; /* the command line or options that produced the trace */
	uint64_t genesis_realtime_ns; /* CLOCK_REALTIME at t = 0; 0 when unknown */
	uint32_t mode;		      /* enum trace_mode */
	uint32_t time_based;	      /* closed mode: run for runtime_ns, cycling the events */
	uint64_t runtime_ns;	      /* closed mode with time_based */
	uint32_t ndevices;
	uint32_t nstreams;
	uint32_t level; /* enum trace_level */
	/* read: the header carried a checksum and it matched (format 1.4 and later); false for an
	 * older file, whose header damage cannot be told (`info` says so) */
	bool header_checked;
	struct trace_device devices[TRACE_MAX_DEVICES];
	struct trace_stream streams[TRACE_MAX_STREAMS];
};

/* What the writer learns only at the end; stored in the trailing index (absent if killed). */
struct trace_stats {
	uint64_t events;  /* events written */
	uint64_t dropped; /* I/Os the producer knows it lost (recorder drops) */
	uint64_t dropped_reserve; /* of which: BPF ring buffer full */
	uint64_t dropped_inflight; /* of which: in-flight table full */
	uint64_t end_ns; /* when the producer stopped (ns since genesis); 0 when unknown */
};

/* ---- writer ---- */

struct trace_writer;

struct trace_writer_opts {
	uint32_t chunk_events; /* events per chunk; 0 = default (65536) */
	int zstd_level;	       /* 0 = default (3) */
	bool sync;	       /* fdatasync after each chunk (the recorder's crash promise) */
	/* Write under a temporary name beside path (util/outfile.h): close renames it into place,
	 * abort removes it, so path never holds a half-written trace. A path that is not a regular
	 * file (a device, a FIFO) is written in place. Off for the recorder, whose trace must be
	 * readable under its name after kill -9. */
	bool replace;
};

/*
 * How busy the host was during one interval of a recording (format 1.6): CPU time summed over
 * the host's CPUs, in microseconds, by the recorded threads (those with a recorded call or
 * I/O), by other user tasks and by kernel threads (the recorder's own threads excluded).
 * An entry lasts until the next one starts; a recording ends with an empty entry at its end.
 */
struct trace_cpu_load {
	uint64_t start_ns; /* since genesis */
	uint32_t traced_us;
	uint32_t other_us;
	uint32_t kthread_us;
};

#define TRACE_CPU_LOAD_FRAME 65536u /* entries per CPU load frame (11 minutes of 10 ms) */

/* Creates path (mode 0600, truncating; see opts.replace) and writes the header. NULL + errno
 * on failure. */
struct trace_writer *trace_writer__open(const char *path, const struct trace_meta *meta,
					const struct trace_writer_opts *opts);
/* Appends n events; encodes and writes a chunk each time one fills. Memory stays bounded.
 * Block-level traces only (-EMEDIUMTYPE on a file-level writer). */
int trace_writer__add(struct trace_writer *w, const struct io_event *ev, size_t n);
/*
 * File-level traces (meta.level TRACE_LEVEL_FILE). add_files adds file-table entries, whose ids
 * must continue 1, 2, ...; they are written before the chunk that holds the next events, so
 * add a file before the events that name it. add_fevents appends n events, each an io_event and
 * its io_fext (ev[i] with x[i]); a file id must be in the table already. set_counters keeps named
 * counters (copied) for the close. Each returns 0 or -errno (message in trace_writer__error()).
 */
int trace_writer__add_files(struct trace_writer *w, const struct trace_file *f, size_t n);
int trace_writer__add_fevents(struct trace_writer *w, const struct io_event *ev,
			      const struct io_fext *x, size_t n);
int trace_writer__set_counters(struct trace_writer *w, const struct trace_counter *c, size_t n);
/* Appends host CPU load entries (either level; 1.6): ncpus and interval_ns must be the same in
 * every call. Written in frames of up to TRACE_CPU_LOAD_FRAME entries as they come. */
int trace_writer__add_cpu_load(struct trace_writer *w, uint32_t ncpus, uint32_t interval_ns,
			       const struct trace_cpu_load *l, size_t n);
/* Ends the current chunk early and writes it out (a recorder does this once a second). */
int trace_writer__flush(struct trace_writer *w);
/* Bytes written to the file so far (header + chunks). */
uint64_t trace_writer__bytes(const struct trace_writer *w);
/* Events in the chunks written to the file so far (not those still being gathered). */
uint64_t trace_writer__events(const struct trace_writer *w);
/* Flushes, writes the index with stats (may be NULL) and closes. Frees w even on error. After
 * a failed write (-EIO returned), the events not written are lost, and the counters, CPU load
 * and index of what was written go in if they fit (a recorder on a full disk). */
int trace_writer__close(struct trace_writer *w, const struct trace_stats *stats);
/* Abandons the file as it is (no index), e.g. after a write error; with opts.replace the
 * temporary file is removed and path is left as it was. */
void trace_writer__abort(struct trace_writer *w);
const char *trace_writer__error(const struct trace_writer *w);

/* ---- reader ---- */

struct trace_reader;

enum trace_reader_flags {
	TRACE_SALVAGE = 1 << 0, /* skip damaged chunks (each reported once) instead of failing */
};

struct trace_chunk_info {
	uint64_t file_offset; /* where the chunk starts */
	uint64_t file_bytes;  /* its size on disk */
	uint32_t count;
	uint64_t first_ns; /* min io_event_time() of its events */
	uint64_t last_ns;  /* max io_event_time() */
};

/* Opens and validates the header; reads the index if present, otherwise scans. NULL + errno;
 * *why (if non-NULL) gets the message, which names the file ("PATH: ..."), as does
 * trace_reader__error(): a caller prints it as it is. */
struct trace_reader *trace_reader__open(const char *path, unsigned int flags, char *why,
					size_t why_len);
/* The same, its messages calling the file name instead of path (convert reads a piped trace
 * through /proc/self/fd/N of its spooled copy, and names it "-" or the pipe's name). */
struct trace_reader *trace_reader__open_as(const char *path, const char *name, unsigned int flags,
					   char *why, size_t why_len);
const struct trace_meta *trace_reader__meta(const struct trace_reader *r);
/* Stats from the index, or NULL when the file has no index (recorder killed). */
const struct trace_stats *trace_reader__stats(const struct trace_reader *r);
bool trace_reader__has_index(const struct trace_reader *r);
size_t trace_reader__chunk_count(const struct trace_reader *r);
const struct trace_chunk_info *trace_reader__chunk(const struct trace_reader *r, size_t i);
uint64_t trace_reader__file_bytes(const struct trace_reader *r);
/* Events in the file (sum of chunk counts). */
uint64_t trace_reader__event_count(const struct trace_reader *r);
/* True when every event's time is >= the previous one's (file order is time order). */
bool trace_reader__is_sorted(const struct trace_reader *r);
/* Fills up to cap events in file order; returns the count, 0 at the end, -errno on a damaged
 * chunk (message in trace_reader__error(), with the chunk's file offset). A file-level trace
 * is refused here with -EMEDIUMTYPE and a message saying so: use trace_reader__next_file(). */
long trace_reader__next(struct trace_reader *r, struct io_event *buf, size_t cap);
/* The same for a file-level trace: ev[i] and x[i] are the two halves of event i. -EMEDIUMTYPE
 * on a block-level trace. */
long trace_reader__next_file(struct trace_reader *r, struct io_event *ev, struct io_fext *x,
			     size_t cap);
/* The file table of a file-level trace (all of it, read at open): entries with ids 1..count;
 * trace_reader__file(r, id) is NULL for an id not in it. */
size_t trace_reader__file_count(const struct trace_reader *r);
const struct trace_file *trace_reader__file(const struct trace_reader *r, uint32_t id);
/* The CPU load entries of the trace (all, in time order; read at open): their count, 0 when the
 * recording did not measure it; *ncpus and *interval_ns set when there are some. */
size_t trace_reader__cpu_load(const struct trace_reader *r, const struct trace_cpu_load **l,
			      uint32_t *ncpus, uint32_t *interval_ns);
/* Named counters the writer stored at close (none when killed or not given). */
size_t trace_reader__counter_count(const struct trace_reader *r);
const struct trace_counter *trace_reader__counter(const struct trace_reader *r, size_t i);
/* Positions at the first chunk that may hold events at or after t_ns (via the index). */
int trace_reader__seek(struct trace_reader *r, uint64_t t_ns);
/* Rewinds to the first event. */
int trace_reader__rewind(struct trace_reader *r);
/* Chunks skipped as damaged so far (TRACE_SALVAGE). */
uint64_t trace_reader__damaged_chunks(const struct trace_reader *r);
const char *trace_reader__error(const struct trace_reader *r);
/* What open had to work around (no index, dropped incomplete last chunk), or NULL. */
const char *trace_reader__notice(const struct trace_reader *r);
void trace_reader__close(struct trace_reader *r);

/* ---- several traces as one (formats/merge.c) ---- */

struct trace_merge;

enum trace_merge_flags {
	/* pids and tids tagged with their trace (bits 22 and up), so threads of different
	 * hosts are never taken for one (dependency inference groups I/Os by thread) */
	TRACE_MERGE_TIDS = 1 << 0,
};

/*
 * Opens n traces to be read as one, in time order. One device table and one stream table
 * hold every trace's (trace i's device d becomes trace_merge__dev_base(i) + d); trace i's
 * times are shifted by shift_ns[i] (NULL: none). The merged header is the first trace's,
 * with genesis_realtime_ns the earliest genesis less its shift. NULL + errno, message in err.
 */
struct trace_merge *trace_merge__open(const char *const *paths, unsigned int n,
				      const uint64_t *shift_ns, unsigned int reader_flags,
				      unsigned int flags, char *err, size_t errlen);
const struct trace_meta *trace_merge__meta(const struct trace_merge *m);
unsigned int trace_merge__dev_base(const struct trace_merge *m, unsigned int src);
/* Trace src's own reader (its header, index and stats); do not read events from it. */
struct trace_reader *trace_merge__reader(const struct trace_merge *m, unsigned int src);
/* The next event of all traces by time (ties: the earlier trace); *src (may be NULL) gets
 * its trace. 1, 0 at the end, -errno on a damaged chunk (message in trace_merge__error). */
int trace_merge__next(struct trace_merge *m, struct io_event *ev, unsigned int *src);
int trace_merge__rewind(struct trace_merge *m);
const char *trace_merge__error(const struct trace_merge *m);
void trace_merge__close(struct trace_merge *m);
/*
 * Where a REL stream's event lands on a target of target_size bytes: its byte offset, within
 * the stream's region (formats/FORMAT.md, "Streams"). *region_len gets the region's length (0
 * when the target is too small for the region; the offset is then the region's start).
 */
uint64_t trace_stream_offset(const struct trace_stream *s, uint64_t offset, uint64_t target_size,
			     uint64_t *region_len);
/* The closed-mode end of a stream after issued I/Os at elapsed ns since it started. */
bool trace_stream_ended(const struct trace_stream *s, uint64_t nevents, uint64_t issued,
			uint64_t elapsed_ns);

/* Fills host, kernel, tool_version, genesis_realtime_ns of a fresh meta (zeroed otherwise). */
void trace_meta_init(struct trace_meta *m, const char *source);
/* Adds a device; returns its index or -ENOSPC. */
int trace_meta_add_device(struct trace_meta *m, const struct trace_device *d);

#endif
