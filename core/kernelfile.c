/* Kernel description files: see kernelfile.h. */
#include "kernelfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest value a key takes, and the largest file read: a longer one
 * is refused, never cut (a cut "000...0010" once read as 1). */
#define MAX_VALUE 255
#define MAX_FILE_BYTES 16383

enum {
    KEY_NAME, KEY_WORDS_READ, KEY_WORDS_WRITTEN, KEY_MIS_READS, KEY_MIS_WRITES, KEY_WORD_BYTES, KEY_LATTICES,
    KEY_LAUNCHES, KEY_OPS, KEY_CELLS_PER_THREAD, KEY_LAUNCH, KEY_BLOCK, KEY_BLOCK_SIZE, KEY_REGISTERS,
    KEY_OCCUPANCY, KEY_BLOCKS_PER_SM, KEY_MIS_ACCESS, KEY_VELOCITIES, KEY_READ_SHIFT, KEY_WRITE_SHIFT, KEYS
};

static const char *const key_names[KEYS] = {
    "name", "words_read", "words_written", "misaligned_reads", "misaligned_writes", "word_bytes", "lattices",
    "launches_per_step", "ops_per_cell", "cells_per_thread", "launch", "block", "block_size", "registers",
    "occupancy", "blocks_per_sm", "misaligned_access", "velocities", "read_shift", "write_shift"};

/* The parse in progress: where each key was given (0: not), for the
 * errors of the checks made after the last line. */
typedef struct {
    const char *file;
    int line, last_line;
    int at[KEYS];
    int n_reads, n_writes, n_read_shifts, n_write_shifts;
    model_kernel_file *out;
    char *err;
    size_t err_len;
} parse_state;

/* "FILE:LINE: KEY: what"; returns -1. */
static int vfail_at(parse_state *s, int line, int key, const char *fmt, va_list ap)
{
    char what[256];
    vsnprintf(what, sizeof what, fmt, ap);
    snprintf(s->err, s->err_len, "%s:%d: %s: %s", s->file, line, key_names[key], what);
    return -1;
}

__attribute__((format(printf, 4, 5))) static int fail_at(parse_state *s, int line, int key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(s, line, key, fmt, ap);
    va_end(ap);
    return -1;
}

/* A number within [lo, hi], in decimal (no hex, inf or nan), or -1 with
 * the error. */
static int number(parse_state *s, int key, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    const double x = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(x) || strspn(v, "0123456789.eE+-") != strlen(v))
        return fail_at(s, s->line, key, "'%s' is not a number", v);
    if (x < lo || x > hi) return fail_at(s, s->line, key, "'%s' is out of range %g..%g", v, lo, hi);
    *out = x;
    return 0;
}

/* v as a whole number lo..hi: decimal digits after an optional '-',
 * strtoll's overflow (ERANGE) out of range, never wrapped.  0, or -1 not
 * a whole number, -2 out of range. */
static int whole_in(const char *v, long long lo, long long hi, long long *out)
{
    const char *digits = v + (*v == '-');
    if (!isdigit((unsigned char)*digits) || strspn(digits, "0123456789") != strlen(digits)) return -1;
    errno = 0;
    const long long x = strtoll(v, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi) return -2;
    *out = x;
    return 0;
}

static int whole_ll(parse_state *s, int key, const char *v, long long lo, long long hi, long long *out)
{
    const int r = whole_in(v, lo, hi, out);
    if (r == -1) return fail_at(s, s->line, key, "'%s' is not a whole number", v);
    if (r == -2) return fail_at(s, s->line, key, "'%s' is out of range %lld..%lld", v, lo, hi);
    return 0;
}

static int whole(parse_state *s, int key, const char *v, int lo, int hi, int *out)
{
    long long x;
    if (whole_ll(s, key, v, lo, hi, &x)) return -1;
    *out = (int)x;
    return 0;
}

static int whole_double(parse_state *s, int key, const char *v, int lo, int hi, double *out)
{
    long long x;
    if (whole_ll(s, key, v, lo, hi, &x)) return -1;
    *out = (double)x;
    return 0;
}

/* v without its spaces ("0, 10" read as "0,10"): only those around a
 * comma are left by check_value_text, and v fits (MAX_VALUE). */
static void packed_list(const char *v, char packed[MAX_VALUE + 1])
{
    size_t len = 0;
    for (const char *c = v; *c && len < MAX_VALUE; c++)
        if (!isspace((unsigned char)*c)) packed[len++] = *c;
    packed[len] = 0;
}

