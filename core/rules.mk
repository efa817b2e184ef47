# MPI (several ranks, one per device): built where mpicc is found, with the
# flags it names (Open MPI's --showme); without it the layer runs one rank.
# Only the files that include <mpi.h> get its flags.
MPICC ?= mpicc
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_FILES := core/ranks.o core/exchange.o
ifneq ($(strip $(MPI_CFLAGS)),)
$(MPI_FILES): CPPFLAGS += -DLBP_HAVE_MPI=1 $(MPI_CFLAGS)
LDLIBS += $(shell $(MPICC) --showme:link 2>/dev/null)
endif
# rebuilt when MPI comes or goes
$(shell echo '$(MPI_CFLAGS)' | cmp -s - .build-mpi 2>/dev/null || echo '$(MPI_CFLAGS)' > .build-mpi)
$(MPI_FILES): .build-mpi
core/openmp.o: core/openmp_prelude.h
core/device.o: core/half_bits.h
# The shipped schemes' description files (one per scheme: the registry the
# model, membench and lbmkernels read) are compiled into core/kernel.o.
core/kernel.o: core/kernels/push.kernel core/kernels/pull.kernel core/kernels/split.kernel core/kernels/aa.kernel
