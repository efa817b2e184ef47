# test_slab: the slab and exchange parts one process can check
tests/test_slab: tests/test_slab.o $(lbmkernels_OBJS) $(stream_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
# test_exchange: core/exchange on a stand-in device (tests/test_mpi.sh runs it under mpirun)
tests/test_exchange: tests/test_exchange.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
