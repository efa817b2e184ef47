/* membench kernel generator: straight-line N-word read/write probes
 * (Obrecht, thesis Art. B §3), and the fill / verify / empty kernels that go
 * with them.  The generator returns the kernel text AND the record of what
 * the kernel moves; every reported bandwidth comes from that record. */
#ifndef MB_GEN_H
#define MB_GEN_H

#include <stddef.h>
#include <stdint.h>

#define MB_MAX_WORDS 128 /* N: words per thread (one array per word) */
#define MB_MAX_PAYLOAD 64 /* P: dependent multiply-adds per word */

/* What a probe does, per thread i (one "cell"):
 *   reads word k from in[k*stride + i (+1 for k < misaligned_reads)],
 *   writes it ^ seed to out[k*stride + i (+1 for k < misaligned_writes)];
 * in place (L = M): writes it ^ seed back where it read it, in[...], and
 * leaves out alone: the traffic of a kernel that keeps one lattice (A-A),
 * whose stores go to the lines its loads have just brought in; its
 * misaligned index wraps as a swapped one's (mb_wraps);
 * swapped: launches alternate the two arrays (odd launches read out and
 * write in), as a time loop swaps its two lattices: each launch reads what
 * the one before wrote, where the L2 may still hold it dirty.  Its
 * misaligned index wraps, i + 1 at i = threads - 1 being 0, so that a run
 * of launches keeps every word of the arrays (a periodic lattice). */
typedef struct {
    int words;             /* N */
    int word_bytes;        /* 2, 4 or 8 (u16 / u32 / u64 moved as bits) */
    int misaligned_reads;  /* L: arrays 0..L-1 read at index+1 */
    int misaligned_writes; /* M: arrays 0..M-1 written at index+1 */
    int payload;           /* P: arithmetic between the loads and the stores, 0 none */
    int in_place;          /* 1: stores go back to the words read (needs L = M) */
    int swapped;           /* 1: launches alternate in and out (not in place) */
    int stamps;            /* per-warp %globaltimer stamps (compiled only where LBP_HAS_CLOCK) */
    int vector;            /* V: adjacent words per thread and array (0 or 1: one) */
    int row;               /* R: cells per thread, in a loop (0 or 1: one cell) */
    int band;              /* BX: cells of a row each warp takes (0 or 32: linear) */
    int tile[3];           /* BX, BY, BZ of a tile probe's blocks (tile[0] = 0: none) */
    int nontemporal;       /* 1: a row probe's stores are non-temporal (below) */
    int row_ends;          /* 1: a row probe's first and last cells outside its vector loop (below) */
    int folded;            /* 1: a row probe's 4- or 8-byte payload in the collision's form (below) */
    int runs_on;           /* 1: in place, the last thread's shifted words at index threads, not 0
                              (a described kernel's, checked by mb_verify; mb_wraps) */
} mb_probe_spec;

/* A row probe (R > 1) gives each thread R adjacent cells, i = R t .. R t +
 * R - 1 (the last thread fewer), and moves them in a loop over i whose
 * iterations are independent (omp simd where the C compiler builds it,
 * Clang's assume_safety under PoCL): the shape of lbmkernels' row kernels
 * on a CPU (a work-item per row, contiguous vector loads and stores), where
 * a probe of one cell per thread runs a work-group's items as vector lanes
 * with the index and bounds arithmetic of each.  What moves, and so the
 * check, is that of R x the threads one-cell probe threads: `threads`
 * (membench.csv) counts cells, the launch threads / R work-items.  Not with
 * a vector, stamps or a swapped layout. */
#define MB_MAX_ROW 4096
/* A row probe with its ends apart (row_ends) moves each row's first and
 * last cell on its own, before and after the loop over the cells between,
 * as lbmkernels' row kernels update the two end cells whose x neighbours
 * wrap: at R = a lattice's NX the loop has the kernel's trip count (its
 * partial vector) and the kernel's two scalar cells a row.  The ends read
 * and write the words the plain row probe does, so what moves, and the
 * check, are the same.  Not non-temporal. */
