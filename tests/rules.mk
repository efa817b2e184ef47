# test_slab: the slab and exchange parts one process can check
tests/test_slab: tests/test_slab.o $(lbmkernels_OBJS) $(stream_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
# test_exchange: core/exchange on a stand-in device (tests/test_mpi.sh runs it under mpirun)
tests/test_exchange: tests/test_exchange.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

# Fuzzing and the sanitizer build:
#   make fuzz [FUZZ_SECONDS=600]  every harness of tests/fuzz/ for that long
#   make test-sanitize            the whole test suite built with ASan + UBSan
# Both build apart from the normal build (.fuzz/, .sanitize/), so neither
# replaces a tool or an object file that `make` built.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_HARNESSES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix .fuzz/,$(FUZZ_HARNESSES))
# -O1 and frame pointers: readable sanitizer stacks at a fuzzing speed; no
# recovery from undefined behaviour, so UBSan's finding stops the fuzzer.
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
# every harness links the core and the model library (model/main.c aside),
# whatever files they are split into
FUZZ_LIB_OBJS := $(addprefix .fuzz/,$(CORE_OBJS) $(model_OBJS))

.fuzz/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(LBP_CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(CPPFLAGS) -c -o $@ $<
$(FUZZ_BINS): .fuzz/%: .fuzz/tests/fuzz/%.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# fuzz_gen_name drives membench's generator of described kernels: it
# links that generator too
.fuzz/fuzz_gen_name: .fuzz/membench/described.o .fuzz/membench/gen.o


.PHONY: fuzz fuzz-bins test-sanitize clean-fuzz
fuzz-bins: $(FUZZ_BINS)
fuzz: fuzz-bins
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

test-sanitize: deps
	@sh tests/sanitize.sh

clean: clean-fuzz
clean-fuzz:
	rm -rf .fuzz .sanitize

-include $(wildcard .fuzz/*/*.d .fuzz/tests/fuzz/*.d)

# lbmkernels with a fault planted in its kernel text (tests/lbmkernels_fault.c,
# for tests/test_verify_reach.sh): the tool's own objects and the fault
TEST_HELPERS += tests/lbmkernels_fault
tests/lbmkernels_fault: tests/lbmkernels_fault.o lbmkernels/main.o $(lbmkernels_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
