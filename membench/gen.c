/* membench kernel generator (see gen.h). */
#include "gen.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growing text buffer ---------------------------------------------- */
typedef struct {
    char *s;
    size_t len, cap;
} text;

static void text_put(text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + n + 1 > cap) cap *= 2;
        char *p = realloc(t->s, cap);
        if (!p) {
            fprintf(stderr, "membench: out of memory generating a kernel\n");
            exit(1);
        }
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static void text_printf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "membench: out of memory generating a kernel\n");
        exit(1);
    }
    text_put(t, line);
    free(line);
}

/* ---- the values kernels and host agree on ------------------------------- */
#define MB_SEED_HI_SALT 0x5bd1e995u
#define MB_POISON32 0xdeadbeefu
/* 2-byte words: the pattern is odd, the seed word even, the poison even, so
 * that an unwritten word never passes for a written one (with 65536 values
 * a chance match would be common) */
#define MB_POISON16 0xbeeeu
#define MB_POISON64 0xdeadbeefdeadbeefull

/* splitmix64's finaliser: input words that no shifted or stale copy matches. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The same function in the dialect (no suffixes: the hex literals are
 * unsigned 64-bit in both CUDA C++ and OpenCL C). */
static const char kernel_mix64[] =
    "static INLINE u64 mb_mix(u64 z)\n"
    "{\n"
    "    z += (u64)0x9E3779B97F4A7C15;\n"
    "    z = (z ^ (z >> 30)) * (u64)0xBF58476D1CE4E5B9;\n"
    "    z = (z ^ (z >> 27)) * (u64)0x94D049BB133111EB;\n"
    "    return z ^ (z >> 31);\n"
    "}\n";

uint64_t mb_pattern(uint64_t element, int word_bytes)
{
    uint64_t z = mix64(element);
    return word_bytes == 2 ? (uint16_t)(z | 1u) : word_bytes == 4 ? (uint32_t)z : z;
}

uint64_t mb_seed_word(uint32_t seed, int word_bytes)
{
    return word_bytes == 2   ? (uint16_t)(seed & 0xfffeu)
           : word_bytes == 4 ? seed
                             : ((uint64_t)seed << 32) | (uint32_t)(seed ^ MB_SEED_HI_SALT);
}

uint64_t mb_poison(int word_bytes)
{
    return word_bytes == 2 ? MB_POISON16 : word_bytes == 4 ? MB_POISON32 : MB_POISON64;
}

int64_t mb_stride(int64_t threads)
{
    return (threads + 1 + 31) / 32 * 32;
}

int mb_wraps(const mb_probe_spec *s)
{
    return s->swapped || (s->in_place && !s->runs_on && mb_vector(s) == 1 && mb_row(s) == 1 && mb_band(s) == 32 &&
                          !mb_is_tile(s));
}

int mb_checked_writes(const mb_probe_spec *s)
{
    return s->in_place && mb_wraps(s) ? 0 : s->misaligned_writes;
}

int64_t mb_spec_stride(const mb_probe_spec *s, int64_t threads)
{
    return s->in_place && mb_wraps(s) ? (threads + 31) / 32 * 32 : mb_stride(threads);
}

int mb_vector(const mb_probe_spec *s)
{
    return s->vector > 1 ? s->vector : 1;
}

uint64_t mb_expected(const mb_probe_spec *s, int64_t stride, int64_t threads, uint32_t seed, int64_t launches,
                     int array, int64_t j)
{
    threads *= mb_vector(s); /* the words of each array the launch moves */
    int64_t read_shift = array < s->misaligned_reads, write_shift = array < mb_checked_writes(s);
    int written = j >= write_shift && j < threads + write_shift;
    if (s->swapped) { /* the last launch wrote in after an even count, out after an odd one */
        const int odd = launches % 2;
        if (j >= threads) return odd ? mb_poison(s->word_bytes) : mb_pattern((uint64_t)(array * stride + j), s->word_bytes);
        int64_t d = read_shift - write_shift, x = (j + (launches % threads) * d % threads + threads) % threads;
        return mb_pattern((uint64_t)(array * stride + x), s->word_bytes) ^ (odd ? mb_seed_word(seed, s->word_bytes) : 0);
    }
    if (s->in_place) /* L = M: word j of array k is read and written by one thread, once per launch */
        return mb_pattern((uint64_t)(array * stride + j), s->word_bytes) ^
               (written && launches % 2 ? mb_seed_word(seed, s->word_bytes) : 0);
    if (!written) return mb_poison(s->word_bytes);
    return mb_pattern((uint64_t)(array * stride + j - write_shift + read_shift), s->word_bytes) ^
           mb_seed_word(seed, s->word_bytes);
}

int mb_row(const mb_probe_spec *s)
{
    return s->row > 1 ? s->row : 1;
}

int64_t mb_row_items(const mb_probe_spec *s, int64_t cells)
{
    return (cells + mb_row(s) - 1) / mb_row(s);
}

unsigned mb_row_block(const mb_probe_spec *s, int64_t cells, unsigned bs, int units)
{
    const int64_t per_unit = mb_row_items(s, cells) / (units > 0 ? units : 1);
    if (mb_row(s) < 2 || per_unit >= (int64_t)bs) return bs;
    return per_unit > 1 ? (unsigned)per_unit : 1;
}

int mb_band(const mb_probe_spec *s)
{
    return s->band > 0 ? s->band : 32;
}

/* Threads of one band of 32 / BX rows: X / BX warps of 32. */
static int64_t band_threads(const mb_probe_spec *s)
{
    return (int64_t)MB_BAND_ROW_CELLS * 32 / mb_band(s);
}

int64_t mb_band_cell(const mb_probe_spec *s, int64_t t, int64_t threads)
{
    const int64_t bx = mb_band(s), per_band = band_threads(s);
    if (bx == 32 || t >= threads / per_band * per_band) return t;
    const int64_t w = t / 32, l = t % 32, band = w / (MB_BAND_ROW_CELLS / bx);
    return (band * (32 / bx) + l / bx) * MB_BAND_ROW_CELLS + (w % (MB_BAND_ROW_CELLS / bx)) * bx + l % bx;
}

int mb_is_tile(const mb_probe_spec *s)
{
    return s->tile[0] > 0;
}

