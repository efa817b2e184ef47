/* A kernel file's launch on a device: what the model adds to the
 * description core/kernelfile.h parses (the device's compute capability
 * turns registers into blocks per SM). */
#ifndef MODEL_KERNELFILE_LAUNCH_H
#define MODEL_KERNELFILE_LAUNCH_H

#include <stddef.h>

#include "inputs.h"
#include "kernelfile.h"
#include "predict.h"

/* The file's launch on lat (block size, occupancy or blocks per SM; from
 * registers through the device's compute capability) where lat leaves them
 * unknown.  Returns 0, or -1 with err ("FILE:LINE: registers: ...") when
 * registers were given and the device (in) cannot turn them into blocks
 * per SM. */
int model_kernel_file_launch(const model_kernel_file *f, const model_inputs *in, model_lattice *lat, char *err,
                             size_t err_len);

#endif
