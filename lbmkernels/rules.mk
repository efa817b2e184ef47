lbmkernels/sim.o: lbmkernels/d3q19.cl
