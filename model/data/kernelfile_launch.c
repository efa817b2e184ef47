/* A kernel file's launch on a device (see kernelfile.h): apart from the
 * parser, which membench and lbmkernels link without the model's inputs. */
#include "kernelfile_launch.h"

#include <stdio.h>

#include "device.h"

int model_kernel_file_launch(const model_kernel_file *f, const model_inputs *in, model_lattice *lat, char *err,
                             size_t err_len)
{
    if (lat->block_size <= 0) lat->block_size = f->block_size;
    if (lat->occupancy > 0 || lat->blocks_per_cu > 0) return 0; /* the command line said */
    if (f->occupancy > 0) lat->occupancy = f->occupancy;
    if (f->blocks_per_sm > 0) lat->blocks_per_cu = f->blocks_per_sm;
    if (f->registers <= 0) return 0;
    const char *cc = model_meta_value(in, "compute_capability");
    int major, minor, blocks = -1;
    if (cc && sscanf(cc, "%d.%d", &major, &minor) == 2)
        blocks = lbp_nv_blocks_per_sm(major, minor, f->registers, lat->block_size, 0);
    if (blocks < 1) {
        snprintf(err, err_len,
                 "%s: %d per thread: the device's compute capability (%s) does not give blocks per SM: give "
                 "occupancy or blocks_per_sm instead",
                 f->blocks_said, f->registers, cc ? cc : "not in stream-meta.csv");
        return -1;
    }
    lat->blocks_per_cu = blocks;
    return 0;
}
