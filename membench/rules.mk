# membench --kernel FILE reads kernel description files with the parser every
# tool shares (core/kernelfile.c, core/kernel.c).
tests/test_described: tests/test_described.o $(membench_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
