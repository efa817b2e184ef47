# lbmprobe — the only entry point a user needs.
#   make            build every tool
#   make test       run the test suite (no GPU needed: PoCL and NVRTC); each
#                   matrix once, on its smallest cases
#   make test-full  the whole matrix and the short fuzz runs (CI runs both)
#   make bench      measure the best device, predict, validate, plot
#   make bench      ... into results/<slug>/<UTC date-time>/ (and results/<slug>/latest);
#                   STRICT=1: exit non-zero where the model's points are over its error bar
#   make plots DEVICE=<slug>   re-render plots/<slug> from the committed data/<slug>
#   make plots RUN=<folder>    re-render a run's figures into <folder>/plots
#   make compare A=<slug|folder> B=<slug|folder>   two devices or runs side by side
#   make diff [A=<dir|slug> B=<dir|slug>]   two runs' measured MLUPS, kernel by kernel, as
#                   ratios with their bounds and a verdict (no A, B: the last two runs of the
#                   best device; A=<slug>: that device's); non-zero where they differ (no
#                   STRICT needed); runs of one device, kind, core count and thread count
#                   (ALLOW_OTHER_DEVICE=1 compares others)
#   make deps       install missing Debian packages
#   make fuzz [FUZZ_SECONDS=600]   each libFuzzer harness of tests/fuzz/ for that long
#   make check-kernels [BACKEND=cuda] [DATA=dir] [QUICK=1] [LAUNCH_PROBE=19,27]   the model against tests/kernels/
#   make validate-kernels [BACKEND=cuda] [DATA=dir] [QUICK=1] [OUT=dir] [FORCE=1]   the model against the
#                   independent LBM kernels of tests/validation/ (verified, timed, predicted)
#   make test-sanitize   the test suite built with ASan + UBSan (in .sanitize/)

CC ?= gcc
CFLAGS ?= -O2 -g
# What the build needs lives in LBP_CFLAGS, never in CFLAGS: `make CFLAGS=-O0`
# replaces CFLAGS and must keep the C standard, the warnings and the
# dependency files (-MMD) that rebuild what a changed header touches.
LBP_CFLAGS := -std=c11 -Wall -Wextra -MMD -MP
CPPFLAGS += -D_GNU_SOURCE -Icore
# the model's parts (model/README.md): equations, corrections, data, cli
CPPFLAGS += -Imodel/equations -Imodel/corrections -Imodel/data -Imodel/cli
LDLIBS += -ldl -lm
GIT_COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
CPPFLAGS += -DLBP_GIT_COMMIT=\"$(GIT_COMMIT)\"
# core/csv.o stamps every result file with the commit: rebuilt when it changes
$(shell echo '$(GIT_COMMIT)' | cmp -s - .build-commit 2>/dev/null || echo '$(GIT_COMMIT)' > .build-commit)

# CUDA backend: only the headers are needed to build; libcuda.so.1 and
# libnvrtc.so are loaded at run time.
CUDA_HOME ?= /usr/local/cuda
ifneq ($(wildcard $(CUDA_HOME)/include/cuda.h),)
ifneq ($(wildcard $(CUDA_HOME)/include/nvrtc.h),)
CPPFLAGS += -DLBP_HAVE_CUDA=1 -isystem $(CUDA_HOME)/include -DLBP_CUDA_HOME=\"$(CUDA_HOME)\"
endif
endif
# OpenCL backend: system headers, the toolkit's, or ones carried in .deps/.
OPENCL_H := $(firstword $(wildcard /usr/include/CL/cl.h $(CUDA_HOME)/include/CL/cl.h .deps/include/CL/cl.h))
ifneq ($(OPENCL_H),)
CPPFLAGS += -DLBP_HAVE_OPENCL=1 -DCL_TARGET_OPENCL_VERSION=120 -isystem $(dir $(OPENCL_H)).. -Wno-deprecated-declarations
LDLIBS += -l:libOpenCL.so.1
endif

%.o: %.c
	$(CC) $(LBP_CFLAGS) $(CFLAGS) $(CPPFLAGS) -c -o $@ $<

TOOLS := stream membench lbmkernels model
CORE_OBJS := $(patsubst %.c,%.o,$(wildcard core/*.c))

all: $(foreach t,$(TOOLS),$(t)/$(t))

# Each tool: <tool>/main.c plus the other .c files of its folder and of the
# folders in it (which the tests link too).
define tool_rules
$(1)_OBJS := $$(patsubst %.c,%.o,$$(filter-out $(1)/main.c,$$(wildcard $(1)/*.c $(1)/*/*.c)))
$(1)/$(1): $(1)/main.o $$($(1)_OBJS) $$(CORE_OBJS)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
tests/test_$(1): tests/test_$(1).o $$($(1)_OBJS) $$(CORE_OBJS)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ -lcmocka $$(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rules,$(t))))
tests/test_core tests/test_harden: tests/%: tests/%.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

TEST_BINS := $(patsubst %.c,%,$(wildcard tests/test_*.c))

# Tool-specific rules (embedded kernel files and the like).
-include $(wildcard */rules.mk)

.PHONY: all deps test test-full bench plots compare diff clean check-kernels validate-kernels
deps:
	@sh core/deps.sh

test: deps
	@$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) all $(TEST_BINS) $(TEST_HELPERS)
	@sh tests/run.sh $(TEST_BINS)

# the whole matrix: make test's programs with every case (tests/full.h) and
# the short fuzz runs
test-full: deps
	@$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) all $(TEST_BINS) $(TEST_HELPERS)
	@LBP_TEST_FULL=1 sh tests/run.sh $(TEST_BINS)

bench: deps
	@$(MAKE) --no-print-directory all
	@sh core/bench.sh

plots:
	@sh plots/render.sh $(or $(RUN),$(DEVICE))

compare:
	@sh plots/compare.sh $(A) $(B)

diff:
	@sh core/diff.sh $(if $(filter 1,$(ALLOW_OTHER_DEVICE)),--allow-other-device) $(A) $(B)

clean:
	rm -f */*.o */*.d $(foreach t,$(TOOLS),$(t)/$(t)) $(TEST_BINS)

-include $(wildcard */*.d)

core/csv.o: .build-commit

# The model against the test kernels of tests/kernels/ on one device:
#   make check-kernels [BACKEND=cuda] [DATA=data/<slug>] [QUICK=1] [LAUNCH_PROBE=19,27]
check-kernels: all
	@sh tests/kernels/check.sh $(if $(BACKEND),--backend $(BACKEND)) $(if $(DATA),--data $(DATA)) \
		$(if $(filter 1,$(QUICK)),--quick) $(if $(LAUNCH_PROBE),--launch-probe $(LAUNCH_PROBE))

# The model against the independent kernels of tests/validation/ (issue 56):
#   make validate-kernels [BACKEND=cuda] [DATA=data/<slug>] [QUICK=1] [OUT=dir] [FORCE=1]
validate-kernels: all
	@sh tests/validation/run.sh $(if $(BACKEND),--backend $(BACKEND)) $(if $(DATA),--data $(DATA)) \
		$(if $(filter 1,$(QUICK)),--quick) $(if $(OUT),--out $(OUT)) $(if $(filter 1,$(FORCE)),--force)
