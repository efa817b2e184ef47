# The kernel-file parser and the launch's thread count, tested on their own.
tests/test_kernelfile: tests/test_kernelfile.o $(model_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
# test_scaling: the scaling model alone (no device, no result folder)
tests/test_scaling: tests/test_scaling.o $(model_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