/* X (Y) of a tile probe's lattice for blocks b threads wide in x (y): the
 * largest multiple of b up to MB_TILE_EXTENT, b itself where wider. */
static int64_t tile_extent(int b)
{
    return b >= MB_TILE_EXTENT ? b : MB_TILE_EXTENT / b * b;
}

void mb_tile_lattice(const mb_probe_spec *s, int64_t threads, int64_t dims[3])
{
    dims[0] = tile_extent(s->tile[0]);
    dims[1] = tile_extent(s->tile[1]);
    dims[2] = threads / (dims[0] * dims[1]) / s->tile[2] * s->tile[2];
}

int64_t mb_tile_cell(const mb_probe_spec *s, int64_t t, int64_t threads)
{
    int64_t d[3];
    mb_tile_lattice(s, threads, d);
    if (t >= d[0] * d[1] * d[2]) return t;
    const int64_t bx = s->tile[0], by = s->tile[1], bz = s->tile[2], b = t / (bx * by * bz), r = t % (bx * by * bz);
    const int64_t nbx = d[0] / bx, nby = d[1] / by;
    const int64_t x = b % nbx * bx + r % bx, y = b / nbx % nby * by + r / bx % by, z = b / (nbx * nby) * bz + r / (bx * by);
    return x + d[0] * (y + d[1] * z);
}

const char *mb_tile_name(const int tile[3], char *buf, size_t len)
{
    snprintf(buf, len, "%dx%dx%d", tile[0], tile[1], tile[2]);
    return buf;
}

int mb_tile_parse(const char *text, int tile[3], char *why, size_t why_len)
{
    char tail;
    if (sscanf(text, "%dx%dx%d%c", &tile[0], &tile[1], &tile[2], &tail) != 3 || !isdigit((unsigned char)text[0])) {
        snprintf(why, why_len, "'%s' is not BXxBYxBZ", text);
        return 1;
    }
    if (tile[0] < 1 || tile[1] < 1 || tile[2] < 1 || (long long)tile[0] * tile[1] * tile[2] > MB_MAX_TILE_THREADS) {
        snprintf(why, why_len, "'%s': each size >= 1, at most %d threads in all", text, MB_MAX_TILE_THREADS);
        return 1;
    }
    return 0;
}

/* What a tile probe's spec cannot have: 0, or 1 with why. */
static int tile_check(const mb_probe_spec *s, char *why, size_t why_len)
{
    if (!mb_is_tile(s)) return 0;
    char name[48];
    mb_tile_name(s->tile, name, sizeof name);
    if (s->tile[1] < 1 || s->tile[2] < 1 || (long long)s->tile[0] * s->tile[1] * s->tile[2] > MB_MAX_TILE_THREADS)
        snprintf(why, why_len, "tile %s: each size >= 1, at most %d threads in all", name, MB_MAX_TILE_THREADS);
    else if (mb_band(s) < 32 || mb_vector(s) > 1 || mb_row(s) > 1 || s->swapped || s->stamps)
        snprintf(why, why_len, "a tile probe (%s) has no band, vector, row, swapped or stamped form", name);
    else
        return 0;
    return 1;
}

int mb_spec_check(const mb_probe_spec *s, char *why, size_t why_len)
{
    if (s->words < 1 || s->words > MB_MAX_WORDS)
        snprintf(why, why_len, "words N=%d is outside 1..%d", s->words, MB_MAX_WORDS);
    else if (s->word_bytes != 2 && s->word_bytes != 4 && s->word_bytes != 8)
        snprintf(why, why_len, "word size %d B is not 2, 4 or 8", s->word_bytes);
    else if (s->misaligned_reads < 0 || s->misaligned_reads > s->words)
        snprintf(why, why_len, "misaligned reads L=%d is outside 0..N=%d", s->misaligned_reads, s->words);
    else if (s->misaligned_writes < 0 || s->misaligned_writes > s->words)
        snprintf(why, why_len, "misaligned writes M=%d is outside 0..N=%d", s->misaligned_writes, s->words);
    else if (s->payload < 0 || s->payload > MB_MAX_PAYLOAD)
        snprintf(why, why_len, "payload P=%d is outside 0..%d", s->payload, MB_MAX_PAYLOAD);
    else if (s->in_place && s->misaligned_reads != s->misaligned_writes)
        snprintf(why, why_len, "an in-place probe reads and writes the same words: L=%d and M=%d differ",
                 s->misaligned_reads, s->misaligned_writes);
    else if (s->in_place && s->swapped)
        snprintf(why, why_len, "an in-place probe has one array: it cannot swap two");
    else if (s->vector < 0 || s->vector > MB_MAX_VECTOR || (s->vector > 2 && s->vector != MB_MAX_VECTOR))
        snprintf(why, why_len, "vector V=%d is not 1, 2 or 4", s->vector);
    else if (mb_vector(s) > 1 && s->word_bytes * s->vector > 8)
        snprintf(why, why_len, "vector V=%d of %d-byte words is wider than 8 bytes", s->vector, s->word_bytes);
    else if (mb_vector(s) > 1 && (s->payload || s->swapped || s->stamps))
        snprintf(why, why_len, "a vector probe (V=%d) has no payload, swapped or stamped form", s->vector);
    else if (s->row < 0 || s->row > MB_MAX_ROW)
        snprintf(why, why_len, "row R=%d is outside 0..%d", s->row, MB_MAX_ROW);
    else if (mb_row(s) > 1 && (mb_vector(s) > 1 || s->swapped || s->stamps))
        snprintf(why, why_len, "a row probe (R=%d) has no vector, swapped or stamped form", s->row);
    else if (s->folded && (mb_row(s) < 2 || !s->payload || s->word_bytes == 2))
        snprintf(why, why_len, "a folded payload: a row probe's (R=%d) payload (P=%d) of 4- or 8-byte words (%d)",
                 mb_row(s), s->payload, s->word_bytes);
    else if (s->row_ends && (mb_row(s) < 2 || s->nontemporal))
        snprintf(why, why_len, "ends apart: a row probe (R=%d) with normal stores", mb_row(s));
    else if (s->band != 0 && s->band != 4 && s->band != 8 && s->band != 16 && s->band != 32)
        snprintf(why, why_len, "band BX=%d is not 4, 8, 16 or 32", s->band);
    else if (mb_band(s) < 32 && (mb_vector(s) > 1 || mb_row(s) > 1 || s->swapped || s->stamps))
        snprintf(why, why_len, "a narrow probe (BX=%d) has no vector, row, swapped or stamped form", s->band);
    else if (s->tile[0] < 0)
        snprintf(why, why_len, "tile BX=%d is negative", s->tile[0]);
    else if (s->nontemporal && (mb_row(s) < 2 || s->in_place || s->misaligned_writes || s->word_bytes == 2))
        snprintf(why, why_len, "non-temporal stores: a row probe of 4- or 8-byte words storing aligned into out "
                               "(R=%d, %d-byte words, M=%d%s)",
                 mb_row(s), s->word_bytes, s->misaligned_writes, s->in_place ? ", in place" : "");
    else
        return tile_check(s, why, why_len);
    return 1;
}

