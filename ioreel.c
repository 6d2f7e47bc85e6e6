// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioreel: record, replay, analyze and synthesize block I/O traces.
 * This file only dispatches verbs. A verb's entry point is declared weak so that a verb whose
 * folder is not built in simply does not exist (and is not listed) rather than failing to link.
 */
#include <stdio.h>
#include <string.h>
#include "ioreel.h"
#include "util/cli.h"

#pragma weak cmd_record
#pragma weak cmd_replay
#pragma weak cmd_analyze
#pragma weak cmd_synth
#pragma weak cmd_bench
#pragma weak cmd_convert
#pragma weak cmd_info
#pragma weak cmd_study

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "record", cmd_record, "capture a live server's block I/O with eBPF into a trace" },
	{ "replay", cmd_replay, "reissue a trace on a device or file with its original timing" },
	{ "analyze", cmd_analyze, "fio-like summaries, comparisons and HTML reports of traces" },
	{ "synth", cmd_synth, "write standard fio-style patterns and presets as traces" },
	{ "bench", cmd_bench, "replay patterns on several targets and compare them" },
	{ "study", cmd_study, "build candidate setups from a plan, run workloads, compare" },
	{ "convert", cmd_convert, "import/export fio iologs, blktrace, MSR, Alibaba, CSV, JSON" },
	{ "info", cmd_info, "describe a trace: devices, counts, span, size per event" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ioreel VERB [options]   (ioreel VERB --help for details)\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].run)
			fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nexample:\n"
		   "  ioreel record -d /dev/md0 -o prod.ioreel --duration 60\n"
		   "  ioreel replay prod.ioreel --target /dev/loop3 -o run-loop3.ioreel\n"
		   "  ioreel analyze prod.ioreel run-loop3.ioreel --compare\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return cli_close_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ioreel %s\n", IOREEL_VERSION);
		return cli_close_stdout(EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (verbs[i].run && !strcmp(argv[1], verbs[i].name)) {
			cli_verb = verbs[i].name;
			/* a verb's stdout written or its failure said: `--help > /dev/full` and
			 * `record --json > /dev/full` exited 0 */
			return cli_close_stdout(verbs[i].run(argc - 1, argv + 1));
		}
	}
	fprintf(stderr, "ioreel: unknown verb '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
