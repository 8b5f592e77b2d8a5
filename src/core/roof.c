/* roof.c — the roofline model for one (FLOPs, bytes) pair: intensity, ridge, attainable
 * performance, bound, efficiency and time (docs/design.md "Intensity and bound", "Performance").
 * attainable = min(peak, AI x BW); time = max(FLOPs/peak, bytes/BW); a tie at the ridge is compute.
 */
#include <math.h>

#include "rf_int.h"
#include "roofline/core.h"

const char *rf_bound_name(rf_bound bound)
{
    switch (bound) {
    case RF_BOUND_MEMORY: return "memory";
    case RF_BOUND_COMPUTE: return "compute";
    case RF_BOUND_NETWORK: return "network";
    default: return "undefined";
    }
}

static const char *const rf__prov_names[] = {"measured", "datasheet", "file", "user"};

const char *rf_provenance_name(rf_provenance p)
{
    return (unsigned)p < 4 ? rf__prov_names[p] : "unknown";
}

int rf_provenance_parse(const char *text, rf_provenance *out)
{
    for (unsigned i = 0; i < 4; i++)
        if (rf__strcasecmp(text, rf__prov_names[i]) == 0) {
            *out = (rf_provenance)i;
            return 1;
        }
    return 0;
}

static rf_status rf__check_roof(rf_ctx *ctx, const rf_roof *roof)
{
    RF_CHECK(ctx, roof, RF_USAGE, "no roof given");
    RF_CHECK(ctx, isfinite(roof->peak_flops_per_s) && roof->peak_flops_per_s > 0, RF_RANGE,
             "peak compute must be finite and positive, got %g FLOP/s", roof->peak_flops_per_s);
    RF_CHECK(ctx, isfinite(roof->bw_bytes_per_s) && roof->bw_bytes_per_s > 0, RF_RANGE,
             "peak bandwidth must be finite and positive, got %g B/s", roof->bw_bytes_per_s);
    return RF_OK;
}

rf_status rf_ridge_ai(rf_ctx *ctx, const rf_roof *roof, double *ai_out)
{
    RF_TRY(rf__check_roof(ctx, roof));
    *ai_out = roof->peak_flops_per_s / roof->bw_bytes_per_s;
    return RF_OK;
}

rf_status rf_roof_eval(rf_ctx *ctx, const rf_roof *roof, double flops, double bytes, rf_eval *out)
{
    RF_TRY(rf__check_roof(ctx, roof));
    RF_CHECK(ctx, isfinite(flops) && flops >= 0, RF_RANGE,
             "FLOPs must be a finite number >= 0, got %g", flops);
    RF_CHECK(ctx, isfinite(bytes) && bytes >= 0, RF_RANGE,
             "bytes must be a finite number >= 0, got %g", bytes);
    const double peak = roof->peak_flops_per_s, bw = roof->bw_bytes_per_s;
    rf_eval e;
    e.net_bytes = 0;
    e.net_ai = NAN;
    e.flops = flops;
    e.bytes = bytes;
    e.ridge_ai = peak / bw;
    if (flops == 0 && bytes == 0) {
        /* Nothing known about this operation: never a silent zero, the caller warns. */
        e.ai = NAN;
        e.attainable_flops_per_s = 0;
        e.efficiency = 0;
        e.time_s = 0;
        e.bound = RF_BOUND_UNDEFINED;
        *out = e;
        return RF_OK;
    }
    e.ai = bytes > 0 ? flops / bytes : INFINITY;
    if (e.ai >= e.ridge_ai) {
        e.bound = RF_BOUND_COMPUTE;
        e.attainable_flops_per_s = peak;
    } else {
        e.bound = RF_BOUND_MEMORY;
        e.attainable_flops_per_s = e.ai * bw;
        if (e.attainable_flops_per_s > peak) e.attainable_flops_per_s = peak; /* rounding */
    }
    e.efficiency = e.attainable_flops_per_s / peak;
    double tc = flops / peak, tm = bytes / bw;
    e.time_s = tc > tm ? tc : tm;
    *out = e;
    return RF_OK;
}

rf_status rf_roof_eval_net(rf_ctx *ctx, const rf_roof *roof, double net_bw, double flops,
                           double bytes, double net_bytes, rf_eval *out)
{
    RF_TRY(rf_roof_eval(ctx, roof, flops, bytes, out));
    RF_CHECK(ctx, isfinite(net_bytes) && net_bytes >= 0, RF_RANGE,
             "network bytes must be a finite number >= 0, got %g", net_bytes);
    if (net_bytes == 0 && !(net_bw > 0)) return RF_OK;
    RF_CHECK(ctx, isfinite(net_bw) && net_bw > 0, RF_USAGE,
             "network bytes given but the machine has no network ceiling (give --interconnect "
             "NAME|BW, or a machine file with a ceiling of kind network)");
    rf_eval *e = out;
    e->net_bytes = net_bytes;
    e->net_ai = net_bytes > 0 ? flops / net_bytes : (flops > 0 ? INFINITY : NAN);
    if (e->bound == RF_BOUND_UNDEFINED && net_bytes == 0) return RF_OK;
    double tn = net_bytes / net_bw;
    if (tn > e->time_s) {
        e->time_s = tn;
        e->bound = RF_BOUND_NETWORK;
        e->attainable_flops_per_s = flops / tn;
        e->efficiency = e->attainable_flops_per_s / roof->peak_flops_per_s;
        if (isnan(e->ai)) e->ai = 0; /* network bytes only: no FLOPs, no memory bytes */
    }
    return RF_OK;
}
