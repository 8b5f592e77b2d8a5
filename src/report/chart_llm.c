/* chart_llm.c — the chart of an LLM analysis (rf_report_llm_chart): prefill and decode layers as
 * two series on shared axes and, when rates were measured (rf_llm_measure, or given), a third
 * series "measured rates" whose points are the whole prefill pass and one decode step at their
 * FLOPs and bytes: the estimate open, the measured rate solid, joined by a line. */
#include "core/rf_int.h"
#include "roofline/analysis.h"
#include "roofline/llm.h"
#include "roofline/report.h"

/* The third series, or *out NULL when nothing was measured: prefill's time is the time to first
 * token; a decode step's is the batch over the measured decode rate. */
static rf_status rf__llm_measured_series(rf_ctx *ctx, const rf_llm_result *r, rf_result **out)
{
    *out = NULL;
    const rf_llm_measured *mm = &r->measured;
    int pre = mm->have_prefill && mm->ttft_s > 0 && r->prefill_rows;
    int dec = mm->have_decode && mm->decode_tokens_per_s > 0 && r->decode_rows;
    if (!pre && !dec) return RF_OK;
    rf_analysis *an = NULL;
    rf_status st =
        rf_analysis_new(ctx, r->machine, r->compute, r->bandwidth, RF_SORT_INPUT, 0, &an);
    if (st == RF_OK && pre) {
        const rf_totals *t = &r->prefill_rows->totals;
        rf_measured m = {mm->ttft_s, 0, 0, 1};
        static const char name[] = "prefill pass (measured TTFT)";
        st = rf_analysis_add_measured(an, name, sizeof name - 1, "prefill", NULL, 1, t->flops,
                                      t->bytes, &m);
    }
    if (st == RF_OK && dec) {
        const rf_totals *t = &r->decode_rows->totals;
        double batch = r->phase[1].batch ? (double)r->phase[1].batch : 1;
        rf_measured m = {batch / mm->decode_tokens_per_s, 0, 0, 1};
        static const char name[] = "decode step (measured tokens/s)";
        st = rf_analysis_add_measured(an, name, sizeof name - 1, "decode", NULL, 1, t->flops,
                                      t->bytes, &m);
    }
    if (st == RF_OK) st = rf_analysis_finish(an, "measured rates", out);
    rf_analysis_free(an);
    return st;
}

rf_status rf_report_llm_chart(rf_ctx *ctx, const rf_llm_result *r, rf_chart_format format,
                              const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, r && w && r->prefill_rows && r->decode_rows, RF_USAGE,
             "rf_report_llm_chart: missing argument");
    rf_result *meas = NULL;
    RF_TRY(rf__llm_measured_series(ctx, r, &meas));
    const rf_result *three[3] = {r->prefill_rows, r->decode_rows, meas};
    size_t n = meas ? 3 : 2;
    rf_status st = format == RF_CHART_HTML ? rf_report_chart_html(ctx, three, n, r->machine, o, w)
                   : format == RF_CHART_ASCII
                       ? rf_report_chart_ascii(ctx, r->groups, r->machine, o, w)
                       : rf_report_chart_svg(ctx, three, n, r->machine, o, w);
    rf_result_free(meas);
    return st;
}