/* R of membench's rows sweep: the row of the largest lattice lbmkernels runs
 * on a CPU (256^3). */
#define MB_ROW_CELLS 256
int mb_row(const mb_probe_spec *s); /* R, 1 for one cell per thread */
/* A non-temporal row probe stores as lbmkernels' LBM_NT row kernels do:
 * each cell's words go to a buffer of LBP_STREAM_CHUNK cells per array
 * (in L1), which the prelude's lbp_stream_f32 / lbp_stream_f64 then write
 * to the arrays with stores that skip the write-allocate, and
 * lbp_stream_fence ends the work-item's row: the same prelude code, so
 * its cost over the aligned row probe is the kernel's.  4- and 8-byte
 * words, stores into out aligned (M = 0), not in place; only where the
 * backend's prelude has such stores (LBP_HAS_NT_STORE; elsewhere the text
 * does not compile). */
/* Work-items of a launch over `cells` cells. */
int64_t mb_row_items(const mb_probe_spec *s, int64_t cells);
/* The work-group size of a launch over `cells` cells at block size `bs` on
 * `units` compute units: a row probe's groups hold at most bs rows and at
 * least one a unit (every core busy at every count, as a row kernel of the
 * same cells is with its own groups, whose uneven share the model adds:
 * model_cpu_row_imbalance; groups of bs rows alone leave cores idle below
 * bs x R cells a core); bs for a one-cell probe. */
unsigned mb_row_block(const mb_probe_spec *s, int64_t cells, unsigned bs, int units);

/* A narrow probe (BX = 4, 8 or 16) permutes the cells over the threads so
 * that each warp takes BX adjacent cells of 32 / BX rows of
 * MB_BAND_ROW_CELLS cells, as a grid launch of blocks BX threads wide in x
 * does: thread t, warp w = t / 32, lane l moves cell (b 32/BX + l / BX) X +
 * (w mod X/BX) BX + l mod BX, b = w / (X/BX) the band of 32/BX rows, X =
 * MB_BAND_ROW_CELLS (whole sectors at every word size).  The threads of a
 * last partial band (threads not a multiple of X 32/BX) move their own
 * cells (i = t): the permutation is exact for any count.  Every cell is
 * still moved once, so what is written, and the check, are the linear
 * probe's; BX = 32 is the linear probe.  Not with a vector, a row, stamps
 * or a swapped layout. */
#define MB_BAND_ROW_CELLS 256
int mb_band(const mb_probe_spec *s); /* BX, 32 for the linear probe */
/* Cell of thread t of a launch of `threads` (the generated kernel's index). */
int64_t mb_band_cell(const mb_probe_spec *s, int64_t t, int64_t threads);

/* A tile probe (BX x BY x BZ, BX BY BZ <= MB_MAX_TILE_THREADS) maps its
 * threads to cells exactly as a 3D grid launch of blocks BX x BY x BZ
 * over an X x Y x Z lattice does: block b = t / (BX BY BZ) (x fastest,
 * then y, then z: b = bx + X/BX (by + Y/BY bz)), inside it r = t mod
 * (BX BY BZ) = tx + BX (ty + BY tz); cell (x, y, z) = (bx BX + tx, by BY +
 * ty, bz BZ + tz) at index x + X (y + Y z).  X and Y: the largest multiple
 * of BX (BY) up to MB_TILE_EXTENT (BX itself where wider), Z: as many whole
 * layers of BZ planes as the threads fill; threads past X Y Z (a count that
 * fills no whole tile there) move their own cells (i = t), so the
 * permutation is exact for any count, and what is written, and the check,
 * are the linear probe's.  The launch's block is BX BY BZ threads (the
 * plan's block_size), so that each block of the probe is one of the grid's.
 * A tile of BS x 1 x 1 (BS dividing MB_TILE_EXTENT) is the identity: the
 * linear probe at block size BS.  Not with a band, vector, row, stamps or
 * a swapped layout. */
