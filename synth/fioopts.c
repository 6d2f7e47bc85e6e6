// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What ioreel does with every fio option it knows (synth/FIO.md has the same table for
 * people): options that shape the I/O are applied by synth_job_set(); options that only
 * concern how fio runs, measures or reports are accepted and listed as ignored; options whose
 * effect ioreel does not reproduce refuse the job, saying why. An option in none of these
 * lists refuses the job too: ioreel cannot say what it would do to the pattern.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "synth/fio.h"

#define P FIO_OPT_PATTERN
#define I FIO_OPT_IGNORED
#define R FIO_OPT_REFUSED

static const char REPORT[] = "reporting and logging";
static const char PROC[] = "process, CPU and memory placement";
static const char SUBMIT[] = "how fio submits and reaps; replay has its own engine";
static const char WHERE[] = "where the I/O goes: replay's --target or --map";
static const char FILES[] = "file creation and cache handling around the I/O";
static const char ERRORS[] = "error handling";
static const char DATA[] = "the data written or checked: a trace carries no data, replay "
			   "writes its own (--write-data)";
static const char HINTS[] = "device hints and priorities a trace does not carry";
static const char CHECKS[] = "checks and stop rules on measured performance: replay runs the "
			     "full runtime";
static const char ZBD[] = "zoned-device settings, used by zonemode=zbd only";
static const char ENGINE_OPT[] = "options of an I/O engine";

