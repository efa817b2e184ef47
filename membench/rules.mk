# membench --kernel FILE reads kernel description files with the model's
# parser (model/kernelfile.c, model/kernel.c: one parser for both tools).
membench/described.o membench/described_run.o membench/source_run.o membench/lbmref.o membench/main.o tests/test_membench.o: CPPFLAGS += -Imodel
membench/membench tests/test_membench: model/kernelfile.o model/kernel.o
tests/test_described.o: CPPFLAGS += -Imodel
tests/test_described: tests/test_described.o $(membench_OBJS) model/kernelfile.o model/kernel.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
