/* The write-allocate verdict's thresholds on likwid-bench's copy_mem / copy
 * (non-temporal over ordinary stores): stream decides the verdict with
 * them, model summary says how far the run's ratio lay from them, so that
 * a verdict that could go the other way in the next run says so. */
#ifndef LBP_WRITEALLOC_H
#define LBP_WRITEALLOC_H

#define LBP_WA_YES_ABOVE 1.25
#define LBP_WA_NO_BELOW 1.10
/* A ratio this close to a threshold (or samples on both of its sides) makes
 * the verdict close: it stands, with a warning. */
#define LBP_WA_MARGIN 0.05

#endif
