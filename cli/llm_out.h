/* llm_out.h — what cmd_llm.c hands to its printers (llm_out.c): one phase's graph, cost and
 * per-layer evaluations. CLI-internal. */
#ifndef RF_CLI_LLM_OUT_H
#define RF_CLI_LLM_OUT_H

#include "cli.h"

typedef struct rf_llm_phase_out {
    const char *name; /* "prefill" or "decode" */
    char title[256];  /* heading of its table */
    rf_llm_opts opts;
    rf_graph *g;
    rf_cost *c;
    rf_eval *evals; /* one per layer (zeroed for cost-free or unknown layers) */
    double time_s;  /* sum of the layers' estimated times */
    double ridge;   /* FLOP/byte of the roof used */
    uint64_t batch, tokens, positions;
} rf_llm_phase_out;

/* "10.5 us"; "-" when not finite. */
const char *rf_llm_time(char *buf, size_t n, double t);

/* Per-layer table of a phase (stdout). */
void rf_llm_print_phase(const rf_llm_phase_out *p);

/* CSV rows of a phase, with the header line first when `header`. */
void rf_llm_csv_phase(const rf_llm_phase_out *p, int header);

/* `"prefill": {...}` JSON member of a phase. */
void rf_llm_json_phase(const rf_llm_phase_out *p);

/* A JSON string literal, escaped. */
void rf_llm_jstr(const char *s);

#endif
