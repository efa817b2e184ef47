# The shipped schemes' description files are compiled into model/kernel.o.
model/kernel.o: model/kernels/push.kernel model/kernels/pull.kernel model/kernels/split.kernel model/kernels/aa.kernel