const char *mb_spec_name(const mb_probe_spec *s, char *buf, size_t len)
{
    snprintf(buf, len, "N%d-L%d-M%d-w%d", s->words, s->misaligned_reads, s->misaligned_writes, s->word_bytes);
    if (s->payload) snprintf(buf + strlen(buf), len - strlen(buf), "-p%d", s->payload);
    if (s->in_place) snprintf(buf + strlen(buf), len - strlen(buf), "-ip");
    if (s->swapped) snprintf(buf + strlen(buf), len - strlen(buf), "-sw");
    if (mb_vector(s) > 1) snprintf(buf + strlen(buf), len - strlen(buf), "-v%d", s->vector);
    if (mb_row(s) > 1) snprintf(buf + strlen(buf), len - strlen(buf), "-r%d", s->row);
    if (s->row_ends) snprintf(buf + strlen(buf), len - strlen(buf), "-e");
    if (s->folded) snprintf(buf + strlen(buf), len - strlen(buf), "-f");
    if (mb_band(s) < 32) snprintf(buf + strlen(buf), len - strlen(buf), "-x%d", s->band);
    if (mb_is_tile(s))
        snprintf(buf + strlen(buf), len - strlen(buf), "-t%dx%dx%d", s->tile[0], s->tile[1], s->tile[2]);
    if (s->nontemporal) snprintf(buf + strlen(buf), len - strlen(buf), "-nt");
    return buf;
}

int mb_payload_ops(int words, int payload)
{
    return payload > 0 ? words * payload + words - 1 : 0;
}

int mb_payload_ops_of(const mb_probe_spec *s)
{
    return s->folded && s->payload > 0 ? s->words * s->payload + 3 * s->words - 2
                                       : mb_payload_ops(s->words, s->payload);
}

/* ---- the probe ----------------------------------------------------------- */

/* %globaltimer stamps.  MB_STAMP_AFTER must not issue before the loads it
 * times have completed: an input operand the instruction does not use is
 * dropped by ptxas (the read then issues right after the loads are sent),
 * so the read is predicated on a comparison of dep, which has to wait for
 * the loaded values.  Both predicate values read the clock.  Checked on the
 * sm_90 SASS: LOP3 (xor of the loads) -> ISETP -> CS2R SR_GLOBALTIMERLO. */
static const char stamp_macros[] =
    "#if LBP_HAS_CLOCK\n"
    "#define MB_STAMP(t) asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t) :: \"memory\")\n"
    "#define MB_STAMP_AFTER(t, dep) asm volatile(\"{\\n\\t.reg .pred p;\\n\\t\"                 \\\n"
    "    \"setp.ne.u32 p, %1, 0x9e3779b9;\\n\\t@p mov.u64 %0, %%globaltimer;\\n\\t\"          \\\n"
    "    \"@!p mov.u64 %0, %%globaltimer;\\n\\t}\" : \"=l\"(t) : \"r\"(dep) : \"memory\")\n"
    "#endif\n";

/* 1 in the lowest bit of each of a vector's V words: times the seed word,
 * the seed in every lane. */
static uint64_t lane_ones(const mb_probe_spec *s)
{
    uint64_t ones = 0;
    for (int e = 0; e < mb_vector(s); e++) ones |= 1ull << (8 * s->word_bytes * e);
    return ones;
}

/* mb_band_cell in the dialect: i, the cell of thread t_. */
static void band_index(text *t, const mb_probe_spec *s)
{
    const int bx = mb_band(s), warps = MB_BAND_ROW_CELLS / bx;
    text_printf(t,
                "    const i64 t_ = global_id(0);\n"
                "    if (t_ >= threads) return;\n"
                "    const i64 w_ = t_ / 32, l_ = t_ %% 32, band_ = w_ / %d;\n"
                "    const i64 i = t_ >= threads / %lld * %lld ? t_ /* the last partial band: linear */\n"
                "                : (band_ * %d + l_ / %d) * %d + (w_ %% %d) * %d + l_ %% %d;\n",
                warps, (long long)band_threads(s), (long long)band_threads(s), 32 / bx, bx, MB_BAND_ROW_CELLS,
                warps, bx, bx);
}

/* A vector probe whose misaligned words go through the neighbour exchange:
 * misaligned stores without misaligned loads, the shape of the fp16s push
 * kernels that exchange (d3q19.cl, LBM_XCHG); A-A's odd step, misaligned
 * both ways, stores its shifted words one a cell, and so does the probe of
 * that shape. */
static int vector_exchanges(const mb_probe_spec *s)
{
    return mb_vector(s) > 1 && s->misaligned_writes && !s->misaligned_reads;
}

/* mb_tile_cell in the dialect: i, the cell of thread t_ (X, Y constants,
 * Z from the launch's threads). */