static int phase_list(parse_state *s, int key, const char *v, int *out, int *n)
{
    char packed[MAX_VALUE + 1];
    packed_list(v, packed);
    if ((*n = model_parse_phase_list(packed, 1000, out)) < 0)
        return fail_at(s, s->line, key,
                       "'%s' is not a whole number 0..1000 or a comma list of them, one per alternating launch "
                       "(at most 8)", v);
    return 0;
}

/* "-c, +c": one shift per alternating launch (model_shift_parse). */
static int shift_list(parse_state *s, int key, const char *v, unsigned char *out, int *n)
{
    char packed[MAX_VALUE + 1];
    packed_list(v, packed);
    *n = 0;
    for (char *tok = packed, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = 0;
        const int shift = model_shift_parse(tok);
        if (shift < 0 || *n == MODEL_MAX_PHASES)
            return fail_at(s, s->line, key,
                           "'%s' is not 0 or +-c with the axes shifted (-c, +cx, -cyz, ...), or a comma list of "
                           "them, one per alternating launch (at most 8)", v);
        out[(*n)++] = (unsigned char)shift;
    }
    return 0;
}

/* BXxBYxBZ: three whole numbers, each read with its overflow check (a
 * %d of 4294967297 once wrapped to 1). */
static int block_dims(parse_state *s, const char *v, int *b)
{
    char part[3][MAX_VALUE + 1];
    const char *p = v;
    int range = 0;
    for (int i = 0; i < 3; i++) {
        const size_t n = i < 2 ? strcspn(p, "x") : strlen(p);
        if ((i < 2 && !p[n]) || n == 0)
            return fail_at(s, s->line, KEY_BLOCK, "'%s' is not BXxBYxBZ (three whole numbers)", v);
        memcpy(part[i], p, n);
        part[i][n] = 0;
        p += n + (i < 2);
        long long x;
        const int r = whole_in(part[i], 1, 1024, &x);
        if (r == -1) return fail_at(s, s->line, KEY_BLOCK, "'%s' is not BXxBYxBZ (three whole numbers)", v);
        range |= r == -2;
        b[i] = r ? 0 : (int)x;
    }
    if (range || (long)b[0] * b[1] * b[2] > 1024)
        return fail_at(s, s->line, KEY_BLOCK, "'%s' is out of range (each >= 1, at most 1024 threads)", v);
    return 0;
}

static int launch_kind(parse_state *s, const char *v, model_launch_kind *out)
{
    if (!model_launch_parse(v, out)) return 0;
    return fail_at(s, s->line, KEY_LAUNCH, "'%s' is not linear, rows or grid", v);
}

static int misaligned_access(parse_state *s, const char *v, model_misaligned_access *out)
{
    if (!strcmp(v, "vector")) *out = MODEL_MISALIGNED_AS_VECTOR;
    else if (!strcmp(v, "word")) *out = MODEL_MISALIGNED_BY_WORD;
    else return fail_at(s, s->line, KEY_MIS_ACCESS, "'%s' is not vector or word", v);
    return 0;
}

int model_kernel_name_ok(const char *name)
{
    const size_t n = strspn(name, MODEL_KERNEL_NAME_CHARS);
    return n >= 1 && n <= MODEL_KERNEL_NAME_MAX && !name[n];
}

/* The name reaches generated source (membench's kernel), CSV files and
 * the console: whitelisted characters only, the first other one named. */
static int name_check(parse_state *s, const char *v)
{
    const size_t n = strlen(v), ok = strspn(v, MODEL_KERNEL_NAME_CHARS);
    if (ok < n)
        return fail_at(s, s->line, KEY_NAME, "'%c' (character %zu) is not allowed: a name is 1 to %d of A-Z a-z "
                       "0-9 . _ -", v[ok], ok + 1, MODEL_KERNEL_NAME_MAX);
    if (n > MODEL_KERNEL_NAME_MAX)
        return fail_at(s, s->line, KEY_NAME, "%zu characters, over %d", n, MODEL_KERNEL_NAME_MAX);
    return 0;
}