static const struct fio_optdef opts[] = {
	/* the pattern (synth/options.c) */
	{ "rw", P, NULL }, { "readwrite", P, NULL }, { "rw_sequencer", P, NULL },
	{ "rwmixread", P, NULL }, { "rwmixwrite", P, NULL }, { "bs", P, NULL },
	{ "blocksize", P, NULL }, { "bssplit", P, NULL }, { "bsrange", P, NULL },
	{ "blocksize_range", P, NULL }, { "blockalign", P, NULL }, { "ba", P, NULL },
	{ "bs_unaligned", P, NULL }, { "blocksize_unaligned", P, NULL }, { "size", P, NULL },
	{ "filesize", P, NULL }, { "offset", P, NULL }, { "fileoffset", P, NULL },
	{ "offset_increment", P, NULL }, { "offset_align", P, NULL }, { "io_size", P, NULL },
	{ "io_limit", P, NULL }, { "number_ios", P, NULL }, { "iodepth", P, NULL },
	{ "numjobs", P, NULL }, { "fsync", P, NULL }, { "fdatasync", P, NULL },
	{ "end_fsync", P, NULL }, { "fsync_on_close", P, NULL }, { "end_syncfs", P, NULL },
	{ "write_barrier", P, NULL }, { "randseed", P, NULL }, { "loops", P, NULL },
	{ "runtime", P, NULL }, { "timeout", P, NULL }, { "ramp_time", P, NULL },
	{ "startdelay", P, NULL }, { "thinktime", P, NULL }, { "time_based", P, NULL },
	{ "norandommap", P, NULL }, { "sync", P, NULL }, { "writefua", P, NULL },
	{ "readfua", P, NULL }, { "rate", P, NULL }, { "rate_iops", P, NULL },
	{ "rate_process", P, NULL }, { "random_distribution", P, NULL },
	{ "random_sequence_stride", P, NULL }, { "percentage_random", P, NULL },
	{ "percentage_sequential", P, NULL }, { "ioengine", P, NULL }, { "direct", P, NULL },
	{ "buffered", P, NULL }, { "filename", P, NULL }, { "nrfiles", P, NULL },
	{ "file_service_type", P, NULL }, { "stat_type", P, NULL }, { "openfiles", P, NULL },
	{ "nr_files", P, NULL }, { "fill_device", P, NULL }, { "fill_fs", P, NULL },
	{ "zonemode", P, NULL }, { "zonesize", P, NULL }, { "zonerange", P, NULL },
	{ "zoneskip", P, NULL }, { "verify", P, NULL }, { "do_verify", P, NULL },
	{ "verify_backlog", P, NULL }, { "write_mode", P, NULL }, { "sg_write_mode", P, NULL },
	{ "num_range", P, NULL }, { "stonewall", P, NULL }, { "wait_for_previous", P, NULL },
	{ "wait_for", P, NULL }, { "exitall", P, NULL }, { "exit_what", P, NULL },
	{ "new_group", P, NULL }, { "name", P, NULL },
	{ "flow", P, NULL }, { "flow_id", P, NULL },
	{ "thinktime_spin", P, NULL }, { "thinktime_blocks", P, NULL },
	{ "thinktime_blocks_type", P, NULL }, { "thinktime_iotime", P, NULL },
	{ "latency_target", P, NULL }, { "latency_window", P, NULL },
	{ "latency_percentile", P, NULL }, { "latency_run", P, NULL },
	{ "kb_base", P, NULL },
	{ "sprandom", P, NULL }, { "spr_op", P, NULL }, { "spr_num_regions", P, NULL },
	{ "spr_cs", P, NULL }, { "random_generator", P, NULL },

	/* fio's own machinery */
	{ "group_reporting", I, REPORT }, { "description", I, REPORT }, { "stats", I, REPORT }, { "percentile_list", I, REPORT },
	{ "clat_percentiles", I, REPORT }, { "lat_percentiles", I, REPORT },
	{ "slat_percentiles", I, REPORT }, { "disable_lat", I, REPORT },
	{ "disable_clat", I, REPORT }, { "disable_slat", I, REPORT }, { "disable_bw", I, REPORT },
	{ "disable_bw_measurement", I, REPORT }, { "gtod_reduce", I, REPORT },
	{ "gtod_cpu", I, REPORT }, { "clocksource", I, REPORT }, { "unit_base", I, REPORT },
	{ "unified_rw_reporting", I, REPORT }, { "write_bw_log", I, REPORT },
	{ "write_lat_log", I, REPORT }, { "write_iops_log", I, REPORT },
	{ "write_hist_log", I, REPORT }, { "write_iolog", I, REPORT }, { "log_avg_msec", I, REPORT },
	{ "log_hist_msec", I, REPORT }, { "log_hist_coarseness", I, REPORT },
	{ "log_max_value", I, REPORT }, { "log_offset", I, REPORT }, { "log_prio", I, REPORT },
	{ "log_issue_time", I, REPORT }, { "log_compression", I, REPORT },
	{ "log_compression_cpus", I, REPORT }, { "log_store_compressed", I, REPORT },
	{ "log_unix_epoch", I, REPORT }, { "log_alternate_epoch", I, REPORT },
	{ "log_alternate_epoch_clock_id", I, REPORT }, { "log_entries", I, REPORT },
	{ "log_window_value", I, REPORT }, { "per_job_logs", I, REPORT },
	{ "significant_figures", I, REPORT }, { "block_error_percentiles", I, REPORT },
	{ "bwavgtime", I, REPORT }, { "iopsavgtime", I, REPORT }, { "disk_util", I, REPORT },
	{ "job_start_clock_id", I, REPORT },
	{ "thread", I, PROC }, { "threads", I, PROC }, { "cpus_allowed", I, PROC },
	{ "cpus_allowed_policy", I, PROC }, { "cpumask", I, PROC }, { "numa_cpu_nodes", I, PROC },
	{ "numa_mem_policy", I, PROC }, { "nice", I, PROC }, { "uid", I, PROC }, { "gid", I, PROC },
	{ "cgroup", I, PROC }, { "cgroup_weight", I, PROC }, { "cgroup_nodelete", I, PROC },
	{ "lockmem", I, PROC }, { "mem", I, PROC }, { "iomem", I, PROC }, { "iomem_align", I, PROC },
	{ "mem_align", I, PROC }, { "hugepage-size", I, PROC }, { "verify_async_cpus", I, PROC },
	{ "exec_prerun", I, PROC }, { "exec_postrun", I, PROC },
	{ "iodepth_batch", I, SUBMIT }, { "iodepth_batch_submit", I, SUBMIT },
	{ "iodepth_batch_complete", I, SUBMIT }, { "iodepth_batch_complete_min", I, SUBMIT },
	{ "iodepth_batch_complete_max", I, SUBMIT }, { "iodepth_low", I, SUBMIT },
	{ "io_submit_mode", I, SUBMIT }, { "sqthread_poll", I, SUBMIT },
	{ "sqthread_poll_cpu", I, SUBMIT }, { "registerfiles", I, SUBMIT },
	{ "fixedbufs", I, SUBMIT }, { "nonvectored", I, SUBMIT }, { "hipri", I, SUBMIT },
	{ "busy_poll", I, SUBMIT }, { "cmd_type", I, SUBMIT }, { "force_async", I, SUBMIT },
	{ "rwmixcycle", I, SUBMIT }, { "randrepeat", I, SUBMIT },
	{ "allrandrepeat", I, SUBMIT }, { "serialize_overlap", I, SUBMIT },
	{ "softrandommap", I, SUBMIT }, { "rate_ignore_thinktime", I, SUBMIT },
	{ "flow_sleep", I, SUBMIT }, { "flow_watermark", I, SUBMIT }, { "ratecycle", I, SUBMIT }, { "rate_cycle", I, SUBMIT },
	{ "uncached", I, SUBMIT },
	{ "directory", I, WHERE }, { "filename_format", I, WHERE }, { "unique_filename", I, WHERE }, { "filetype", I, WHERE },
	{ "ioscheduler", I, WHERE }, { "allow_mounted_write", I, WHERE },
	{ "libblkio_driver", I, WHERE }, { "libblkio_path", I, WHERE }, { "uri", I, WHERE },
	{ "clientname", I, WHERE }, { "pool", I, WHERE }, { "rbdname", I, WHERE },
	{ "conf", I, WHERE }, { "cont", I, WHERE }, { "volume", I, WHERE }, { "brick", I, WHERE },
	{ "nfs_url", I, WHERE }, { "gpu_dev_id", I, WHERE }, { "gpu_dev_ids", I, WHERE },
	{ "cuda_io", I, WHERE }, { "rocm_io", I, WHERE }, { "namenode", I, WHERE },
	{ "hdfsdirectory", I, WHERE }, { "chunk_size", I, WHERE }, { "single_instance", I, WHERE },
	{ "hostname", I, WHERE }, { "port", I, WHERE },
	{ "allow_file_create", I, FILES }, { "create_on_open", I, FILES },
	{ "create_serialize", I, FILES }, { "create_fsync", I, FILES }, { "create_only", I, FILES },
	{ "fallocate", I, FILES }, { "overwrite", I, FILES }, { "unlink", I, FILES },
	{ "unlink_each_loop", I, FILES }, { "lockfile", I, FILES }, { "invalidate", I, FILES },
	{ "fadvise_hint", I, FILES }, { "pre_read", I, FILES },
	{ "opendir", I, FILES }, { "skip_bad", I, FILES },
	{ "continue_on_error", I, ERRORS }, { "ignore_error", I, ERRORS },
	{ "error_dump", I, ERRORS }, { "exitall_on_error", I, ERRORS },
	{ "buffer_pattern", I, DATA }, { "buffer_compress_percentage", I, DATA },
	{ "buffer_compress_chunk", I, DATA }, { "dedupe_percentage", I, DATA },
	{ "dedupe_mode", I, DATA }, { "dedupe_working_set_percentage", I, DATA },
	{ "dedupe_global", I, DATA }, { "refill_buffers", I, DATA },
	{ "scramble_buffers", I, DATA }, { "zero_buffers", I, DATA }, { "verify_pattern", I, DATA },
	{ "verify_pattern_interval", I, DATA }, { "verify_interval", I, DATA },
	{ "verify_offset", I, DATA }, { "verify_header_seed", I, DATA },
	{ "verify_write_sequence", I, DATA }, { "verify_dump", I, DATA },
	{ "verify_fatal", I, DATA }, { "verify_async", I, DATA }, { "verify_state_save", I, DATA },
	{ "verify_state_load", I, DATA }, { "verifysort", I, DATA }, { "verifysort_nr", I, DATA },
	{ "verify_backlog_batch", I, DATA }, { "verify_policy", I, DATA },
	{ "experimental_verify", I, DATA }, { "trim_verify_zero", I, DATA },
	{ "pi_act", I, DATA }, { "pi_chk", I, DATA }, { "apptag", I, DATA },
	{ "apptag_mask", I, DATA }, { "md_per_io_size", I, DATA },
	{ "fdp", I, HINTS }, { "fdp_pli", I, HINTS }, { "fdp_pli_select", I, HINTS },
	{ "plids", I, HINTS }, { "plid_select", I, HINTS }, { "dataplacement", I, HINTS },
	{ "data_placement", I, HINTS }, { "dp_scheme", I, HINTS }, { "write_hint", I, HINTS },
	{ "prio", I, HINTS }, { "prioclass", I, HINTS }, { "priohint", I, HINTS },
	{ "cmdprio", I, HINTS }, { "cmdprio_class", I, HINTS }, { "cmdprio_percentage", I, HINTS },
	{ "cmdprio_bssplit", I, HINTS }, { "cmdprio_hint", I, HINTS }, { "atomic", I, HINTS },
	{ "rate_min", I, CHECKS }, { "ratemin", I, CHECKS }, { "rate_iops_min", I, CHECKS },
	{ "max_latency", I, CHECKS }, { "steadystate", I, CHECKS }, { "ss", I, CHECKS },
	{ "steadystate_duration", I, CHECKS }, { "ss_dur", I, CHECKS },
	{ "steadystate_ramp_time", I, CHECKS }, { "ss_ramp", I, CHECKS },
	{ "steadystate_check_interval", I, CHECKS }, { "ss_interval", I, CHECKS },
	{ "max_open_zones", I, ZBD }, { "job_max_open_zones", I, ZBD },
	{ "ignore_zone_limits", I, ZBD }, { "zonecapacity", I, ZBD }, { "read_beyond_wp", I, ZBD },
	{ "zone_reset_threshold", I, ZBD }, { "zone_reset_frequency", I, ZBD },
	{ "write_zone_remainder", I, ZBD }, { "recover_zbd_write_error", I, ZBD },
	/* engines ioreel refuses anyway, so their options never decide */
	{ "protocol", I, ENGINE_OPT }, { "listen", I, ENGINE_OPT }, { "pingpong", I, ENGINE_OPT },
	{ "ttl", I, ENGINE_OPT }, { "verb", I, ENGINE_OPT }, { "https", I, ENGINE_OPT },
	{ "http_verbose", I, ENGINE_OPT }, { "http_mode", I, ENGINE_OPT },
	{ "http_host", I, ENGINE_OPT }, { "http_s3_key", I, ENGINE_OPT },
	{ "http_s3_keyid", I, ENGINE_OPT }, { "http_s3_region", I, ENGINE_OPT },
	{ "http_s3_storage_class", I, ENGINE_OPT }, { "http_s3_sse_customer_key", I, ENGINE_OPT },
	{ "http_s3_sse_customer_algorithm", I, ENGINE_OPT },
	{ "http_swift_auth_token", I, ENGINE_OPT }, { "cpuload", I, ENGINE_OPT },
	{ "cpumode", I, ENGINE_OPT }, { "cpuchunks", I, ENGINE_OPT }, { "program", I, ENGINE_OPT },
	{ "arguments", I, ENGINE_OPT }, { "grace_time", I, ENGINE_OPT },
	{ "std_redirect", I, ENGINE_OPT }, { "inplace", I, ENGINE_OPT },
	{ "donorname", I, ENGINE_OPT },

	/* what ioreel does not reproduce */

	{ "thinkcycles", R, "CPU work between I/Os is not modeled" },
	{ "read_iolog", R, "replays an I/O log: convert it with ioreel convert and replay that" },
	{ "read_iolog_chunked", R, "replays an I/O log: use ioreel convert" },
	{ "replay_no_stall", R, "replays an I/O log: use ioreel convert" },
	{ "replay_redirect", R, "replays an I/O log: use ioreel convert" },
	{ "replay_align", R, "replays an I/O log: use ioreel convert" },
	{ "replay_scale", R, "replays an I/O log: use ioreel convert" },
	{ "replay_time_scale", R, "replays an I/O log: use ioreel convert" },
	{ "replay_skip", R, "replays an I/O log: use ioreel convert" },
	{ "merge_blktrace_file", R, "merges blktraces: use ioreel convert" },
	{ "merge_blktrace_scalars", R, "merges blktraces: use ioreel convert" },
	{ "merge_blktrace_iters", R, "merges blktraces: use ioreel convert" },
	{ "sync_file_range", R, "sync_file_range() writes back page-cache ranges; no block "
				"request in a trace stands for it" },
	{ "file_append", R, "writes start at each file's end at run time, which a trace of fixed "
			    "offsets cannot know" },
	{ "verify_only", R, "reads back data written by an earlier run in its write order, which "
			    "this job file does not hold" },
	{ "trim_percentage", R, "verify's trims of a share of the written blocks are not modeled" },
	{ "trim_backlog", R, "verify's trims of a share of the written blocks are not modeled" },
	{ "trim_backlog_batch", R, "verify's trims are not modeled" },
	{ "bs_is_seq_rand", R, "block sizes chosen by sequential/random instead of direction are "
			       "not modeled" },
	{ "profile", R, "fio's built-in profiles generate their own jobs" },
	{ "ramp_size", R, "a ramp measured in bytes is not modeled (ramp_time is)" },
};