static void tile_index(text *t, const mb_probe_spec *s)
{
    int64_t d[3];
    mb_tile_lattice(s, 0, d);
    const int bx = s->tile[0], by = s->tile[1], bz = s->tile[2];
    text_printf(t,
                "    const i64 t_ = global_id(0);\n"
                "    if (t_ >= threads) return;\n"
                "    const i64 tiled_ = threads / %lld / %d * %d * %lld; /* X Y Z: whole layers of tiles */\n"
                "    const i64 b_ = t_ / %d, r_ = t_ %% %d; /* block, thread in it */\n"
                "    const i64 i = t_ >= tiled_ ? t_ /* past the last whole layer: linear */\n"
                "                : (b_ %% %lld * %d + r_ %% %d)\n"
                "                  + %lld * ((b_ / %lld %% %lld * %d + r_ / %d %% %d)\n"
                "                  + %lld * (b_ / %lld * %d + r_ / %d));\n",
                (long long)(d[0] * d[1]), bz, bz, (long long)(d[0] * d[1]), bx * by * bz, bx * by * bz,
                (long long)(d[0] / bx), bx, bx, (long long)d[0], (long long)(d[0] / bx), (long long)(d[1] / by), by, bx,
                by, (long long)d[1], (long long)(d[0] / bx * (d[1] / by)), bz, bx * by);
}

/* A non-temporal row probe (gen.h): the row in chunks of LBP_STREAM_CHUNK
 * cells, as lbmkernels' LBM_NT rows run, each chunk's words first into
 * mb_nt (in L1), as the kernel's nt_row. */
static void nontemporal_row_header(text *t, const mb_probe_spec *s)
{
    text_printf(t,
                "#if !defined(LBP_HAS_NT_STORE) || !LBP_HAS_NT_STORE\n"
                "#error \"non-temporal stores: this backend's prelude offers none\"\n"
                "#endif\n"
                "    const i64 i_first = (i64)global_id(0) * %d;\n"
                "    const i64 i_end = i_first + %d < threads ? i_first + %d : threads;\n"
                "    %s mb_nt[%d][LBP_STREAM_CHUNK];\n"
                "    for (i64 i0 = i_first; i0 < i_end; i0 += LBP_STREAM_CHUNK) {\n"
                "    const i64 i_stop = i_end - i0 < LBP_STREAM_CHUNK ? i_end : i0 + LBP_STREAM_CHUNK;\n"
                "#pragma omp simd\n"
                "    for (i64 i = i0; i < i_stop; i++) {\n",
                s->row, s->row, s->row, s->word_bytes == 8 ? "double" : "float", s->words);
}

/* The chunk's words from mb_nt to out with the prelude's non-temporal
 * stores (the kernel's NT_FLUSH), and after the row the fence (its
 * lbp_stream_fence). */
static void nontemporal_flush(text *t, const mb_probe_spec *s)
{
    const char *stream = s->word_bytes == 8 ? "lbp_stream_f64" : "lbp_stream_f32";
    const char *real = s->word_bytes == 8 ? "double" : "float";
    text_put(t, "    }\n");
    for (int k = 0; k < s->words; k++)
        text_printf(t, "    %s((%s *)(out + %d * stride + i0), mb_nt[%d], i_stop - i0);\n", stream, real, k, k);
    text_put(t, "    }\n"
                "    lbp_stream_fence();\n"
                "}\n");
}

static void probe_header(text *t, const mb_probe_spec *s, const char *word)
{
    char name[64];
    text_printf(t,
                "/* membench probe %s (generated): each thread i reads %d words of %d B, word k\n"
                " * from in[k*stride + i], the first %d of them at i+1 (misaligned), and writes\n"
                " * word k ^ seed to %s[k*stride + i], the first %d at i+1, after %d\n"
                " * multiply-adds per word%s.  Straight-line code, no loop over the words\n"
                " * (Obrecht Art. B §3).%s%s */\n",
                mb_spec_name(s, name, sizeof name), s->words, s->word_bytes, s->misaligned_reads,
                s->in_place ? "in" : "out", s->misaligned_writes, s->payload,
                s->in_place ? " (in place: into the array it reads; out is not touched)" : "",
                s->swapped ? "  Swapped: the host passes in and out the other way\n"
                             " * round at every other launch; i+1 wraps to 0 at the last thread" : "",
                mb_vector(s) > 1 ? "  Vector: thread i moves words V i .. V i + V - 1 of each array\n"
                                   " * as one aligned access, the misaligned ones (V i + 1 ..) as V single words"
                : mb_row(s) > 1 ? "  Row: work-item t moves cells i = R t .. R t + R - 1 in a loop\n"
                                  " * (the row kernels' shape on a CPU)"
                : mb_band(s) < 32 ? "  Narrow: each warp moves BX cells of each of 32 / BX rows\n"
                                    " * (gen.h), as a grid of blocks BX threads wide in x does"
                : mb_is_tile(s) ? "  Tile: threads take cells as a 3D grid launch of blocks\n"
                                  " * BX x BY x BZ does (gen.h)" : "");
    if (s->stamps) text_put(t, stamp_macros);
    text_printf(t,
                "KERNEL void " MB_PROBE_ENTRY "(GLOBAL %s%s *RESTRICT in, GLOBAL %s *RESTRICT out,\n"
                "    i64 stride, i64 threads, u32 seed, u32 mask, GLOBAL u64 *RESTRICT stamps DYN_SHARED_PARAM)\n"
                "{\n",
                s->in_place ? "" : "const ", word, word);
    if (s->nontemporal)
        nontemporal_row_header(t, s);
    else if (s->row_ends)
        text_printf(t, "    const i64 i_first = (i64)global_id(0) * %d;\n"
                       "    const i64 i_end = i_first + %d < threads ? i_first + %d : threads;\n"
                       "    if (i_first >= i_end) return;\n",
                    s->row, s->row, s->row);
    else if (mb_row(s) > 1)
        text_printf(t, "    const i64 i_first = (i64)global_id(0) * %d;\n"
                       "    const i64 i_end = i_first + %d < threads ? i_first + %d : threads;\n"
                       "#if defined(__clang__)\n"
                       "#pragma clang loop vectorize(assume_safety)\n"
                       "#elif defined(LBP_OPENMP)\n"
                       "#pragma omp simd\n"
                       "#endif\n"
                       "    for (i64 i = i_first; i < i_end; i++) {\n",
                    s->row, s->row, s->row);
    else if (mb_band(s) < 32)
        band_index(t, s);
    else if (mb_is_tile(s))
        tile_index(t, s);
    else if (vector_exchanges(s))
        /* every thread meets the exchange's barrier (vector_writes): one
         * past the launch reads thread 0's words and stores nothing */
        text_printf(t, "#if LBP_HAS_GROUP_BARRIER\n"
                       "#if defined(LBP_MAX_GROUP) && LBP_MAX_GROUP <= 1024\n"
                       "#define MB_XG LBP_MAX_GROUP /* every thread of any group exchanges */\n"
                       "#else\n"
                       "#define MB_XG %d\n"
                       "#endif\n"
                       "    LOCAL %s xb_[%d * MB_XG];\n"
                       "    const i32 live_ = global_id(0) < threads;\n"
                       "    const i64 i = live_ ? global_id(0) : 0;\n"
                       "#else\n"
                       "    const i64 i = global_id(0);\n"
                       "    if (i >= threads) return;\n"
                       "#endif\n",
                    MB_XCHG_BLOCK, mb_word_type(s->word_bytes), s->misaligned_writes);
    else
        text_put(t, "    const i64 i = global_id(0);\n"
                    "    if (i >= threads) return;\n");
    if (mb_wraps(s) && (s->misaligned_reads || s->misaligned_writes))
        text_put(t, "    const i64 i1 = i + 1 < threads ? i + 1 : 0;\n");
    if (s->stamps)
        text_put(t, "#if LBP_HAS_CLOCK\n"
                    "    u64 t_start;\n"
                    "    MB_STAMP(t_start);\n"
                    "#endif\n");
}

