/* Arrays laid one after another in a buffer (a lattice's populations, a
 * probe's words), skewed on a CPU.  Arrays a multiple of 4 KiB apart put
 * a cell's loads and stores into one L1 set and alias the store-to-load
 * check on the 12 low address bits, which costs streaming kernels a large
 * share of their bandwidth: on a CPU consecutive arrays start LBP_CPU_SKEW
 * bytes further along a page, 5 lines of 128 bytes, so that 19 arrays land
 * on 19 different 128-byte slots of a page and a store is not matched by
 * the loads of the next few vector iterations.  On a GPU the skew costs a
 * few percent instead, and arrays are not skewed. */
#ifndef LBP_SKEW_H
#define LBP_SKEW_H

#include <stdint.h>

#define LBP_CPU_SKEW 640

/* The smallest stride (in words of word_bytes) of at least min_words whose
 * bytes are skew_bytes past a multiple of 4 KiB; min_words where skew_bytes
 * is 0 or not a whole number of words. */
static inline int64_t lbp_skewed_stride(int64_t min_words, int word_bytes, int skew_bytes)
{
    const int64_t page = 4096, bytes = min_words * word_bytes;
    if (skew_bytes <= 0 || word_bytes <= 0 || skew_bytes % word_bytes) return min_words;
    const int64_t pages = bytes > skew_bytes ? (bytes - skew_bytes + page - 1) / page : 0;
    return (pages * page + skew_bytes) / word_bytes;
}

#endif
