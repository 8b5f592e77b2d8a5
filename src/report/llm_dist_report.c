/* llm_dist_report.c — the distributed view of `roofline llm --tp/--pp` (rf_llm_dist) as text and
 * as a "distributed" member of the LLM JSON document. Renders only: the figures come from
 * src/llm/llm_dist.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/llm.h"
#include "roofline/report.h"

static rf_status rf__dist_row(rf_writer *w, const char *name, const rf_llm_dist_phase *p)
{
    char dev[24], comm[24], pass[24], msg[24], ar[24], rate[24];
    rf_time_format(dev, sizeof dev, p->device_s, 3);
    rf_time_format(comm, sizeof comm, p->comm_s, 3);
    rf_time_format(pass, sizeof pass, p->pass_s, 3);
    rf_bytes_format_iec(msg, sizeof msg, p->allreduce_bytes, 3);
    rf_time_format(ar, sizeof ar, p->allreduce_s, 3);
    rf_si_format_compact(rate, sizeof rate, p->tokens_per_s, "");
    char allr[96] = "-";
    if (p->allreduces)
        snprintf(allr, sizeof allr, "%llu x %s, %s each", (unsigned long long)p->allreduces, msg,
                 ar);
    return rf_writef(w, "  %-8s %10s %10s  %-26s %10s %9s %6.1f%%%s\n", name, dev, comm, allr, pass,
                     rate, 100 * p->comm_share, p->comm_bound ? "  communication-bound" : "");
}

rf_status rf_report_llm_dist(rf_ctx *ctx, const rf_llm_dist *d, uint64_t decode_batch,
                             const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, d && w, RF_USAGE, "rf_report_llm_dist: missing argument");
    (void)ctx, (void)o;
    rf_writer rf__cw = rf__clean_writer(w);
    w = &rf__cw;
    char bw[32], lat[32], wb[32], rate[32];
    RF_TRY(rf_writef(w,
                     "\ndistributed: tensor parallel %u x pipeline %u = %u devices over %s (%s per "
                     "direction, %s per message)\n",
                     d->o.tp, d->o.pp, d->o.tp * d->o.pp, d->o.link,
                     rf_si_format(bw, sizeof bw, d->o.link_bytes_per_s, 3, "B/s"),
                     rf_time_format(lat, sizeof lat, d->o.link_latency_s, 2)));
    RF_TRY(rf_writef(w, "  weights per device  %s\n",
                     rf_si_format(wb, sizeof wb, d->weight_bytes_per_device, 3, "B")));
    RF_TRY(rf_writef(w, "  %-8s %10s %10s  %-26s %10s %9s %7s\n", "phase", "device", "comm",
                     "TP allreduces", "pass", "tokens/s", "comm"));
    RF_TRY(rf__dist_row(w, "prefill", &d->phase[0]));
    RF_TRY(rf__dist_row(w, "decode", &d->phase[1]));
    if (d->o.pp > 1) {
        RF_TRY(rf_writef(
            w, "  pipelined: %u passes in flight, decode up to %s tokens/s\n", d->o.pp,
            rf_si_format_compact(rate, sizeof rate, d->phase[1].pipelined_tokens_per_s, "")));
    }
    if (d->decode_batch_comm_bound)
        RF_TRY(rf_writef(w, "  decode turns communication-bound at batch %llu (analysed: %llu)\n",
                         (unsigned long long)d->decode_batch_comm_bound,
                         (unsigned long long)decode_batch));
    else
        RF_TRY(RF_WRITE_LIT(w, "  decode stays bound by the devices up to batch 65536\n"));
    RF_TRY(rf_writef(w, "  TP scan (decode at batch %llu):", (unsigned long long)decode_batch));
    for (size_t i = 0; i < d->n_scan; i++)
        RF_TRY(
            rf_writef(w, "%s TP %u %s tok/s (comm %.0f%%)", i ? "," : "", d->scan[i].tp,
                      rf_si_format_compact(rate, sizeof rate, d->scan[i].decode_tokens_per_s, ""),
                      100 * d->scan[i].comm_share));
    RF_TRY(RF_WRITE_LIT(w, "\n"));
    if (d->tp_comm_bound)
        RF_TRY(
            rf_writef(w, "  communication becomes decode's bound from TP %u\n", d->tp_comm_bound));
    return RF_WRITE_LIT(
        w, "  model: per device, matrix layers split as tensor parallelism splits them (norms, "
           "residual adds\n  and the embedding replicated); two ring allreduces per block, each "
           "2(N-1)/N x message\n  / link + 2(N-1) x latency; pipeline hand-offs message / link + "
           "latency; no overlap\n  of communication with the layers.\n");
}

static rf_status rf__jphase(rf_writer *w, const char *name, const rf_llm_dist_phase *p, int last)
{
    RF_TRY(rf_writef(w, "    \"%s\": {", name));
    RF_TRY(rf__json_key_num(w, "device_s", p->device_s, 0));
    RF_TRY(rf__json_key_num(w, "allreduce_bytes", p->allreduce_bytes, 0));
    RF_TRY(rf_writef(w, "\"allreduces\": %llu, ", (unsigned long long)p->allreduces));
    RF_TRY(rf__json_key_num(w, "allreduce_s", p->allreduce_s, 0));
    RF_TRY(rf__json_key_num(w, "handoff_s", p->handoff_s, 0));
    RF_TRY(rf__json_key_num(w, "comm_s", p->comm_s, 0));
    RF_TRY(rf__json_key_num(w, "comm_bytes", p->comm_bytes, 0));
    RF_TRY(rf__json_key_num(w, "pass_s", p->pass_s, 0));
    RF_TRY(rf__json_key_num(w, "tokens_per_s", p->tokens_per_s, 0));
    RF_TRY(rf__json_key_num(w, "pipelined_tokens_per_s", p->pipelined_tokens_per_s, 0));
    RF_TRY(rf__json_key_num(w, "comm_share", p->comm_share, 0));
    RF_TRY(rf_writef(w, "\"bound\": \"%s\"}", p->comm_bound ? "communication" : "device"));
    return last ? RF_WRITE_LIT(w, "\n") : RF_WRITE_LIT(w, ",\n");
}

rf_status rf_report_json_add_dist(rf_ctx *ctx, const char *doc, size_t len, const rf_llm_dist *d,
                                  rf_writer *w)
{
    RF_CHECK(ctx, d, RF_USAGE, "rf_report_json_add_dist: no distributed view");
    RF_TRY(rf__json_reopen(ctx, doc, len, "rf_report_json_add_dist", w));
    RF_TRY(rf_writef(w, ",\n  \"distributed\": {\"tp\": %u, \"pp\": %u, \"link\": ", d->o.tp,
                     d->o.pp));
    RF_TRY(rf__write_json_string(w, d->o.link));
    RF_TRY(RF_WRITE_LIT(w, ", "));
    RF_TRY(rf__json_key_num(w, "link_bytes_per_s", d->o.link_bytes_per_s, 0));
    RF_TRY(rf__json_key_num(w, "link_latency_s", d->o.link_latency_s, 0));
    RF_TRY(rf__json_key_num(w, "weight_bytes_per_device", d->weight_bytes_per_device, 0));
    RF_TRY(rf_writef(w, "\"decode_batch_comm_bound\": %llu, \"tp_comm_bound\": %u,\n",
                     (unsigned long long)d->decode_batch_comm_bound, d->tp_comm_bound));
    RF_TRY(rf__jphase(w, "prefill", &d->phase[0], 0));
    RF_TRY(rf__jphase(w, "decode", &d->phase[1], 0));
    RF_TRY(RF_WRITE_LIT(w, "    \"tp_scan\": ["));
    for (size_t i = 0; i < d->n_scan; i++) {
        RF_TRY(rf_writef(w, "%s{\"tp\": %u, ", i ? ", " : "", d->scan[i].tp));
        RF_TRY(rf__json_key_num(w, "decode_tokens_per_s", d->scan[i].decode_tokens_per_s, 0));
        RF_TRY(rf__json_key_num(w, "comm_share", d->scan[i].comm_share, 0));
        RF_TRY(rf__json_key_num(w, "prefill_s", d->scan[i].prefill_s, 1));
        RF_TRY(RF_WRITE_LIT(w, "}"));
    }
    return RF_WRITE_LIT(w, "]}\n}\n");
}