static int set_value(parse_state *s, int key, const char *v)
{
    model_kernel_file *f = s->out;
    model_kernel *k = &f->k;
    double x;
    int r = 0;
    switch (key) {
    case KEY_NAME:
        if (name_check(s, v)) return -1;
        snprintf(k->name, sizeof k->name, "%s", v);
        break;
    case KEY_WORDS_READ: r = whole_double(s, key, v, 1, 1000, &k->words_read); break;
    case KEY_WORDS_WRITTEN: r = whole_double(s, key, v, 1, 1000, &k->words_written); break;
    case KEY_MIS_READS: r = phase_list(s, key, v, k->misaligned_reads, &s->n_reads); break;
    case KEY_MIS_WRITES: r = phase_list(s, key, v, k->misaligned_writes, &s->n_writes); break;
    case KEY_WORD_BYTES:
        if (!(r = whole(s, key, v, 2, 8, &k->word_bytes)) && (k->word_bytes & (k->word_bytes - 1)))
            r = fail_at(s, s->line, key, "'%s' is not 2, 4 or 8", v);
        f->word_bytes_given = 1;
        break;
    case KEY_LATTICES: r = whole(s, key, v, 1, 2, &k->lattices); break;
    case KEY_LAUNCHES: r = whole(s, key, v, 1, 64, &k->launches_per_step); break;
    case KEY_OPS: r = number(s, key, v, 0, 1e6, &k->ops_per_cell); break;
    case KEY_CELLS_PER_THREAD: r = whole(s, key, v, 1, 64, &k->cells_per_thread); break;
    case KEY_LAUNCH: r = launch_kind(s, v, &k->launch); break;
    case KEY_MIS_ACCESS: r = misaligned_access(s, v, &k->misaligned_access); break;
    case KEY_VELOCITIES:
        if (model_velocities_parse(v, &k->velocities))
            r = fail_at(s, s->line, key, "'%s' is not d2q9, d3q15, d3q19 or d3q27", v);
        break;
    case KEY_READ_SHIFT: r = shift_list(s, key, v, k->read_shift, &s->n_read_shifts); break;
    case KEY_WRITE_SHIFT: r = shift_list(s, key, v, k->write_shift, &s->n_write_shifts); break;
    case KEY_BLOCK: r = block_dims(s, v, k->block); break;
    case KEY_BLOCK_SIZE: r = whole(s, key, v, 1, 1024, &f->block_size); break;
    case KEY_REGISTERS:
        r = whole(s, key, v, 1, 255, &f->registers);
        snprintf(f->blocks_said, sizeof f->blocks_said, "%s:%d: registers", s->file, s->line);
        break;
    case KEY_OCCUPANCY:
        r = number(s, key, v, 0, 1, &f->occupancy);
        if (!r && f->occupancy <= 0) r = fail_at(s, s->line, key, "'%s' is out of range (0, 1]", v);
        break;
    case KEY_BLOCKS_PER_SM:
        if (!(r = whole_double(s, key, v, 1, 64, &x))) f->blocks_per_sm = x;
        snprintf(f->blocks_said, sizeof f->blocks_said, "%s:%d: blocks_per_sm", s->file, s->line);
        break;
    }
    return r;
}

/* "  key = value  # comment": the key and value trimmed, in place.  Returns
 * 0 for a line with nothing on it, 1 for key = value, -1 otherwise. */
static int split_line(char *line, char **key, char **value)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *eq = strchr(line, '=');
    char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (!*p) return 0;
    if (!eq) return -1;
    *eq = 0;
    char *v = eq + 1;
    for (char *e = eq; e > p && isspace((unsigned char)e[-1]);) *--e = 0;
    while (isspace((unsigned char)*v)) v++;
    for (char *e = v + strlen(v); e > v && isspace((unsigned char)e[-1]);) *--e = 0;
    *key = p;
    *value = v;
    return 1;
}

/* Keys whose value is a comma list, spaces allowed around the commas. */
static int list_key(int key)
{
    return key == KEY_MIS_READS || key == KEY_MIS_WRITES || key == KEY_READ_SHIFT || key == KEY_WRITE_SHIFT;
}

/* A value's text, before its meaning: at most MAX_VALUE characters (never
 * cut), printable ASCII (no control byte, tab or escape sequence reaches
 * an error, a CSV file or generated source), and no space inside one value
 * ("1 0" once read as 10), only around a list's commas.  The value is not
 * echoed here: it is not yet known to be printable. */
