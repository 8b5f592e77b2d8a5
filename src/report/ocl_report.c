/* ocl_report.c — renderers of OpenCL devices: the list of `roofline hw list --devices` (a table
 * or a JSON array) and the report of `roofline peaks --device` (every ceiling with its statistics,
 * the ridge matrix, the global-memory sweep with its plateaus). Figures come from the probe; the
 * only arithmetic is the ridge, peak / bandwidth. Names from drivers are cleaned like a file's. */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/opencl.h"
#include "roofline/report.h"

static rf_status rf__dev_json(rf_writer *w, const rf_ocl_device *d, int last)
{
    RF_TRY(rf_writef(w, "  {\"id\": \"opencl:%u.%u\", \"type\": ", d->platform, d->device));
    RF_TRY(rf__write_json_string(w, d->type));
    RF_TRY(RF_WRITE_LIT(w, ", \"name\": "));
    RF_TRY(rf__write_json_string(w, d->name));
    RF_TRY(RF_WRITE_LIT(w, ", \"platform\": "));
    RF_TRY(rf__write_json_string(w, d->platform_name));
    RF_TRY(RF_WRITE_LIT(w, ", \"vendor\": "));
    RF_TRY(rf__write_json_string(w, d->vendor));
    RF_TRY(RF_WRITE_LIT(w, ", \"version\": "));
    RF_TRY(rf__write_json_string(w, d->version));
    RF_TRY(RF_WRITE_LIT(w, ", \"driver\": "));
    RF_TRY(rf__write_json_string(w, d->driver));
    RF_TRY(rf_writef(w,
                     ", \"compute_units\": %u, \"clock_mhz\": %u, \"global_mem_bytes\": %llu, "
                     "\"global_cache_bytes\": %llu, \"local_mem_bytes\": %llu, \"fp64\": %s, "
                     "\"fp16\": %s, \"int8_dot\": %s}%s\n",
                     d->compute_units, d->clock_mhz, (unsigned long long)d->global_mem_bytes,
                     (unsigned long long)d->global_cache_bytes,
                     (unsigned long long)d->local_mem_bytes, d->fp64 ? "true" : "false",
                     d->fp16 ? "true" : "false", d->int8_dot ? "true" : "false", last ? "" : ","));
    return RF_OK;
}

