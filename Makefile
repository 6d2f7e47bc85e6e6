# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel: one binary, one Makefile. `make`, `make check`, `make demo`, `make deps`, `make bench`,
# `make fuzz`, `make vmlinux`. Build output goes to build/. V=1 shows the commands.

BUILD    ?= build
CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. -I$(BUILD)
LDLIBS   += -lbpf -lelf -lz -luring -lzstd -laio -lblkid -lpthread -lm

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2);
endif

# Every capability folder contributes its .c files; ioreel.c is only the dispatcher.
LIB_SRCS  := $(wildcard formats/*.c record/*.c replay/*.c replay/*/*.c analyze/*.c synth/*.c study/*.c util/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)
SKELS     := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.skel.h)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Programs integration tests run as workloads (not tests themselves).
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
DEPFILES  := $(LIB_OBJS:.o=.d) $(BUILD)/ioreel.d $(UNIT_BINS:=.d) $(TOOL_BINS:=.d)

# The fleet (mpi/): ioreel-mpi, built when an MPI compiler is found; ioreel never links MPI.
MPICC     ?= mpicc
HAVE_MPI  := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1)
MPI_SRCS  := $(wildcard mpi/*.c)
MPI_OBJS  := $(MPI_SRCS:%.c=$(BUILD)/%.o)
BINS      := $(BUILD)/ioreel $(if $(HAVE_MPI),$(BUILD)/ioreel-mpi)
DEPFILES  += $(MPI_OBJS:.o=.d)

# Debian package names the build, tests and demo need (make deps installs the missing ones).
DEB_PKGS := build-essential pkg-config clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
	    liburing-dev libzstd-dev zstd libaio-dev libblkid-dev fio bpftrace xfsprogs \
	    btrfs-progs e2fsprogs util-linux fdisk python3 postgresql strace \
	    chromium bc openmpi-bin libopenmpi-dev time
# What only the benchmarks need besides (bench/predict_innodb.sh): make bench installs them,
# make deps (and so CI) does not.
BENCH_PKGS := mariadb-server sysbench

.PHONY: all deps bench-deps check test demo bench fuzz vmlinux clean
# Keep the BPF objects and skeletons: as intermediates make would delete them after each build
# and rebuild the skeleton (and every object that includes it) the next time.
.SECONDARY:
all: $(BINS)

deps bench-deps: PKGS = $(DEB_PKGS) $(if $(filter bench-deps,$@),$(BENCH_PKGS))
deps bench-deps:
	$(Q)missing=$$(for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root (or install them yourself): $$missing" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi

# --whole-archive: the verbs are weak references in ioreel.c, and a weak reference alone never
# pulls a member out of a static archive, so without it no verb would be linked in.
$(BUILD)/ioreel: $(BUILD)/ioreel.o $(BUILD)/libioreel.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $(BUILD)/ioreel.o -Wl,--whole-archive $(BUILD)/libioreel.a \
		-Wl,--no-whole-archive $(LDLIBS)

# The same library as ioreel (--whole-archive: cmd_record, cmd_synth are found through it).
$(BUILD)/ioreel-mpi: $(MPI_OBJS) $(BUILD)/libioreel.a
	$(call msg,LINK,$@)
	$(Q)$(MPICC) $(CFLAGS) -o $@ $(MPI_OBJS) -Wl,--whole-archive $(BUILD)/libioreel.a \
		-Wl,--no-whole-archive $(LDLIBS)

$(BUILD)/mpi/%.o: mpi/%.c | $(SKELS)
	$(call msg,MPICC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MPICC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libioreel.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c | $(SKELS)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# BPF: CO-RE objects against the pinned bpf/vmlinux.h, then libbpf skeletons.
$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h formats/*.h)
	$(call msg,BPF,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I. -Ibpf -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libioreel.a
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libioreel.a $(LDLIBS)

# Tools may use the trace writer (ftrace_craft): the archive adds only the members they use.
$(BUILD)/tests/tools/%: tests/tools/%.c $(BUILD)/libioreel.a
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libioreel.a $(LDLIBS)

# Refresh the pinned kernel types from the running kernel's BTF.
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h

check test: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS) $(TOOL_BINS)
	$(Q)BUILD=$(abspath $(BUILD)) tests/run.sh $(T)

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BUILD=$(abspath $(BUILD)) tests/demo.sh

bench: bench-deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS)
	$(Q)BUILD=$(abspath $(BUILD)) bench/run.sh $(B)

# Fuzz targets exercise formats/ (reader, importers), which needs only util/, replay/ (with
# analyze/, which makes its summary), synth/ without bench.c (the job files and the generator;
# bench measures replays, it would tie fuzz_fiojob to replay/) and study/'s plan parser (with
# report.c, whose histograms are analyze/hist.c's): linking the other folders would tie the fuzz
# build to everything they depend on (record/ to the BPF skeletons). Objects are built
# once per source under build/fuzz/obj, instrumented for the fuzzer and the sanitizers (undefined
# behaviour stops the run like a crash: recovered, it is one line in a log nobody reads), and
# rebuilt when this Makefile changes (the flags are here).
FUZZ_SRCS   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS   := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -I. -I$(BUILD) -fsanitize=address,undefined \
	       -fno-sanitize-recover=undefined
FUZZ_OBJS   := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(filter formats/% util/%,$(LIB_SRCS)))
FUZZ_REPLAY_OBJS := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(filter replay/% analyze/%,$(LIB_SRCS)))
FUZZ_SYNTH_OBJS := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(filter-out synth/bench.c,\
		   $(filter synth/%,$(LIB_SRCS))))
FUZZ_PLAN_OBJS := $(patsubst %,$(BUILD)/fuzz/obj/%.o,study/plan study/report)
DEPFILES    += $(FUZZ_OBJS:.o=.d) $(FUZZ_REPLAY_OBJS:.o=.d) $(FUZZ_SYNTH_OBJS:.o=.d) \
	       $(FUZZ_PLAN_OBJS:.o=.d) $(FUZZ_BINS:=.d)

$(BUILD)/fuzz/obj/%.o: %.c Makefile
	$(call msg,FUZZCC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/fuzz_replay $(BUILD)/fuzz/fuzz_replay_file: $(FUZZ_REPLAY_OBJS)
# fuzz_fiojob keeps includes inside its directory through a wrapper of fopen (see its comment)
$(BUILD)/fuzz/fuzz_fiojob: $(FUZZ_SYNTH_OBJS)
$(BUILD)/fuzz/fuzz_fiojob: LDLIBS += -Wl,--wrap=fopen
$(BUILD)/fuzz/fuzz_plan: $(FUZZ_PLAN_OBJS) $(BUILD)/fuzz/obj/analyze/hist.o
# fuzz_info keeps one stdout across runs of cmd_info, which closes it (see its comment)
$(BUILD)/fuzz/fuzz_info: LDLIBS += -Wl,--wrap=fclose
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS) Makefile
	$(call msg,FUZZLD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< $(filter %.o,$^) $(LDLIBS)

fuzz: deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS)
	$(Q)for n in $(notdir $(FUZZ_BINS)); do \
		mkdir -p $(BUILD)/fuzz/$$n.corpus tests/fuzz/corpus/$$n; \
		echo "  FUZZ    $$n ($${FUZZ_SECONDS:-30}s)"; \
		$(BUILD)/fuzz/$$n -max_total_time=$${FUZZ_SECONDS:-30} -max_len=65536 \
			$(BUILD)/fuzz/$$n.corpus tests/fuzz/corpus/$$n 2>$(BUILD)/fuzz/$$n.log || \
			{ tail -40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
	done

clean:
	rm -rf $(BUILD)

-include $(DEPFILES)