/* The index of thread i's word: i, or one further (wrapping: mb_wraps) */
static const char *misaligned_index(const mb_probe_spec *s, int misaligned)
{
    return !misaligned ? "i" : mb_wraps(s) ? "i1" : "i + 1";
}

/* The payload of 2-byte words (gen.h): the sum reads word k's low 10 bits
 * as a float's mantissa in [1, 2) (integer operations), the chain converts
 * the half with those bits in [0.5, 1) to float and its result back to
 * half: one conversion each way per word, as a kernel of half storage and
 * float arithmetic has. */
static void probe_half_payload(text *t, const mb_probe_spec *s)
{
    text_put(t, "    const float a_ = 0.5f + (float)mask;\n");
    text_put(t, "    const float sum_ =");
    for (int k = 0; k < s->words; k++)
        text_printf(t, "%slbp_as_f32(((u32)(w%d & 0x3ffu) << 13) | 0x3f800000u)", k ? "\n        + " : " ", k);
    text_put(t, ";\n");
    for (int k = 0; k < s->words; k++) {
        text_printf(t, "    float x%d = lbp_half_to_float((u16)((w%d & 0x3ffu) | 0x3800u));\n", k, k);
        for (int p = 0; p < s->payload; p++) text_printf(t, "    x%d = x%d * a_ + sum_;\n", k, k);
    }
}

/* The sum of x_first .. x_{first + n - 1} in pairs, as lbmkernels'
 * collision sums its moments. */
static void pairwise_sum(text *t, int first, int n)
{
    if (n == 1) {
        text_printf(t, "x%d", first);
        return;
    }
    text_put(t, "(");
    pairwise_sum(t, first, n / 2);
    text_put(t, " + ");
    pairwise_sum(t, first + n / 2, n - n / 2);
    text_put(t, ")");
}

/* The 2-byte payload of a row probe, shaped as lbmkernels' fp16s row
 * kernels compute: each word's half converted to float as loaded
 * (lbp_half_to_float, every case of it: the compiler knows nothing of the
 * value), the N floats summed in pairs as the collision sums its moments,
 * each float's chain on the sum, its result converted back into its store.
 * Where the compiler leaves the half conversions scalar (a row of one cell
 * an iteration), a cell's arithmetic shows by its dependency chains and
 * its instructions: a sum of N - 1 adds in a row, and integer masking with
 * moves between integer and float registers around each conversion, which
 * the kernel does not do, made the probe's payload cost far more than the
 * kernel's collision.  The floats may be infinite or NaN, which slows no
 * arithmetic; never subnormal (a half's float is normal, and a chain's
 * values are multiples of 2^-31 or 0).  The one-cell probes keep the form
 * above (the curves a GPU's model reads). */
static void row_half_payload(text *t, const mb_probe_spec *s)
{
    text_put(t, "    const float a_ = 0.5f + (float)mask;\n");
    for (int k = 0; k < s->words; k++) text_printf(t, "    float x%d = lbp_half_to_float(w%d);\n", k, k);
    text_put(t, "    const float sum_ = ");
    pairwise_sum(t, 0, s->words);
    text_put(t, ";\n");
    for (int k = 0; k < s->words; k++)
        for (int p = 0; p < s->payload; p++) text_printf(t, "    x%d = x%d * a_ + sum_;\n", k, k);
}

/* The folded payload (gen.h): each word converted as a signed 32-bit
 * integer, the sum in pairs, each chain on it, the chains' results summed
 * in pairs into fold_, which the seed takes through the zero mask. */
static void folded_payload(text *t, const mb_probe_spec *s)
{
    const char *real = s->word_bytes == 4 ? "float" : "double";
    text_printf(t, "    const %s a_ = (%s)0.5 + (%s)mask;\n", real, real, real);
    for (int k = 0; k < s->words; k++) text_printf(t, "    %s x%d = (%s)(i32)w%d;\n", real, k, real, k);
    text_printf(t, "    const %s sum_ = ", real);
    pairwise_sum(t, 0, s->words);
    text_put(t, ";\n");
    for (int k = 0; k < s->words; k++)
        for (int p = 0; p < s->payload; p++) text_printf(t, "    x%d = x%d * a_ + sum_;\n", k, k);
    text_printf(t, "    const %s fold_ = ", real);
    pairwise_sum(t, 0, s->words);
    text_put(t, ";\n");
}

/* A vector probe's word k: one aligned access of V words, or, misaligned,
 * the V words one further, each loaded on its own and packed. */
static void vector_read(text *t, const mb_probe_spec *s, const char *vec, int k)
{
    const int v = mb_vector(s);
    if (k >= s->misaligned_reads) {
        text_printf(t, "    const %s w%d = *(GLOBAL const %s *)(in + %d * stride + %d * i);\n", vec, k, vec, k, v);
        return;
    }
    text_printf(t, "    const %s w%d =", vec, k);
    for (int e = 0; e < v; e++)
        text_printf(t, "%s((%s)in[%d * stride + %d * i + %d] << %d)", e ? " | " : " ", vec, k, v, e + 1,
                    8 * s->word_bytes * e);
    text_put(t, ";\n");
}

