/* roofline/exec.h — options shared by the executors (src/exec): threads, warm-up, repetitions and
 * the clock. Placeholder holding only the options struct; the CNN executor's header replaces it
 * with the same struct and its own API. Never prints. */
#ifndef ROOFLINE_EXEC_H
#define ROOFLINE_EXEC_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rf_exec_opts {
    unsigned threads;   /* 0 = every core */
    unsigned warmup;    /* 0 = default (2) */
    unsigned repeat;    /* 0 = auto */
    double (*clock)(void *user); /* NULL = CLOCK_MONOTONIC seconds; tests inject a fake clock */
    void *clock_user;
} rf_exec_opts;

#ifdef __cplusplus
}
#endif
#endif