#define MB_TILE_EXTENT 256
#define MB_MAX_TILE_THREADS 1024
int mb_is_tile(const mb_probe_spec *s);
/* X, Y, Z of the tile probe's lattice at `threads` threads. */
void mb_tile_lattice(const mb_probe_spec *s, int64_t threads, int64_t dims[3]);
/* Cell of thread t of a launch of `threads` (the generated kernel's index). */
int64_t mb_tile_cell(const mb_probe_spec *s, int64_t t, int64_t threads);
/* "32x8x1" into buf; "BXxBYxBZ" strings parsed into tile (0, or 1 with why). */
const char *mb_tile_name(const int tile[3], char *buf, size_t len);
int mb_tile_parse(const char *text, int tile[3], char *why, size_t why_len);

/* A vector probe (V = 2 or 4, V x word_bytes <= 8) moves V adjacent words
 * of each array per thread, as a kernel of V cells per thread does: thread
 * i's words are V i .. V i + V - 1, read and written as one aligned access
 * of V x word_bytes; a misaligned array's are at V i + 1 .. V i + V, one
 * word off, which no access of that width can reach.  They move as
 * lbmkernels' shifted populations at several cells per thread do (d3q19.cl,
 * fp16s): read as V single words; written, where the dialect's barrier
 * holds a group (LBP_HAS_GROUP_BARRIER), as the aligned vector at V i with
 * the word V i taken from thread i - 1 through local memory (its last word,
 * which leaves its vector), one access, the first MB_XCHG_BLOCK threads of a
 * group exchanging (every thread where the dialect bounds a group,
 * LBP_MAX_GROUP, as d3q19.cl) and the words at a group's edges single;
 * elsewhere (the openmp backend) as V single words.  The words are packed little-endian
 * (word e of the vector at bits 8 word_bytes e), as every GPU and x86
 * stores them.  In place (L = M, A-A's one lattice), every word, shifted
 * or not, is stored back where it was read, one by one where shifted (no
 * exchange: its odd step's kernel keeps them cell by cell).  Not with a
 * payload, swapped or stamped. */
#define MB_MAX_VECTOR 4
#define MB_XCHG_BLOCK 512 /* d3q19.cl's LBM_XCHG_BLOCK */
int mb_vector(const mb_probe_spec *s); /* V, 1 for a scalar probe */

/* The payload stands in for a collision, and is shaped like one: every
 * word k becomes a float (4-byte words) or double (8-byte) x_k in [1, 2) by
 * its bits (its low bits the mantissa, the exponent set: no conversion
 * instruction, which a collision does not execute and which runs on a
 * slower unit than its arithmetic); the N of them are summed (the moments:
 * every store waits for every load); then each word, read again as a
 * number in [0.5, 1) (another expression: the N numbers are not kept live
 * in registers from the sum on, the words are), goes through P dependent
 * multiply-adds x_k = x_k * a + sum (a = 1/2 from a kernel argument, so
 * nothing folds; bounded, never denormal: the relaxation) and its bits
 * enter word k's store alone, through the zero mask, so the output stays
 * verifiable.  As in a collision, the first stores can issue while later
 * words are still computed.  Arithmetic operations per thread (the record's
 * ops, FMA counted once): N * P + N - 1.  An 8-byte payload needs LBP_FP64
 * (MB_PAYLOAD_FP64_OPTIONS).  2-byte words stand for half storage with
 * float arithmetic: their sum reads the low 10 bits as a float in [1, 2),
 * their chains are floats converted from and back to half (lbp_half_to_float,
 * lbp_float_to_half), one conversion each way per word.  A row probe's
 * 2-byte payload is the fp16s row kernels' shape instead: each half
 * converted as loaded, the N floats summed in pairs (as the collision sums
 * its moments), the chains on that sum; where the compiler leaves half
 * conversions scalar, a cell's dependency chains and instructions show,
 * and the one-cell form costs far more than the kernel's collision. */