/* fio's option names are matched with '-' and '_' alike, case-insensitively. */
static bool same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = *a == '-' ? '_' : tolower((unsigned char)*a);
		int y = *b == '-' ? '_' : tolower((unsigned char)*b);

		if (x != y)
			return false;
	}
	return !*a && !*b;
}

const struct fio_optdef *fio_opt_at(size_t i)
{
	return i < sizeof(opts) / sizeof(opts[0]) ? &opts[i] : NULL;
}

const struct fio_optdef *fio_opt_find(const char *key)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (same_name(key, opts[i].name))
			return &opts[i];
	return NULL;
}

static const struct fio_engine engines[] = {
	{ "sync", FIO_ENGINE_SYNC, NULL, false },
	{ "psync", FIO_ENGINE_SYNC, NULL, false },
	{ "vsync", FIO_ENGINE_SYNC, NULL, false },
	{ "pvsync", FIO_ENGINE_SYNC, NULL, false },
	{ "pvsync2", FIO_ENGINE_SYNC, NULL, false },
	{ "mmap", FIO_ENGINE_SYNC, NULL, false },
	{ "splice", FIO_ENGINE_SYNC, NULL, false },
	{ "libaio", FIO_ENGINE_ASYNC, NULL, false },
	{ "io_uring", FIO_ENGINE_ASYNC, NULL, false },
	{ "io_uring_cmd", FIO_ENGINE_ASYNC, NULL, false },
	{ "posixaio", FIO_ENGINE_ASYNC, NULL, false },
	{ "windowsaio", FIO_ENGINE_ASYNC, NULL, false },
	{ "solarisaio", FIO_ENGINE_ASYNC, NULL, false },
	{ "null", FIO_ENGINE_ASYNC, NULL, false },
	{ "cpp_null", FIO_ENGINE_ASYNC, NULL, false },
	{ "sg", FIO_ENGINE_ASYNC, NULL, false },
	{ "xnvme", FIO_ENGINE_ASYNC, NULL, false },
	{ "libblkio", FIO_ENGINE_ASYNC, NULL, true },
	{ "nbd", FIO_ENGINE_ASYNC, NULL, true },
	{ "rbd", FIO_ENGINE_ASYNC, NULL, true },
	{ "libiscsi", FIO_ENGINE_ASYNC, NULL, false },
	{ "nfs", FIO_ENGINE_ASYNC, NULL, false },
	{ "dfs", FIO_ENGINE_ASYNC, NULL, false },
	{ "gfapi", FIO_ENGINE_SYNC, NULL, false },
	{ "gfapi_async", FIO_ENGINE_ASYNC, NULL, false },
	{ "ime_psync", FIO_ENGINE_SYNC, NULL, false },
	{ "ime_psyncv", FIO_ENGINE_SYNC, NULL, false },
	{ "ime_aio", FIO_ENGINE_ASYNC, NULL, false },
	{ "libhdfs", FIO_ENGINE_SYNC, NULL, false },
	{ "libcufile", FIO_ENGINE_SYNC, NULL, false },
	{ "libhipfile", FIO_ENGINE_SYNC, NULL, false },
	{ "dev-dax", FIO_ENGINE_SYNC, NULL, false },
	{ "libpmem", FIO_ENGINE_SYNC, NULL, false },
	{ "mtd", FIO_ENGINE_SYNC, NULL, false },
	{ "libzbc", FIO_ENGINE_SYNC, NULL, false },
	{ "spdk", FIO_ENGINE_ASYNC, NULL, false },
	{ "net", FIO_ENGINE_REFUSED, "sends and receives over a network socket: no block or "
				     "file I/O", false },
	{ "netsplice", FIO_ENGINE_REFUSED, "moves data over a network socket: no block or file "
					   "I/O", false },
	{ "rdma", FIO_ENGINE_REFUSED, "moves memory over RDMA verbs: no block or file I/O", false },
	{ "http", FIO_ENGINE_REFUSED, "PUTs, GETs and DELETEs objects over HTTP (S3, Swift, "
				      "WebDAV): objects, not blocks or files", false },
	{ "rados", FIO_ENGINE_REFUSED, "reads and writes objects in a Ceph pool: objects, not "
				       "blocks or files (rbd images are accepted)", false },
	{ "cpuio", FIO_ENGINE_REFUSED, "burns CPU and issues no I/O", false },
	{ "exec", FIO_ENGINE_REFUSED, "runs a program and issues no I/O of its own", false },
	{ "page_fault", FIO_ENGINE_REFUSED, "touches memory pages: no storage I/O", false },
	{ "e4defrag", FIO_ENGINE_REFUSED, "asks ext4 to move extents (EXT4_IOC_MOVE_EXT): the "
					  "kernel's copies are not I/O a trace can issue", false },
	/* calls other than reads and writes: a file-level trace (synth/fileops.c) */
	{ "falloc", FIO_ENGINE_SYNC, NULL, false }, { "ftruncate", FIO_ENGINE_SYNC, NULL, false },
	{ "filecreate", FIO_ENGINE_SYNC, NULL, false }, { "filestat", FIO_ENGINE_SYNC, NULL, false },
	{ "filedelete", FIO_ENGINE_SYNC, NULL, false }, { "dircreate", FIO_ENGINE_SYNC, NULL, false },
	{ "dirstat", FIO_ENGINE_SYNC, NULL, false }, { "dirdelete", FIO_ENGINE_SYNC, NULL, false },
};

const struct fio_engine *fio_engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(name, engines[i].name))
			return &engines[i];
	return NULL;
}
