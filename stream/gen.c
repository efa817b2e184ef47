/* STREAM-copy kernel generator (see gen.h). */
#include "gen.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *const stream_access_names[] = {"one", "stride", "row", NULL};
const int stream_word_sizes[] = {2, 4, 8, 16, 0};

#define STREAM_ROW_TEXT_(x) #x
#define STREAM_ROW_TEXT_OF(x) STREAM_ROW_TEXT_(x)
#define STREAM_ROW_TEXT STREAM_ROW_TEXT_OF(STREAM_ROW_ELEMENTS)

/* Largest grid along x that every backend accepts (CUDA: 2^31 - 1). */
#define STREAM_MAX_BLOCKS 2147483647LL

const char *stream_word_type(int word_bytes)
{
    switch (word_bytes) {
    case 2: return "u16"; /* a half-precision lattice's word */
    case 4: return "u32";
    case 8: return "uint2";
    case 16: return "uint4";
    default: return NULL;
    }
}

int64_t stream_array_bytes(const stream_record *r)
{
    return r->elements * (r->word_bytes > 0 ? r->word_bytes : 1);
}

int64_t stream_bytes_moved(const stream_record *r)
{
    return r->elements * (int64_t)(r->bytes_read_per_element + r->bytes_written_per_element);
}

stream_record stream_driver_copy_record(int64_t bytes)
{
    return (stream_record){.word_bytes = 0, .elements = bytes,
                           .bytes_read_per_element = 1, .bytes_written_per_element = 1};
}

static int fail(char *why, size_t why_len, const char *msg, long long value)
{
    snprintf(why, why_len, msg, value);
    return -1;
}

int stream_generate(const stream_config *cfg, stream_kernel *out, char *why, size_t why_len)
{
    const char *type = stream_word_type(cfg->word_bytes);
    if (!type)
        return fail(why, why_len, "word size %lld is not 2, 4, 8 or 16 bytes", cfg->word_bytes);
    if (cfg->access != STREAM_ACCESS_ONE && cfg->access != STREAM_ACCESS_STRIDE && cfg->access != STREAM_ACCESS_ROW)
        return fail(why, why_len, "unknown access pattern %lld", (long long)cfg->access);
    if (cfg->block_size < 1 || cfg->block_size > 65536)
        return fail(why, why_len, "block size %lld is not in [1, 65536]", cfg->block_size);
    if (cfg->elements < 1)
        return fail(why, why_len, "element count %lld is not positive", (long long)cfg->elements);

    const int64_t rows = (cfg->elements + STREAM_ROW_ELEMENTS - 1) / STREAM_ROW_ELEMENTS;
    int64_t blocks = cfg->access == STREAM_ACCESS_ONE   ? (cfg->elements + cfg->block_size - 1) / cfg->block_size
                     : cfg->access == STREAM_ACCESS_ROW ? (rows + cfg->block_size - 1) / cfg->block_size
                                                        : cfg->blocks;
    if (blocks < 1 || blocks > STREAM_MAX_BLOCKS)
        return fail(why, why_len, "block count %lld is not in [1, 2^31-1]", (long long)blocks);

    /* The store, optionally guarded so that one element is left unwritten
     * (a planted bug for the tests). */
    char store[128];
    if (cfg->planted_skip)
        snprintf(store, sizeof store, "if (i != %" PRId64 ") c[i] = a[i];", cfg->planted_skip_element);
    else
        snprintf(store, sizeof store, "c[i] = a[i];");

    static const char row_loop[] =
        "    const i64 first = (i64)global_id(0) * " STREAM_ROW_TEXT ";\n"
        "    const i64 end = first + " STREAM_ROW_TEXT " < n ? first + " STREAM_ROW_TEXT " : n;\n"
        "#if defined(__clang__)\n"
        "#pragma clang loop vectorize(assume_safety)\n"
        "#elif defined(LBP_OPENMP)\n"
        "#pragma omp simd\n"
        "#endif\n"
        "    for (i64 i = first; i < end; i++) %s\n";
    const char *loop =
        cfg->access == STREAM_ACCESS_ONE
            ? "    const i64 i = (i64)global_id(0);\n"
              "    if (i < n) %s\n"
        : cfg->access == STREAM_ACCESS_ROW
            ? row_loop
            : "    const i64 stride = (i64)local_size(0) * (i64)num_groups(0);\n"
              "    for (i64 i = (i64)global_id(0); i < n; i += stride) %s\n";
    char body[768];
    snprintf(body, sizeof body, loop, store);

    memset(out, 0, sizeof *out);
    snprintf(out->entry, sizeof out->entry, "stream_copy");
    int n = snprintf(out->source, sizeof out->source,
                     "/* stream/gen.c: STREAM copy c[i] = a[i], %d-byte words (%s), %s */\n"
                     "KERNEL void stream_copy(GLOBAL const %s *RESTRICT a, GLOBAL %s *RESTRICT c, const i64 n)\n"
                     "{\n%s}\n",
                     cfg->word_bytes, type,
                     cfg->access == STREAM_ACCESS_ONE   ? "one element per thread"
                     : cfg->access == STREAM_ACCESS_ROW ? "a row of " STREAM_ROW_TEXT " elements per thread"
                                                        : "grid-stride loop",
                     type, type, body);
    if (n < 0 || (size_t)n >= sizeof out->source)
        return fail(why, why_len, "kernel text longer than %lld bytes", (long long)sizeof out->source);
    snprintf(out->name, sizeof out->name, "w%d-%s-b%d", cfg->word_bytes,
             stream_access_names[cfg->access], cfg->block_size);
    out->blocks = (unsigned)blocks;
    out->block_size = (unsigned)cfg->block_size;
    out->record = (stream_record){.word_bytes = cfg->word_bytes, .elements = cfg->elements,
                                  .bytes_read_per_element = cfg->word_bytes,
                                  .bytes_written_per_element = cfg->word_bytes};
    return 0;
}