static int check_value_text(parse_state *s, int key, const char *v)
{
    const size_t n = strlen(v);
    if (n > MAX_VALUE)
        return fail_at(s, s->line, key, "a value of %zu characters, over the %d a value may have", n, MAX_VALUE);
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c > 0x7e) /* a tab too: an error echoes the value */
            return fail_at(s, s->line, key, "a control or non-ASCII byte (0x%02x, character %zu of the value): "
                           "values are printable ASCII", c, i + 1);
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i] != ' ') continue;
        size_t j = i;
        while (v[j] == ' ') j++;
        if (!list_key(key) || (v[i - 1] != ',' && v[j] != ','))
            return fail_at(s, s->line, key, "a space inside the value (character %zu): one value, no spaces%s",
                           i + 1, list_key(key) ? " but around a list's commas" : "");
        i = j - 1;
    }
    return 0;
}

/* A key is a word of a-z, 0-9 and _: anything else is no kernel-file
 * line, and is never echoed (a file that is not a kernel description,
 * /etc/shadow, would be). */
static int key_word(const char *key)
{
    const size_t n = strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_");
    return n >= 1 && n <= 32 && !key[n];
}

static int one_line(parse_state *s, char *line)
{
    char *key, *value;
    const int r = split_line(line, &key, &value);
    if (!r) return 0;
    if (r < 0 || !key_word(key)) {
        snprintf(s->err, s->err_len, "%s:%d: not a 'key = value' line (keys: doc/kernels.md)", s->file, s->line);
        return -1;
    }
    int id = 0;
    while (id < KEYS && strcmp(key, key_names[id])) id++;
    if (id == KEYS) {
        snprintf(s->err, s->err_len, "%s:%d: %s: unknown key (doc/kernels.md lists the keys)", s->file, s->line, key);
        return -1;
    }
    if (s->at[id]) return fail_at(s, s->line, id, "given again (first on line %d)", s->at[id]);
    s->at[id] = s->line;
    if (!*value) return fail_at(s, s->line, id, "no value");
    if (check_value_text(s, id, value)) return -1;
    return set_value(s, id, value);
}

/* A contradiction between keys a and b, reported at the later one's line. */
__attribute__((format(printf, 4, 5))) static int fail_later(parse_state *s, int a, int b, const char *fmt, ...)
{
    const int key = s->at[a] > s->at[b] ? a : b;
    va_list ap;
    va_start(ap, fmt);
    vfail_at(s, s->at[key], key, fmt, ap);
    va_end(ap);
    return -1;
}

static int check_misalignment(parse_state *s)
{
    model_kernel *k = &s->out->k;
    const int keys[4] = {KEY_MIS_READS, KEY_MIS_WRITES, KEY_READ_SHIFT, KEY_WRITE_SHIFT};
    const int counts[4] = {s->n_reads, s->n_writes, s->n_read_shifts, s->n_write_shifts};
    k->phases = 1;
    for (int i = 0; i < 4; i++) {
        if (counts[i] <= 1) continue;
        for (int j = 0; j < i; j++)
            if (counts[j] > 1 && counts[j] != counts[i])
                return fail_later(s, keys[j], keys[i],
                                  "%d launches in %s, %d in %s: give lists of one length (or one value)", counts[j],
                                  key_names[keys[j]], counts[i], key_names[keys[i]]);
        k->phases = counts[i];
    }
    for (int p = k->phases - 1; p >= 0; p--) {
        k->misaligned_reads[p] = k->misaligned_reads[s->n_reads > 1 ? p : 0];
        k->misaligned_writes[p] = k->misaligned_writes[s->n_writes > 1 ? p : 0];
        k->read_shift[p] = k->read_shift[s->n_read_shifts > 1 ? p : 0];
        k->write_shift[p] = k->write_shift[s->n_write_shifts > 1 ? p : 0];
    }
    for (int p = 0; p < k->phases; p++) {
        if (k->misaligned_reads[p] > k->words_read)
            return fail_at(s, s->at[KEY_MIS_READS], KEY_MIS_READS, "%d is more than words_read",
                           k->misaligned_reads[p]);
        if (k->misaligned_writes[p] > k->words_written)
            return fail_at(s, s->at[KEY_MIS_WRITES], KEY_MIS_WRITES, "%d is more than words_written",
                           k->misaligned_writes[p]);
    }
    return 0;
}

