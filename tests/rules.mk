# Programs the test scripts run (not cmocka suites): built by make test.
TEST_HELPERS := tests/mpi_check
tests/mpi_check: tests/mpi_check.o $(lbmkernels_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# test_slab: the slab and exchange parts one process can check
tests/test_slab: tests/test_slab.o $(lbmkernels_OBJS) $(stream_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
