/* The host CPU as the process may use it: the CPUs of its affinity mask,
 * the physical cores among them, the last-level cache they share, the
 * memory (Linux: /proc and /sys; a cgroup's memory limit counts). */
#ifndef LBP_HOSTCPU_H
#define LBP_HOSTCPU_H

#include <stdint.h>

typedef struct {
    char name[128];     /* /proc/cpuinfo "model name" */
    char vendor[64];    /* "vendor_id" */
    int cpus;           /* logical CPUs in the affinity mask */
    int cores;          /* physical cores among them (SMT siblings once) */
    int llc_level;      /* level of the last-level cache, 0 unknown */
    int64_t llc_bytes;  /* every instance of it the mask's CPUs use, summed */
    int clock_mhz;      /* the highest clock, 0 unknown */
    int64_t mem_bytes;  /* memory the process may have */
} lbp_host_cpu;

void lbp_host_cpu_describe(lbp_host_cpu *h);

/* Memory a new allocation can have without swapping or the cgroup's limit:
 * MemAvailable, or what the cgroup has left where that is less. */
int64_t lbp_host_mem_available(void);

/* "266240K", "2048K", "32M" (sysfs cache sizes) -> bytes; -1 unparsable. */
int64_t lbp_parse_cache_size(const char *s);

#endif