static void probe_reads(text *t, const mb_probe_spec *s, const char *word)
{
    for (int k = 0; k < s->words; k++)
        if (mb_vector(s) > 1)
            vector_read(t, s, word, k);
        else
            text_printf(t, "    const %s w%d = in[%d * stride + %s];\n", word, k, k,
                        misaligned_index(s, k < s->misaligned_reads));
    /* Every store depends on every load (as in a collision), so the compiler
     * can neither drop a load nor start storing before all loads are in. */
    text_printf(t, "    const %s all = w0", word);
    for (int k = 1; k < s->words; k++) text_printf(t, " ^ w%d", k);
    text_put(t, ";\n");
    if (s->folded) {
        folded_payload(t, s);
    } else if (s->payload && s->word_bytes == 2 && mb_row(s) > 1) {
        row_half_payload(t, s);
    } else if (s->payload && s->word_bytes == 2) {
        probe_half_payload(t, s);
    } else if (s->payload) {
        /* see gen.h: the sum of the words (a collision's moments), then P
         * dependent multiply-adds per word on it (its relaxation), each
         * word's chain feeding that word's store alone */
        const char *real = s->word_bytes == 4 ? "float" : "double";
        /* the sum reads each word as a number in [1, 2), its chain as one
         * in [0.5, 1): two expressions, so no compiler keeps the N numbers
         * live from the sum to the chains (the words themselves are live
         * until their stores, as in a collision) */
        const char *mant = s->word_bytes == 4 ? "0x007fffffu" : "(u64)0x000fffffffffffffL";
        const char *one = s->word_bytes == 4 ? "0x3f800000u" : "(u64)0x3ff0000000000000L";
        const char *half = s->word_bytes == 4 ? "0x3f000000u" : "(u64)0x3fe0000000000000L";
        const char *as = s->word_bytes == 4 ? "lbp_as_f32" : "lbp_as_f64";
        text_printf(t, "    const %s a_ = (%s)0.5 + (%s)mask;\n", real, real, real);
        text_printf(t, "    const %s sum_ =", real);
        for (int k = 0; k < s->words; k++)
            text_printf(t, "%s%s((w%d & %s) | %s)", k ? "\n        + " : " ", as, k, mant, one);
        text_put(t, ";\n");
        for (int k = 0; k < s->words; k++) {
            text_printf(t, "    %s x%d = %s((w%d & %s) | %s);\n", real, k, as, k, mant, half);
            for (int p = 0; p < s->payload; p++) text_printf(t, "    x%d = x%d * a_ + sum_;\n", k, k);
        }
    }
    if (mb_vector(s) > 1)
        text_printf(t, "    const %s s = ((%s)%s * (%s)0x%llx) ^ (all & (%s)mask); /* the seed word in each lane; mask is 0 */\n",
                    word, word, s->word_bytes == 2 ? "(seed & 0xfffeu)" : "seed", word,
                    (unsigned long long)lane_ones(s), word);
    else if (s->word_bytes == 2)
        text_put(t, "    const u16 s = (u16)((seed & 0xfffeu) ^ (all & mask)); /* mask is 0 */\n");
    else if (s->word_bytes == 4)
        text_printf(t, "    const u32 s = seed ^ (%s & mask); /* mask is 0 */\n",
                    s->folded ? "(all ^ lbp_as_u32(fold_))" : "all");
    else
        text_printf(t, "    const u64 s = (((u64)seed << 32) | (u64)(seed ^ 0x%xu)) ^ (%s & (u64)mask); /* mask is 0 */\n",
                    MB_SEED_HI_SALT, s->folded ? "(all ^ lbp_as_u64(fold_))" : "all");
    if (s->stamps)
        text_printf(t,
                    "#if LBP_HAS_CLOCK\n"
                    "    u64 t_reads;\n"
                    "    MB_STAMP_AFTER(t_reads, %s);\n"
                    "#endif\n",
                    s->word_bytes * mb_vector(s) == 8 ? "(u32)(all ^ (all >> 32))" : "(u32)all");
}

/* The array a probe stores into: in where it stores back where it read. */
static const char *stored_array(const mb_probe_spec *s)
{
    return s->in_place ? "in" : "out";
}

/* Misaligned array k's words 0 .. n - 1 of thread i stored one by one, one
 * word further (indent: the text's). */
static void single_words(text *t, const mb_probe_spec *s, int k, int n, const char *indent)
{
    const int v = mb_vector(s);
    for (int e = 0; e < n; e++)
        text_printf(t, "%s%s[%d * stride + %d * i + %d] = (%s)((w%d ^ s) >> %d);\n", indent, stored_array(s), k, v,
                    e + 1, mb_word_type(s->word_bytes), k, 8 * s->word_bytes * e);
}

/* The exchange (gen.h; the pairing rules are d3q19.cl's): each thread
 * hands its misaligned arrays' last words to thread i + 1 through local
 * memory, and after the barrier (every store after it, as in the kernel)
 * stores the aligned vector at V i, its lowest word thread i - 1's, where
 * both are among the group's first MB_XG threads; else its words but the
 * last one by one; its last word itself, read back from the exchange as the
 * kernel's XOWN, where thread i + 1 does not take it. */
static void exchange_put(text *t, const mb_probe_spec *s)
{
    const int v = mb_vector(s);
    text_put(t, "    const i32 xl_ = local_id(0);\n"
                "    const i32 xn_ = local_size(0) < MB_XG ? local_size(0) : MB_XG;\n");
    for (int k = 0; k < s->misaligned_writes; k++)
        text_printf(t, "    if (xl_ < xn_) xb_[%d * MB_XG + xl_] = (%s)((w%d ^ s) >> %d);\n", k,
                    mb_word_type(s->word_bytes), k, 8 * s->word_bytes * (v - 1));
    text_put(t, "    LOCAL_BARRIER;\n"
                "    if (!live_) return;\n"
                "    const i32 take_prev_ = xl_ > 0 && xl_ < xn_;\n"
                "    const i32 next_takes_ = xl_ + 1 < xn_ && i + 1 < threads;\n");
}