/* Words of a set that a shift moves in x (at x +- 1: misaligned). */
static int x_shifted(model_velocities v, unsigned shift)
{
    int c[MODEL_MAX_Q][3], n = 0;
    const int q = model_velocities_of(v, c);
    for (int i = 0; i < q; i++) {
        int d[3];
        model_shift_apply(shift, c[i], d);
        n += d[0] != 0;
    }
    return n;
}

/* velocities against the words, the shifts against the misalignment (which
 * they give where the file does not). */
static int check_stencil(parse_state *s)
{
    model_kernel *k = &s->out->k;
    const int shifts = s->at[KEY_READ_SHIFT] || s->at[KEY_WRITE_SHIFT];
    if (!s->at[KEY_VELOCITIES]) {
        if (!shifts) return 0;
        const int key = s->at[KEY_READ_SHIFT] ? KEY_READ_SHIFT : KEY_WRITE_SHIFT;
        return fail_at(s, s->at[key], key, "needs velocities (the set whose c_i it shifts by)");
    }
    int c[MODEL_MAX_Q][3];
    const int q = model_velocities_of(k->velocities, c);
    const char *set = model_velocities_name(k->velocities);
    if (k->words_read != q)
        return fail_later(s, KEY_VELOCITIES, KEY_WORDS_READ,
                          "%s has %d velocities, words_read is %g: a word per velocity", set, q, k->words_read);
    if (k->words_written != q)
        return fail_later(s, KEY_VELOCITIES, s->at[KEY_WORDS_WRITTEN] ? KEY_WORDS_WRITTEN : KEY_WORDS_READ,
                          "%s has %d velocities, words_written is %g: a word per velocity", set, q, k->words_written);
    for (int side = 0; side < 2; side++) {
        const int mis_key = side ? KEY_MIS_WRITES : KEY_MIS_READS, shift_key = side ? KEY_WRITE_SHIFT : KEY_READ_SHIFT;
        int *mis = side ? k->misaligned_writes : k->misaligned_reads;
        const unsigned char *shift = side ? k->write_shift : k->read_shift;
        for (int p = 0; p < k->phases; p++) {
            const int n = x_shifted(k->velocities, shift[p]);
            if (!s->at[mis_key]) mis[p] = n;
            else if (mis[p] != n) {
                char text[16];
                model_shift_text(shift[p], text, sizeof text);
                return fail_later(s, mis_key, s->at[shift_key] ? shift_key : KEY_VELOCITIES,
                                  "%s %s moves %d of %s's words in x (launch %d), %s says %d", key_names[shift_key],
                                  text, n, set, p + 1, key_names[mis_key], mis[p]);
            }
        }
    }
    return 0;
}

/* The block's shape against the launch; fills block[] and block_size. */
static int check_block(parse_state *s)
{
    model_kernel_file *f = s->out;
    model_kernel *k = &f->k;
    const int have_block = s->at[KEY_BLOCK] > 0;
    if (k->launch == MODEL_LAUNCH_GRID && !have_block)
        return fail_at(s, s->last_line, KEY_BLOCK, "missing (a grid launch needs BXxBYxBZ)");
    if (have_block && k->launch != MODEL_LAUNCH_GRID && (k->block[1] != 1 || k->block[2] != 1))
        return fail_later(s, KEY_BLOCK, KEY_LAUNCH, "a %s launch with a block of y or z size above 1 (use launch = grid)",
                          k->launch == MODEL_LAUNCH_ROWS ? "rows" : "linear");
    if (have_block) {
        const int threads = k->block[0] * k->block[1] * k->block[2];
        if (f->block_size && f->block_size != threads)
            return fail_later(s, KEY_BLOCK, KEY_BLOCK_SIZE, "block_size %d, block %dx%dx%d: block_size must be BX*BY*BZ",
                              f->block_size, k->block[0], k->block[1], k->block[2]);
        f->block_size = threads;
    } else if (f->block_size) {
        k->block[0] = f->block_size;
        k->block[1] = k->block[2] = 1;
    }
    if (k->launch == MODEL_LAUNCH_ROWS && !f->block_size)
        return fail_at(s, s->last_line, KEY_BLOCK_SIZE, "missing (a rows launch rounds each row up to a block)");
    return 0;
}

/* At most one of registers, occupancy, blocks_per_sm; the first two need
 * the block size. */
