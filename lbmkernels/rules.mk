lbmkernels/sim.o: lbmkernels/d3q19.cl
# lbm.csv's record of each kernel comes from the schemes' description files
# (lbmkernels/record.c), parsed by core/kernelfile.c from core/kernels/.
