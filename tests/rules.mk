# Programs the test scripts run (not cmocka suites): built by make test.
TEST_HELPERS := tests/mpi_check
tests/mpi_check: tests/mpi_check.o $(lbmkernels_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