#define MB_PAYLOAD_FP64_OPTIONS "-DLBP_FP64=1"
int mb_payload_ops(int words, int payload);
/* The folded payload (folded, a row probe of 4- or 8-byte words): closer to
 * the collision's instructions where a loop is not memory-bound.  The form
 * above spends about four integer operations a word on making floats of
 * known range from the words (masks and ors, twice) and two more folding
 * each chain's bits into its store, which the collision, loading floats,
 * does not have.  Here each word is converted as a signed 32-bit integer
 * (its low half for 8-byte words: one conversion, exact, never
 * denormal), the N numbers summed in pairs (the moments), each one's chain
 * of P multiply-adds on the sum, and the N results summed in pairs into one
 * number whose bits enter the seed, through the zero mask, once a cell:
 * every store depends on every chain, and the stores are the aligned
 * probe's, so the check is.  Operations per thread (FMA once): N
 * conversions + (N - 1) + N P + (N - 1); at N = 19, P = 5 (MB_PAYLOAD_FOLDED)
 * 150, the collision's count. */
#define MB_PAYLOAD_FOLDED 5
int mb_payload_ops_of(const mb_probe_spec *s);

/* What one thread of the probe moves: the only source of byte counts. */
typedef struct {
    int words, word_bytes, misaligned_reads, misaligned_writes;
    int in_place;                     /* 1: the N written words are the N read */
    int swapped;                      /* 1: each launch reads what the one before wrote */
    int ops_per_thread;               /* payload arithmetic (mb_payload_ops), 0 none */
    int vector;                       /* V (1: one word per array) */
    int row;                          /* R (1: one cell per thread); bytes below are per cell */
    int band;                         /* BX (32: linear) */
    int tile[3];                      /* BX, BY, BZ of a tile probe (0 0 0: none) */
    int nontemporal;                  /* 1: non-temporal stores (a row probe) */
    int folded;                       /* 1: the folded payload */
    int64_t bytes_read_per_thread;    /* N * word_bytes * V */
    int64_t bytes_written_per_thread; /* N * word_bytes * V */
} mb_probe_record;

/* 0 when the spec can be generated; else 1 with the reason in why. */
int mb_spec_check(const mb_probe_spec *s, char *why, size_t why_len);

/* Kernel text for the spec (entry MB_PROBE_ENTRY), caller frees; fills rec.
 * NULL for a spec mb_spec_check rejects.  Arguments, in order:
 *   GLOBAL (const) WORD *in, GLOBAL WORD *out, i64 stride, i64 threads,
 *   u32 seed, u32 mask (always 0: makes every store depend on every load),
 *   GLOBAL u64 *stamps (4 per warp: smid, t_start, t_reads, t_writes),
 *   then the dynamic shared memory that fixes the occupancy. */
#define MB_PROBE_ENTRY "membench_probe"
#define MB_PROBE_NARGS 7
#define MB_STAMPS_PER_WARP 4
char *mb_generate_probe(const mb_probe_spec *s, mb_probe_record *rec);

