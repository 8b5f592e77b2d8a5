/* progress.h — the executor's progress lines (RF_LOG_INFO: "measuring:   4.1 s  pass 7 of 20"),
 * one at most every RF__XPROGRESS_S seconds of the run's clock, shared by the graph executor
 * (run.c) and the LLM pass (llm_exec_time.c). Reads no clock itself: callers pass the time they
 * already read, so an injected test clock sees no extra reads. Never prints: the context's log
 * does, and the CLI turns INFO on for a measuring step. */
#ifndef RF_EXEC_PROGRESS_H
#define RF_EXEC_PROGRESS_H

#include "roofline/ctx.h"

#define RF__XPROGRESS_S 2.0

typedef struct rf__xprogress {
    rf_ctx *ctx;
    double t0, last; /* the clock at the start, at the last line (or the start) */
} rf__xprogress;

/* Start counting at clock reading `now`. */
void rf__xprogress_start(rf__xprogress *p, rf_ctx *ctx, double now);

/* One line when RF__XPROGRESS_S or more have passed since the last (or the start): "measuring:
 * %6.1f s  STEP, pass K of N"; n = 0: no pass count. */
void rf__xprogress_step(rf__xprogress *p, double now, const char *step, unsigned k, unsigned n);

#endif
