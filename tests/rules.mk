# test_slab: the slab and exchange parts one process can check
tests/test_slab: tests/test_slab.o $(lbmkernels_OBJS) $(stream_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