static int check_occupancy(parse_state *s)
{
    const int keys[3] = {KEY_REGISTERS, KEY_OCCUPANCY, KEY_BLOCKS_PER_SM};
    int first = -1;
    for (int i = 0; i < 3; i++) {
        if (!s->at[keys[i]]) continue;
        if (first >= 0)
            return fail_later(s, first, keys[i], "given with %s: give one of registers, occupancy, blocks_per_sm",
                              key_names[s->at[first] > s->at[keys[i]] ? keys[i] : first]);
        first = keys[i];
    }
    if ((s->at[KEY_REGISTERS] || s->at[KEY_BLOCKS_PER_SM]) && !s->out->block_size) {
        const int key = s->at[KEY_REGISTERS] ? KEY_REGISTERS : KEY_BLOCKS_PER_SM;
        return fail_at(s, s->at[key], key, "needs block_size or block");
    }
    return 0;
}

static int check_required(parse_state *s)
{
    const int required[] = {KEY_NAME, KEY_WORDS_READ};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!s->at[required[i]])
            return fail_at(s, s->last_line, required[i], "missing (a required key)");
    if (!s->at[KEY_WORDS_WRITTEN]) s->out->k.words_written = s->out->k.words_read;
    return 0;
}

int model_kernel_file_parse(const char *text, const char *file, model_kernel_file *out, char *err, size_t err_len)
{
    *out = (model_kernel_file){.k = {.word_bytes = 4, .lattices = 2, .launches_per_step = 1, .phases = 1,
                                     .cells_per_thread = 1}};
    parse_state s = {.file = file, .n_reads = 1, .n_writes = 1, .n_read_shifts = 1, .n_write_shifts = 1, .out = out,
                     .err = err, .err_len = err_len};
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        s.line++;
        if (n >= sizeof line) {
            snprintf(err, err_len, "%s:%d: line longer than %zu characters", file, s.line, sizeof line - 1);
            return -1;
        }
        memcpy(line, p, n);
        line[n] = 0;
        if (one_line(&s, line)) return -1;
        p += n + (nl != NULL);
    }
    s.last_line = s.line > 0 ? s.line : 1;
    if (check_required(&s) || check_misalignment(&s) || check_stencil(&s) || check_block(&s) || check_occupancy(&s))
        return -1;
    return 0;
}

/* What a path that is not a regular file is, for the error. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "directory" : S_ISFIFO(m) ? "FIFO" : S_ISCHR(m) ? "character device" : S_ISBLK(m) ? "block device"
           : S_ISSOCK(m) ? "socket" : "special file";
}

/* The file's bytes (at most MAX_FILE_BYTES) into text; 0, or -1 with err.
 * Opened without blocking (a FIFO with no writer would block open and
 * read) and refused unless fstat says a regular file. */
static int read_text(const char *path, char *text, size_t *len, char *err, size_t err_len)
{
    for (const char *c = path; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            snprintf(err, err_len, "a kernel file path with a control byte (0x%02x, character %zu): not read",
                     (unsigned char)*c, (size_t)(c - path) + 1);
            return -1;
        }
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot open (%s)", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int r = -1;
    if (fstat(fd, &st)) snprintf(err, err_len, "%s: cannot stat (%s)", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(err, err_len, "%s: a %s, not a regular file: not a kernel description", path, file_kind(st.st_mode));
    else if (st.st_size > MAX_FILE_BYTES)
        snprintf(err, err_len, "%s: %lld bytes, over the %d a kernel description may have", path,
                 (long long)st.st_size, MAX_FILE_BYTES);
    else
        r = 0;
    *len = 0;
    while (!r) { /* to the end, or one byte past the limit (a file that grew) */
        const ssize_t n = read(fd, text + *len, MAX_FILE_BYTES + 1 - *len);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(err, err_len, "%s: cannot read (%s)", path, strerror(errno));
            r = -1;
        } else if ((*len += (size_t)n) > MAX_FILE_BYTES) {
            snprintf(err, err_len, "%s: over the %d bytes a kernel description may have", path, MAX_FILE_BYTES);
            r = -1;
        }
    }
    close(fd);
    return r;
}

int model_kernel_file_read(const char *path, model_kernel_file *out, char *err, size_t err_len)
{
    char text[MAX_FILE_BYTES + 2];
    size_t n;
    if (read_text(path, text, &n, err, err_len)) return -1;
    text[n] = 0;
    if (memchr(text, 0, n)) {
        snprintf(err, err_len, "%s: holds a NUL byte: not a kernel description", path);
        return -1;
    }
    return model_kernel_file_parse(text, path, out, err, err_len);
}
