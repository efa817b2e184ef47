#include "envvars.h"

const lbp_env_var lbp_env_vars[] = {
    {"LBP_NVRTC", "path of the NVRTC library to load (default: libnvrtc.so, then the toolkit's)", 1},
    {"LBP_OCL_OPTIONS", "extra OpenCL build options for every kernel (make test: -cl-opt-disable)", 1},
    {"LBP_OMP_CC", "C compiler of the OpenMP backend's kernels (default: $CC, else cc)", 1},
    {"CC", "the OpenMP backend's compiler where LBP_OMP_CC is unset", 1},
    {"LBP_OMP_CFLAGS", "extra flags for that compiler, before the kernel's own", 1},
    {"OMP_NUM_THREADS", "OpenMP backend's threads (default: one per core)", 1},
    {"OMP_PLACES", "OpenMP thread placement (recorded in the device's platform line too)", 1},
    {"OMP_PROC_BIND", "OpenMP thread binding (recorded in the device's platform line too)", 1},
    {"LBP_OMP_CACHE", "folder of compiled OpenMP kernels (default: ~/.cache/lbmprobe/openmp)", 0},
    {"XDG_CACHE_HOME", "where LBP_OMP_CACHE is unset: $XDG_CACHE_HOME/lbmprobe/openmp", 0},
    {"LBP_OMP_KEEP", "keep each OpenMP build's folder (source, object, log) and bypass the cache", 0},
    {"LBP_OMP_LOG", "print the compiler's output for every OpenMP kernel", 0},
    {"TMPDIR", "where OpenMP builds are made (default: /tmp)", 0},
};
const int lbp_env_var_count = (int)(sizeof lbp_env_vars / sizeof lbp_env_vars[0]);

void lbp_env_help(FILE *out)
{
    fputs("environment (* recorded in the meta files when set):\n", out);
    for (int i = 0; i < lbp_env_var_count; i++)
        fprintf(out, "  %-16s%s%s\n", lbp_env_vars[i].name, lbp_env_vars[i].changes_numbers ? "* " : "  ",
                lbp_env_vars[i].what);
}