rf_status rf_report_ocl_devices(rf_ctx *ctx, const struct rf_ocl_device *devs, size_t n, int json,
                                rf_writer *w)
{
    RF_CHECK(ctx, (devs || !n) && w, RF_USAGE, "rf_report_ocl_devices: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* driver strings: no control bytes */
    w = &rf__cw;
    if (json) {
        RF_TRY(RF_WRITE_LIT(w, "[\n"));
        for (size_t i = 0; i < n; i++) RF_TRY(rf__dev_json(w, &devs[i], i + 1 == n));
        return RF_WRITE_LIT(w, "]\n");
    }
    RF_TRY(rf_writef(w, "%-11s %-4s %-34s %4s %6s %8s %8s  %s\n", "device", "type", "name", "CUs",
                     "MHz", "memory", "local", "precisions"));
    for (size_t i = 0; i < n; i++) {
        const rf_ocl_device *d = &devs[i];
        char id[24], mem[32], loc[32];
        snprintf(id, sizeof id, "opencl:%u.%u", d->platform, d->device);
        RF_TRY(rf_writef(w, "%-11s %-4s ", id, d->type));
        RF_TRY(rf__write_cell(w, d->name, 34, 0));
        RF_TRY(rf_writef(w, " %4u %6u %8s %8s  fp32%s%s%s\n", d->compute_units, d->clock_mhz,
                         rf_bytes_format_iec(mem, sizeof mem, (double)d->global_mem_bytes, 3),
                         rf_bytes_format_iec(loc, sizeof loc, (double)d->local_mem_bytes, 3),
                         d->fp64 ? " fp64" : "", d->fp16 ? " fp16" : "",
                         d->int8_dot ? " int8.dot" : ""));
        RF_TRY(RF_WRITE_LIT(w, "            platform: "));
        RF_TRY(rf_writef(w, "%s; %s; driver %s\n", d->platform_name, d->version, d->driver));
    }
    return RF_WRITE_LIT(w, "\n'roofline peaks --device opencl:P.D' measures one (plain "
                           "'opencl': the first GPU, else the first device).\n");
}

static rf_status rf__ocl_rows(const rf_machine *m, rf_writer *w)
{
    char v[32], lo[32], hi[32];
    RF_TRY(rf_writef(w, "  %-20s %14s %4s  %-19s  %s\n", "ceiling", "value", "CUs", "min .. max",
                     "note"));
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        const char *unit = c->kind == RF_CEILING_COMPUTE ? "FLOP/s" : "B/s";
        int def = i == m->default_compute || i == m->default_bandwidth;
        char spread[80];
        snprintf(spread, sizeof spread, "%s .. %s",
                 rf_si_format_compact(lo, sizeof lo, c->stats.min, ""),
                 rf_si_format_compact(hi, sizeof hi, c->stats.max, ""));
        RF_TRY(rf_writef(w, "%c %-20s %14s %4u  %-19s  %s%s\n", def ? '*' : ' ', c->name,
                         rf_si_format(v, sizeof v, c->value, 4, unit), c->stats.threads,
                         c->stats.threads ? spread : "", c->provisional ? "(provisional) " : "",
                         c->note));
    }
    return RF_OK;
}

static rf_status rf__ocl_sweep(const rf_ocl_report *r, rf_writer *w)
{
    char s[32], v[32];
    RF_TRY(RF_WRITE_LIT(w, "\nglobal-memory sweep (read; size of the whole buffer):\n"));
    for (size_t i = 0; i < r->n_sweep; i++) {
        const char *lvl = "";
        for (size_t l = 0; l < r->n_levels; l++)
            if (r->sweep[i].bytes >= r->levels[l].first_bytes &&
                r->sweep[i].bytes <= r->levels[l].last_bytes)
                lvl = r->levels[l].name;
        RF_TRY(rf_writef(w, "  %10s %12s  %s\n",
                         rf_bytes_format_iec(s, sizeof s, (double)r->sweep[i].bytes, 3),
                         rf_si_format(v, sizeof v, r->sweep[i].bytes_per_s, 3, "B/s"), lvl));
    }
    char c[32];
    if (r->device.global_cache_bytes)
        RF_TRY(
            rf_writef(w, "the device reports a global-memory cache of %s\n",
                      rf_bytes_format_iec(c, sizeof c, (double)r->device.global_cache_bytes, 3)));
    return RF_OK;
}

rf_status rf_report_ocl_measured(rf_ctx *ctx, const rf_machine *m, const struct rf_ocl_report *r,
                                 const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, m && w, RF_USAGE, "rf_report_ocl_measured: missing argument");
    rf_writer rf__cw = rf__clean_writer(w);
    w = &rf__cw;
    (void)o;
    RF_TRY(rf_writef(w, "%s\n", m->description));
    RF_TRY(rf_writef(w, "conditions: %s\n\n", m->source));
    RF_TRY(rf__ocl_rows(m, w));
    RF_TRY(RF_WRITE_LIT(
        w, "\n* default roof. Compute: best repeatable of the repetitions over vector widths, "
           "timed\nby the device's profiling events. Bandwidth: bytes the kernels load and "
           "store (copy =\nread + write); a level's roof is its best mix. h2d and d2h: "
           "host<->device transfers\n(network ceilings: a link, like PCIe).\n"));
    RF_TRY(rf_report_machine_ridges(ctx, m, w));
    return r ? rf__ocl_sweep(r, w) : RF_OK;
}
