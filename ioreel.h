/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The verbs. Each lives in its own folder and is found by main (ioreel.c) by name. */
#ifndef IOREEL_H
#define IOREEL_H

int cmd_record(int argc, char **argv);	/* record/ */
int cmd_replay(int argc, char **argv);	/* replay/ */
int cmd_analyze(int argc, char **argv); /* analyze/ */
int cmd_synth(int argc, char **argv);	/* synth/ */
int cmd_bench(int argc, char **argv);	/* synth/ */
int cmd_convert(int argc, char **argv); /* formats/ */
int cmd_info(int argc, char **argv);	/* formats/ */
int cmd_study(int argc, char **argv);	/* study/ */

#endif