static void exchange_store(text *t, const mb_probe_spec *s, int k)
{
    const int v = mb_vector(s), bits = 8 * s->word_bytes;
    const char *vec = mb_word_type(s->word_bytes * v);
    text_printf(t,
                "    if (take_prev_) *(GLOBAL %s *)(out + %d * stride + %d * i) = ((w%d ^ s) << %d) | (%s)xb_[%d * MB_XG + xl_ - 1];\n"
                "    else {\n",
                vec, k, v, k, bits, vec, k);
    single_words(t, s, k, v - 1, "        ");
    text_printf(t, "    }\n"
                   "    if (!next_takes_) out[%d * stride + %d * i + %d] = xl_ < xn_ ? xb_[%d * MB_XG + xl_] : (%s)((w%d ^ s) >> %d);\n",
                k, v, v, k, mb_word_type(s->word_bytes), k, bits * (v - 1));
}

/* A vector probe's stores: one aligned access of V words, or, misaligned,
 * the V words one further: through the exchange where the dialect's
 * barrier holds a group and the probe has push's shape (vector_exchanges),
 * else each stored on its own. */
static void vector_writes(text *t, const mb_probe_spec *s)
{
    const int v = mb_vector(s), ex = vector_exchanges(s);
    for (int xchg = ex ? 0 : 1; xchg < 2; xchg++) {
        if (ex) text_put(t, xchg ? "#else\n" : "#if LBP_HAS_GROUP_BARRIER\n");
        if (ex && !xchg) exchange_put(t, s);
        for (int k = 0; k < s->words; k++)
            if (k >= s->misaligned_writes)
                text_printf(t, "    *(GLOBAL %s *)(%s + %d * stride + %d * i) = w%d ^ s;\n",
                            mb_word_type(s->word_bytes * v), stored_array(s), k, v, k);
            else if (!xchg)
                exchange_store(t, s, k);
            else
                single_words(t, s, k, v, "    ");
        if (!ex) return;
    }
    text_put(t, "#endif\n");
}

static void probe_writes(text *t, const mb_probe_spec *s)
{
    if (mb_vector(s) > 1) vector_writes(t, s);
    for (int k = 0; k < s->words && mb_vector(s) == 1; k++) {
        char extra[64] = "";
        if (s->payload && s->word_bytes == 2) snprintf(extra, sizeof extra, " ^ (lbp_float_to_half(x%d) & mask)", k);
        else if (s->payload && !s->folded) snprintf(extra, sizeof extra, " ^ (lbp_as_u%d(x%d) & mask)", 8 * s->word_bytes, k);
        if (s->nontemporal)
            text_printf(t, "    mb_nt[%d][i - i0] = lbp_as_f%d(w%d ^ s%s);\n", k, 8 * s->word_bytes, k, extra);
        else
            text_printf(t, "    %s[%d * stride + %s] = %sw%d ^ s%s%s;\n", stored_array(s), k,
                        misaligned_index(s, k < s->misaligned_writes), s->word_bytes == 2 ? "(u16)(" : "", k, extra,
                        s->word_bytes == 2 ? ")" : "");
    }
    if (s->stamps)
        text_printf(t, "#if LBP_HAS_CLOCK\n"
                       "    __threadfence(); /* the stores have completed before the last stamp */\n"
                       "    u64 t_writes;\n"
                       "    MB_STAMP(t_writes);\n"
                       "    if ((local_id(0) & 31) == 0) {\n"
                       "        const i64 warp = (i64)group_id(0) * ((local_size(0) + 31) / 32) + local_id(0) / 32;\n"
                       "        GLOBAL u64 *st = stamps + %d * warp;\n"
                       "        st[0] = lbp_smid();\n"
                       "        st[1] = t_start;\n"
                       "        st[2] = t_reads;\n"
                       "        st[3] = t_writes;\n"
                       "    }\n"
                       "#endif\n",
                    MB_STAMPS_PER_WARP);
    if (s->nontemporal) nontemporal_flush(t, s);
    else if (!s->row_ends) text_put(t, mb_row(s) > 1 ? "    }\n}\n" : "}\n");
}

/* A row with its ends apart (gen.h): one cell's body (reads, payload,
 * stores of cell i) for the first cell, the loop between, the last cell. */
static void row_with_ends(text *t, const mb_probe_spec *s)
{
    text body = {0};
    probe_reads(&body, s, mb_word_type(s->word_bytes));
    probe_writes(&body, s);
    text_printf(t, "    {\n    const i64 i = i_first;\n%s    }\n"
                   "#if defined(__clang__)\n"
                   "#pragma clang loop vectorize(assume_safety)\n"
                   "#elif defined(LBP_OPENMP)\n"
                   "#pragma omp simd\n"
                   "#endif\n"
                   "    for (i64 i = i_first + 1; i < i_end - 1; i++) {\n%s    }\n"
                   "    if (i_end - 1 > i_first) {\n    const i64 i = i_end - 1;\n%s    }\n}\n",
                body.s, body.s, body.s);
    free(body.s);
}

char *mb_generate_probe(const mb_probe_spec *s, mb_probe_record *rec)
{
    char why[128];
    if (mb_spec_check(s, why, sizeof why)) return NULL;
    text t = {0};
    const char *word = mb_word_type(s->word_bytes);
    probe_header(&t, s, word);
    if (s->row_ends) {
        row_with_ends(&t, s);
    } else {
        probe_reads(&t, s, mb_word_type(s->word_bytes * mb_vector(s)));
        probe_writes(&t, s);
    }
    if (rec)
        *rec = (mb_probe_record){
            .words = s->words,
            .word_bytes = s->word_bytes,
            .misaligned_reads = s->misaligned_reads,
            .misaligned_writes = s->misaligned_writes,
            .in_place = s->in_place,
            .swapped = s->swapped,
            .ops_per_thread = mb_payload_ops_of(s),
            .folded = s->folded,
            .vector = mb_vector(s),
            .row = mb_row(s),
            .band = mb_band(s),
            .tile = {s->tile[0], s->tile[1], s->tile[2]},
            .nontemporal = s->nontemporal,
            .bytes_read_per_thread = (int64_t)s->words * s->word_bytes * mb_vector(s),
            .bytes_written_per_thread = (int64_t)s->words * s->word_bytes * mb_vector(s),
        };
    return t.s;
}

