/* The catalog of named corrections: see corrections.h. */
#include "corrections.h"

#include <stdio.h>
#include <string.h>

const model_correction_info model_correction_catalog[MODEL_CORRECTIONS] = {
    [MODEL_CORR_VECTOR] = {"vector", "a kernel of several cells a thread moves its misaligned words one per cell"},
    [MODEL_CORR_MISALIGNED_COUNT] = {"misaligned-count",
                                     "the misaligned extra read at the kernel's count, not linear in it"},
    [MODEL_CORR_COMPUTE] = {"compute", "the collision's arithmetic, as the payload probes time it"},
    [MODEL_CORR_NONTEMPORAL] = {"nontemporal", "non-temporal stores on a CPU, as the rows sweep times them"},
    [MODEL_CORR_TILE] = {"tile", "a grid launch's block shape, as the tile sweep times it"},
    [MODEL_CORR_NARROW] = {"narrow", "blocks narrower than a warp, as the narrow sweep times them"},
    [MODEL_CORR_ROW_SHIFT] = {"row-shift", "words a row or a plane away that straddle sectors"},
    [MODEL_CORR_ROW_CLASSES] = {"row-classes", "rows that start at several offsets in a sector, priced per class"},
    [MODEL_CORR_LAUNCH_PROBES] = {"launch-probes",
                                  "measured over predicted aligned probes at the kernel's own launch"},
};

static int off[MODEL_CORRECTIONS];

int model_correction_on(model_correction c)
{
    return c >= 0 && c < MODEL_CORRECTIONS && !off[c];
}

void model_correction_set(model_correction c, int on)
{
    if (c >= 0 && c < MODEL_CORRECTIONS) off[c] = !on;
}

void model_corrections_all(int on)
{
    for (int c = 0; c < MODEL_CORRECTIONS; c++) off[c] = !on;
}

int model_correction_by_name(const char *name)
{
    for (int c = 0; c < MODEL_CORRECTIONS; c++)
        if (!strcmp(name, model_correction_catalog[c].name)) return c;
    return -1;
}

/* Each name of list switched to `on`; "all" and "none" stand for every one. */
static int set_list(const char *list, int on, char *err, size_t err_len)
{
    char buf[512];
    if (strlen(list) >= sizeof buf) {
        snprintf(err, err_len, "correction list too long");
        return -1;
    }
    strcpy(buf, list);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (!strcmp(name, "all")) {
            model_corrections_all(on);
            continue;
        }
        const int c = model_correction_by_name(name);
        if (c < 0) {
            char names[400] = "";
            for (int i = 0, used = 0; i < MODEL_CORRECTIONS && used < (int)sizeof names; i++)
                used += snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 model_correction_catalog[i].name);
            snprintf(err, err_len, "no correction '%s' (the catalog: %s)", name, names);
            return -1;
        }
        model_correction_set(c, on);
    }
    return 0;
}

int model_corrections_without(const char *list, char *err, size_t err_len)
{
    if (!strcmp(list, "none")) return 0;
    return set_list(list, 0, err, err_len);
}

int model_corrections_only(const char *list, char *err, size_t err_len)
{
    model_corrections_all(0);
    if (!strcmp(list, "none")) return 0;
    return set_list(list, 1, err, err_len);
}

const char *model_corrections_off_text(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int c = 0; c < MODEL_CORRECTIONS && used < len; c++)
        if (off[c]) used += snprintf(buf + used, len - used, "%s%s", used ? "," : "", model_correction_catalog[c].name);
    return buf;
}

const char *model_corrections_columns(void)
{
    static char cols[512];
    if (!cols[0]) {
        size_t used = 0;
        for (int c = 0; c < MODEL_CORRECTIONS; c++) {
            used += snprintf(cols + used, sizeof cols - used, "%scorr_", c ? "," : "");
            for (const char *p = model_correction_catalog[c].name; *p && used + 1 < sizeof cols; p++)
                cols[used++] = *p == '-' ? '_' : *p;
            cols[used] = 0;
        }
    }
    return cols;
}
