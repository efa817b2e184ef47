lbmkernels/sim.o: lbmkernels/d3q19.cl
# lbm.csv's record of each kernel comes from the model's description files
# (lbmkernels/record.c): the model's parser and embedded files, linked in.
lbmkernels/record.o lbmkernels/bench.o tests/test_lbmkernels.o: CPPFLAGS += -Imodel
lbmkernels/lbmkernels tests/test_lbmkernels tests/test_slab: model/kernelfile.o model/kernel.o