/* ---- fill, verify, empty ------------------------------------------------- */

const char *mb_word_type(int word_bytes)
{
    return word_bytes == 2 ? "u16" : word_bytes == 4 ? "u32" : word_bytes == 8 ? "u64" : NULL;
}

char *mb_generate_support(int word_bytes)
{
    const char *word = mb_word_type(word_bytes);
    if (!word) return NULL;
    text t = {0};
    text_put(&t, "/* membench fill and verify kernels (generated) */\n"
                 "#if defined(LBP_CUDA)\n"
                 "#define MB_ATOMIC_ADD(p, v) atomicAdd((p), (v))\n"
                 "#define MB_ATOMIC_MIN(p, v) atomicMin((p), (v))\n"
                 "#define MB_ATOMIC_MAX(p, v) atomicMax((p), (v))\n"
                 "#else\n"
                 "#define MB_ATOMIC_ADD(p, v) atomic_add((p), (v))\n"
                 "#define MB_ATOMIC_MIN(p, v) atomic_min((p), (v))\n"
                 "#define MB_ATOMIC_MAX(p, v) atomic_max((p), (v))\n"
                 "#endif\n");
    text_put(&t, kernel_mix64);
    if (word_bytes == 2)
        text_printf(&t, "#define MB_POISON ((u16)0x%xu)\n#define MB_SEED_WORD(seed) ((u16)((seed) & 0xfffeu))\n"
                        "#define MB_PATTERN(x) ((u16)(mb_mix(x) | 1))\n", MB_POISON16);
    else if (word_bytes == 4)
        text_printf(&t, "#define MB_POISON ((u32)0x%xu)\n#define MB_SEED_WORD(seed) (seed)\n"
                        "#define MB_PATTERN(x) ((u32)mb_mix(x))\n", MB_POISON32);
    else
        text_printf(&t,
                    "#define MB_POISON (((u64)0x%xu << 32) | (u64)0x%xu)\n"
                    "#define MB_SEED_WORD(seed) (((u64)(seed) << 32) | (u64)((seed) ^ 0x%xu))\n"
                    "#define MB_PATTERN(x) mb_mix(x)\n",
                    MB_POISON32, MB_POISON32, MB_SEED_HI_SALT);
    text_printf(&t,
                "KERNEL void " MB_FILL_ENTRY "(GLOBAL %s *RESTRICT in, GLOBAL %s *RESTRICT out, i64 elements)\n"
                "{\n"
                "    const i64 x = global_id(0);\n"
                "    if (x >= elements) return;\n"
                "    in[x] = MB_PATTERN((u64)x);\n"
                "    out[x] = MB_POISON;\n"
                "}\n",
                word, word);
    text_printf(&t,
                "KERNEL void " MB_VERIFY_ENTRY "(GLOBAL const %s *RESTRICT out, i64 stride, i64 threads,\n"
                "    i32 misaligned_reads, i32 misaligned_writes, u32 seed, i32 mode, i64 launches_mod,\n"
                "    GLOBAL u32 *RESTRICT result)\n"
                "{\n"
                "    const i64 j = global_id(0);\n"
                "    const i32 k = (i32)global_id(1);\n"
                "    if (j >= stride) return;\n"
                "    const i64 read_shift = k < misaligned_reads ? 1 : 0;\n"
                "    const i64 write_shift = k < misaligned_writes ? 1 : 0;\n"
                "    const int written = j >= write_shift && j < threads + write_shift;\n"
                "    %s expect = MB_POISON;\n"
                "    if (mode == %d || mode == %d) { /* swapped: the input moved by n (read - write shift) */\n"
                "        const int odd = mode == %d;\n"
                "        const i64 d = read_shift - write_shift;\n"
                "        i64 x = j + (d > 0 ? launches_mod : d < 0 ? threads - launches_mod : 0);\n"
                "        if (x >= threads) x -= threads;\n"
                "        if (j >= threads) expect = odd ? MB_POISON : MB_PATTERN((u64)((i64)k * stride + j));\n"
                "        else expect = MB_PATTERN((u64)((i64)k * stride + x)) ^ (odd ? MB_SEED_WORD(seed) : (%s)0);\n"
                "    } else if (mode) /* in place, L = M: the pattern, the seed in once more per launch */\n"
                "        expect = MB_PATTERN((u64)((i64)k * stride + j)) ^ (written && mode == %d ? MB_SEED_WORD(seed) : (%s)0);\n"
                "    else if (written)\n"
                "        expect = MB_PATTERN((u64)((i64)k * stride + j - write_shift + read_shift)) ^ MB_SEED_WORD(seed);\n"
                "    if (out[(i64)k * stride + j] != expect) {\n"
                "        MB_ATOMIC_ADD(&result[2 * k], 1u);\n"
                "        MB_ATOMIC_MIN(&result[2 * k + 1], (u32)j);\n"
                "    }\n"
                "}\n",
                word, word, MB_VERIFY_SWAPPED_EVEN, MB_VERIFY_SWAPPED_ODD, MB_VERIFY_SWAPPED_ODD, word,
                MB_VERIFY_IN_PLACE_ODD, word);
    text_printf(&t,
                "KERNEL void " MB_RESIDENCY_ENTRY "(GLOBAL u32 *RESTRICT counts, i64 hold_ns DYN_SHARED_PARAM)\n"
                "{\n"
                "    if (local_id(0) != 0) return; /* the block stays resident while one thread runs */\n"
                "    const u32 sm = lbp_smid() %% %du;\n"
                "    MB_ATOMIC_MAX(&counts[%d + sm], MB_ATOMIC_ADD(&counts[sm], 1u) + 1u);\n"
                "    const u64 t0 = lbp_globaltimer();\n"
                "    while (lbp_globaltimer() - t0 < (u64)hold_ns) {}\n"
                "    MB_ATOMIC_ADD(&counts[sm], 0xffffffffu);\n"
                "}\n",
                MB_RESIDENCY_SMS, MB_RESIDENCY_SMS);
    return t.s;
}

const char mb_empty_source[] = "KERNEL void " MB_EMPTY_ENTRY "(i32 unused)\n"
                               "{\n"
                               "    (void)unused;\n"
                               "}\n";