/* Fill and verify kernels for one word size (entries MB_FILL_ENTRY and
 * MB_VERIFY_ENTRY in one text), caller frees.
 *   fill(GLOBAL WORD *in, GLOBAL WORD *out, i64 elements):
 *     in[x] = mb_pattern(x), out[x] = poison
 *   verify(GLOBAL const WORD *out, i64 stride, i64 threads,
 *          i32 misaligned_reads, i32 misaligned_writes, u32 seed,
 *          i32 mode, i64 launches_mod, GLOBAL u32 *result): grid (stride,
 *     words); per array k, result[2k] = elements wrong, result[2k+1] =
 *     first wrong index.  mode (MB_VERIFY_*): out is a probe's output; or
 *     the input of an in-place probe after an even or odd count of
 *     launches (each one xors the seed in again); or the array a swapped
 *     probe wrote last after an even count (the input) or an odd one (the
 *     output): word j < threads holds the input's word (j + n d) mod
 *     threads, d = read shift - write shift of its array, n the launches
 *     (launches_mod = n mod threads), xored with the seed n times.
 *   residency(GLOBAL u32 *counts, i64 hold_ns): each block counts itself
 *     in counts[SM] while its first thread holds it hold_ns, and
 *     counts[MB_RESIDENCY_SMS + SM] keeps the most counted at once (blocks
 *     resident together; the launch's dynamic shared memory decides). */
enum { MB_VERIFY_OUTPUT = 0, MB_VERIFY_IN_PLACE_EVEN, MB_VERIFY_IN_PLACE_ODD, MB_VERIFY_SWAPPED_EVEN,
       MB_VERIFY_SWAPPED_ODD };
#define MB_FILL_ENTRY "membench_fill"
#define MB_VERIFY_ENTRY "membench_verify"
#define MB_RESIDENCY_ENTRY "membench_residency"
#define MB_RESIDENCY_SMS 1024
char *mb_generate_support(int word_bytes);
/* "u16", "u32", "u64" for 2, 4, 8 bytes, else NULL. */
const char *mb_word_type(int word_bytes);

/* An empty kernel (one i32 argument) for launch latency. */
#define MB_EMPTY_ENTRY "membench_empty"
extern const char mb_empty_source[];

/* Host mirrors of what the kernels compute, for messages and tests. */
uint64_t mb_pattern(uint64_t element, int word_bytes); /* input word at element */
uint64_t mb_seed_word(uint32_t seed, int word_bytes);  /* what a probe xors in */
uint64_t mb_poison(int word_bytes);                    /* unwritten output */
/* Expected out[k*stride + j] after `launches` (>= 1) launches of a probe of
 * spec s over `threads` threads (in place, or swapped after an even count:
 * in[k*stride + j]); a vector probe's threads move V words of each array. */
uint64_t mb_expected(const mb_probe_spec *s, int64_t stride, int64_t threads, uint32_t seed, int64_t launches,
                     int array, int64_t j);

/* Elements per array: threads+1 (a misaligned access touches index+1),
 * rounded up to 32 elements. */
int64_t mb_stride(int64_t threads);
/* 1 where thread i's shifted words are those of i + 1 wrapping to 0 at the
 * last thread: swapped probes, and in-place probes of one word a thread
 * (the A-A layout), whose arrays are then spaced as a lattice's are. */
int mb_wraps(const mb_probe_spec *s);
/* The shifted writes the check counts (mb_expected, mb_verify): none where
 * an in-place probe wraps (its words 0 .. threads - 1 are all written, the
 * shifted ones by the thread before), else M. */
int mb_checked_writes(const mb_probe_spec *s);
/* Elements per array of probe s over `threads` threads (V words each for a
 * vector probe: pass V x threads): an in-place probe that wraps, threads
 * rounded up to 32 -- a kernel's lattice of 2^24 cells spaces its arrays by
 * 2^24, and on the H100 the in-place probe of 2-byte words at one step
 * (64 B) off that spacing took 1.34 times its time there --; else
 * mb_stride. */
int64_t mb_spec_stride(const mb_probe_spec *s, int64_t threads);

/* "N19-L10-M0-w4" into buf ("N19-L0-M0-w4-p7" with a payload,
 * "N19-L10-M10-w4-ip" in place, "N19-L10-M0-w4-sw" swapped, "N19-L0-M10-w2-v4"
 * a vector probe, "N19-L0-M0-w4-r256-nt" non-temporal stores). */
const char *mb_spec_name(const mb_probe_spec *s, char *buf, size_t len);

#endif
