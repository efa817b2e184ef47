/* The host CPU from /proc and /sys (hostcpu.h). */
#include "hostcpu.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#define MAX_CPUS 4096
#define MAX_CACHES 256

/* The first line of a small file, without its newline; 0 or -1. */
static int read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (!ok) return -1;
    out[strcspn(out, "\n")] = 0;
    return 0;
}

static long read_long(const char *path, long fallback)
{
    char line[64];
    return read_line(path, line, sizeof line) == 0 ? strtol(line, NULL, 10) : fallback;
}

/* The value of the first "key<blanks>: value" line of /proc/cpuinfo. */
static void cpuinfo_value(const char *key, char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    const size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, n) != 0 || !strchr(line, ':')) continue;
        const char *v = strchr(line, ':') + 1;
        while (*v == ' ' || *v == '\t') v++;
        snprintf(out, len, "%s", v);
        out[strcspn(out, "\n")] = 0;
        break;
    }
    fclose(f);
}

int64_t lbp_parse_cache_size(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0) return -1;
    switch (*end) {
    case 'K': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    case 0: return v;
    default: return -1;
    }
}

/* The CPUs this process may run on. */
static int affinity_cpus(int *cpus)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE && n < MAX_CPUS; c++)
            if (CPU_ISSET(c, &set)) cpus[n++] = c;
    }
    if (n == 0) {
        const int all = get_nprocs();
        for (int c = 0; c < all && n < MAX_CPUS; c++) cpus[n++] = c;
    }
    return n;
}

/* Physical cores: distinct (package, core) pairs. */
static int count_cores(const int *cpus, int n)
{
    static long seen[MAX_CPUS];
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpus[i]);
        const long pkg = read_long(path, -1);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpus[i]);
        const long core = read_long(path, -1);
        if (pkg < 0 || core < 0) return n; /* no topology: count every CPU */
        const long key = pkg * 1000000 + core;
        int dup = 0;
        for (int j = 0; j < distinct && !dup; j++) dup = seen[j] == key;
        if (!dup) seen[distinct++] = key;
    }
    return distinct;
}

/* The index of cpu's highest-level data or unified cache, -1 none. */
static int last_level_index(int cpu, int *level)
{
    int best = -1;
    *level = 0;
    for (int idx = 0; idx < 16; idx++) {
        char path[160], type[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, idx);
        if (read_line(path, type, sizeof type) != 0) break;
        if (!strcmp(type, "Instruction")) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
        const long lv = read_long(path, 0);
        if (lv > *level) {
            *level = (int)lv;
            best = idx;
        }
    }
    return best;
}

/* Every last-level cache instance the CPUs use, each once. */
static int64_t llc_bytes(const int *cpus, int n, int *level)
{
    static char shared[MAX_CACHES][256];
    int distinct = 0;
    int64_t total = 0;
    *level = 0;
    for (int i = 0; i < n; i++) {
        int lv;
        const int idx = last_level_index(cpus[i], &lv);
        if (idx < 0) continue;
        char path[160], list[256], size[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpus[i], idx);
        if (read_line(path, list, sizeof list) != 0) snprintf(list, sizeof list, "cpu%d", cpus[i]);
        int dup = 0;
        for (int j = 0; j < distinct && !dup; j++) dup = !strcmp(shared[j], list);
        if (dup || distinct == MAX_CACHES) continue;
        snprintf(shared[distinct++], sizeof shared[0], "%s", list);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpus[i], idx);
        if (read_line(path, size, sizeof size) == 0 && lbp_parse_cache_size(size) > 0) total += lbp_parse_cache_size(size);
        if (lv > *level) *level = lv;
    }
    return total;
}

static int clock_mhz(void)
{
    const long khz = read_long("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", 0);
    if (khz > 0) return (int)(khz / 1000);
    char mhz[64];
    cpuinfo_value("cpu MHz", mhz, sizeof mhz);
    return (int)strtod(mhz, NULL);
}

/* cgroup v2 limit and use, -1 where there is none. */
static int64_t cgroup_value(const char *file)
{
    char path[128], line[64];
    snprintf(path, sizeof path, "/sys/fs/cgroup/%s", file);
    if (read_line(path, line, sizeof line) != 0 || !strcmp(line, "max")) return -1;
    return strtoll(line, NULL, 10);
}

void lbp_host_cpu_describe(lbp_host_cpu *h)
{
    memset(h, 0, sizeof *h);
    cpuinfo_value("model name", h->name, sizeof h->name);
    if (!h->name[0]) snprintf(h->name, sizeof h->name, "cpu");
    cpuinfo_value("vendor_id", h->vendor, sizeof h->vendor);
    static int cpus[MAX_CPUS];
    h->cpus = affinity_cpus(cpus);
    h->cores = count_cores(cpus, h->cpus);
    h->llc_bytes = llc_bytes(cpus, h->cpus, &h->llc_level);
    h->clock_mhz = clock_mhz();
    struct sysinfo si;
    if (sysinfo(&si) == 0) h->mem_bytes = (int64_t)si.totalram * si.mem_unit;
    const int64_t limit = cgroup_value("memory.max");
    if (limit > 0 && (h->mem_bytes == 0 || limit < h->mem_bytes)) h->mem_bytes = limit;
}

int64_t lbp_host_mem_available(void)
{
    int64_t avail = -1;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) avail = (int64_t)kb * 1024;
        fclose(f);
    }
    const int64_t limit = cgroup_value("memory.max"), used = cgroup_value("memory.current");
    if (limit > 0 && used >= 0 && (avail < 0 || limit - used < avail)) avail = limit - used;
    return avail;
}
