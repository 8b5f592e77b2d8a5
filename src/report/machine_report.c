/* machine_report.c — renderers of machines: the measured-machine report of `roofline peaks`
 * (ceilings with their statistics, ridge matrix, working-set sweep), one machine ceiling by
 * ceiling (`hw show`), the datasheet list (`hw list`, table or JSON), and the chart of a machine's
 * roofs alone. Figures come from the machine; the only arithmetic is the ridge, peak / bandwidth.
 */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/hw.h"
#include "roofline/probe.h"
#include "roofline/report.h"

static rf_status rf__ceiling_rows(const rf_machine *m, rf_writer *w)
{
    char v[32], lo[32], hi[32];
    RF_TRY(rf_writef(w, "  %-20s %14s %3s  %-19s  %s\n", "ceiling", "value", "thr", "min .. max",
                     "note"));
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        const char *unit = c->kind == RF_CEILING_COMPUTE ? "FLOP/s" : "B/s";
        int def = i == m->default_compute || i == m->default_bandwidth;
        rf_si_format(v, sizeof v, c->value, 4, unit);
        rf_si_format_compact(lo, sizeof lo, c->stats.min, "");
        rf_si_format_compact(hi, sizeof hi, c->stats.max, "");
        char spread[80];
        snprintf(spread, sizeof spread, "%s .. %s", lo, hi);
        RF_TRY(rf_writef(w, "%c %-20s %14s %3u  %-19s  %s\n", def ? '*' : ' ', c->name, v,
                         c->stats.threads, c->stats.threads ? spread : "", c->note));
    }
    return RF_OK;
}

/* A bandwidth ceiling of a memory level: not a decode kernel's (q4_k.gemv.avx512, which bounds
 * the weight bytes a kernel consumes, not what a level delivers). */
static int rf__memory_level(const rf_ceiling *c)
{
    return c->kind == RF_CEILING_BANDWIDTH && !strstr(c->name, ".gemv.");
}

rf_status rf_report_machine_ridges(rf_ctx *ctx, const rf_machine *m, rf_writer *w)
{
    RF_CHECK(ctx, m && w, RF_USAGE, "rf_report_machine_ridges: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)ctx;
    RF_TRY(rf_writef(w,
                     "\nridge points (FLOP/byte): where the compute roof meets each level\n"
                     "  %-20s",
                     ""));
    for (size_t b = 0; b < m->n_ceilings; b++)
        if (rf__memory_level(&m->ceilings[b])) RF_TRY(rf_writef(w, " %8s", m->ceilings[b].name));
    RF_TRY(rf_write(w, "\n", 1));
    for (size_t c = 0; c < m->n_ceilings; c++) {
        const rf_ceiling *cc = &m->ceilings[c];
        if (cc->kind != RF_CEILING_COMPUTE ||
            (!strstr(cc->name, ".fma.") && !strstr(cc->name, ".gemm.") &&
             !strstr(cc->name, ".dot.")))
            continue;
        RF_TRY(rf_writef(w, "  %-20s", cc->name));
        for (size_t b = 0; b < m->n_ceilings; b++)
            if (rf__memory_level(&m->ceilings[b]))
                RF_TRY(rf_writef(w, " %8.3g", cc->value / m->ceilings[b].value));
        RF_TRY(rf_write(w, "\n", 1));
    }
    return RF_OK;
}

static rf_status rf__sweep(const rf_probe_report *r, rf_writer *w)
{
    char s[32], v[32];
    RF_TRY(rf_writef(w, "\nworking-set sweep (load, %u thread%s; size per thread):\n",
                     r->sweep_threads, r->sweep_threads > 1 ? "s" : ""));
    for (size_t i = 0; i < r->n_sweep; i++) {
        rf_bytes_format_iec(s, sizeof s, (double)r->sweep[i].bytes, 3);
        rf_si_format(v, sizeof v, r->sweep[i].bytes_per_s, 3, "B/s");
        const char *lvl = "";
        for (size_t l = 0; l < r->n_levels; l++)
            if (r->sweep[i].bytes >= r->levels[l].first_bytes &&
                r->sweep[i].bytes <= r->levels[l].last_bytes)
                lvl = r->levels[l].name;
        RF_TRY(rf_writef(w, "  %10s %12s  %s\n", s, v, lvl));
    }
    return rf_writef(w, "levels: %s\n", r->levels_note[0] ? r->levels_note : "(one plateau)");
}

rf_status rf_report_machine_measured(rf_ctx *ctx, const rf_machine *m, const rf_probe_report *sweep,
                                     const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, m && w, RF_USAGE, "rf_report_machine_measured: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)o;
    RF_TRY(rf_writef(w, "%s\n", m->description));
    RF_TRY(rf_writef(w, "conditions: %s\n\n", m->source));
    RF_TRY(rf__ceiling_rows(m, w));
    RF_TRY(RF_WRITE_LIT(w, "\n* default roof. Compute: best repeatable of the repetitions, "
                           "limit = FLOP/cycle x clock\nmeasured under that ISA x threads. "
                           "Bandwidth: bytes = reads + writes issued by the\ncores "
                           "(write-allocate not counted); the roof of a level is its best mix.\n"));
    RF_TRY(rf_report_machine_ridges(ctx, m, w));
    return sweep ? rf__sweep(sweep, w) : RF_OK;
}

rf_status rf_report_machine_show(rf_ctx *ctx, const rf_machine *m, const rf_report_opts *o,
                                 rf_writer *w)
{
    RF_CHECK(ctx, m && w, RF_USAGE, "rf_report_machine_show: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)ctx;
    (void)o;
    char v[32];
    RF_TRY(rf_writef(w, "%s [%s, %s, %s]\n", m->description[0] ? m->description : m->name, m->name,
                     m->kind, rf_provenance_name(m->provenance)));
    if (m->source[0]) RF_TRY(rf_writef(w, "source: %s\n", m->source));
    RF_TRY(rf_writef(w, "\n  %-18s %-9s %14s  %-9s  %s\n", "ceiling", "kind", "value", "from",
                     "note (and source, when not the one above)"));
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        int is_c = c->kind == RF_CEILING_COMPUTE;
        rf_si_format(v, sizeof v, c->value, 4, is_c ? "FLOP/s" : "B/s");
        int def = i == m->default_compute || i == m->default_bandwidth;
        /* The machine's own source is printed once above; only other sources per line. */
        const char *src = strcmp(c->source, m->source) == 0 ? "" : c->source;
        char line[1024];
        int n = snprintf(line, sizeof line, "%c %-18s %-9s %14s  %-9s  %s", def ? '*' : ' ',
                         c->name, is_c ? "compute" : "bandwidth", v,
                         rf_provenance_name(c->provenance), src[0] ? src : c->note);
        while (n > 0 && (size_t)n < sizeof line && line[n - 1] == ' ') line[--n] = '\0';
        RF_TRY(rf_writef(w, "%s\n", line));
        if (src[0] && c->note[0])
            RF_TRY(rf_writef(w, "  %-18s %-9s %14s  %-9s  %s\n", "", "", "", "", c->note));
    }
    const rf_ceiling *dc = &m->ceilings[m->default_compute],
                     *bw = &m->ceilings[m->default_bandwidth];
    return rf_writef(w, "\n* default roof: %s / %s, ridge %.3g FLOP/B\n", dc->name, bw->name,
                     dc->value / bw->value);
}

/* Highest floating-point compute ceiling of a machine (for the list): integer ceilings (int8,
 * int4: OP/s, not FLOP/s) are left out; the default when the machine has only those. */
static const rf_ceiling *rf__top_compute(const rf_machine *m)
{
    const rf_ceiling *best = NULL;
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        if (c->kind != RF_CEILING_COMPUTE || rf__strncasecmp(c->name, "int", 3) == 0 ||
            rf__strncasecmp(c->name, "uint", 4) == 0)
            continue;
        if (!best || c->value > best->value) best = c;
    }
    return best ? best : &m->ceilings[m->default_compute];
}

static rf_status rf__list_entry(rf_writer *w, const rf_machine *m, int json, int last)
{
    char a[32], b[32], c[32];
    if (json) {
        RF_TRY(RF_WRITE_LIT(w, "  {\"id\": "));
        RF_TRY(rf__write_json_string(w, m->name));
        RF_TRY(RF_WRITE_LIT(w, ", \"kind\": "));
        RF_TRY(rf__write_json_string(w, m->kind));
        RF_TRY(RF_WRITE_LIT(w, ", \"description\": "));
        RF_TRY(rf__write_json_string(w, m->description));
        return rf_writef(w, "}%s\n", last ? "" : ",");
    }
    const rf_ceiling *dc = &m->ceilings[m->default_compute], *top = rf__top_compute(m),
                     *bw = &m->ceilings[m->default_bandwidth];
    RF_TRY(rf_writef(w, "%-15s %-4s ", m->name, m->kind));
    RF_TRY(rf__write_cell(w, m->description, 33, 0));
    return rf_writef(w, " %7s %7s %7s\n", rf_si_format_compact(a, sizeof a, dc->value, ""),
                     rf_si_format_compact(b, sizeof b, top->value, ""),
                     rf_si_format_compact(c, sizeof c, bw->value, ""));
}

rf_status rf_report_hwdb_list(rf_ctx *ctx, int json, rf_writer *w)
{
    RF_CHECK(ctx, w, RF_USAGE, "rf_report_hwdb_list: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    if (json)
        RF_TRY(RF_WRITE_LIT(w, "[\n"));
    else
        RF_TRY(rf_writef(w, "%-15s %-4s %-33s %7s %7s %7s\n", "id", "kind", "device", "default",
                         "best", "DRAM"));
    for (size_t i = 0; i < rf_hwdb_count(); i++) {
        rf_machine *m = NULL;
        RF_TRY(rf_hwdb_get(ctx, i, &m));
        rf_status st = rf__list_entry(w, m, json, i + 1 == rf_hwdb_count());
        rf_machine_free(m);
        RF_TRY(st);
    }
    if (json) return RF_WRITE_LIT(w, "]\n");
    RF_TRY(RF_WRITE_LIT(
        w, "\ndefault: the roof used unless --compute says otherwise (FLOP/s); "
           "best: the highest\nfloating-point compute ceiling (integer OP/s left out); DRAM: "
           "main-memory bandwidth\n(B/s). "
           "'roofline hw show ID' for all.\n"));
    RF_TRY(rf_writef(w,
                     "\ninterconnects (network roofs: --interconnect ID, or a ceiling of kind "
                     "network)\n%-15s %-41s %9s %8s\n",
                     "id", "link", "B/s", "latency"));
    for (size_t i = 0; i < rf_interconnect_count(); i++) {
        const rf_interconnect *ic = rf_interconnect_at(i);
        char bw[32], lat[32];
        RF_TRY(rf_writef(w, "%-15s %-41s %9s %8s\n", ic->id, ic->description,
                         rf_si_format(bw, sizeof bw, ic->bytes_per_s, 3, ""),
                         rf_time_format(lat, sizeof lat, ic->latency_s, 2)));
    }
    return RF_WRITE_LIT(w, "B/s: per direction and device; latency: one message, as the "
                           "communication time assumes it\n(see 'roofline hw show ID').\n");
}

rf_status rf_report_interconnect(rf_ctx *ctx, const rf_interconnect *ic, int json, rf_writer *w)
{
    RF_CHECK(ctx, ic && w, RF_USAGE, "rf_report_interconnect: missing argument");
    (void)ctx;
    rf_writer rf__cw = rf__clean_writer(w);
    w = &rf__cw;
    if (json) {
        RF_TRY(RF_WRITE_LIT(w, "{\"id\": "));
        RF_TRY(rf__write_json_string(w, ic->id));
        RF_TRY(RF_WRITE_LIT(w, ", \"kind\": \"interconnect\", \"description\": "));
        RF_TRY(rf__write_json_string(w, ic->description));
        RF_TRY(RF_WRITE_LIT(w, ", \"bytes_per_s\": "));
        RF_TRY(rf__write_json_number(w, ic->bytes_per_s));
        RF_TRY(RF_WRITE_LIT(w, ", \"latency_s\": "));
        RF_TRY(rf__write_json_number(w, ic->latency_s));
        RF_TRY(RF_WRITE_LIT(w, ", \"source\": "));
        RF_TRY(rf__write_json_string(w, ic->source));
        RF_TRY(RF_WRITE_LIT(w, ", \"note\": "));
        RF_TRY(rf__write_json_string(w, ic->note));
        return RF_WRITE_LIT(w, "}\n");
    }
    char bw[32], lat[32];
    return rf_writef(w,
                     "%s (interconnect: a network roof)\n  bandwidth  %s per direction, per "
                     "device\n  latency    %s per message\n  source     %s\n  note       %s\n",
                     ic->description, rf_si_format(bw, sizeof bw, ic->bytes_per_s, 3, "B/s"),
                     rf_time_format(lat, sizeof lat, ic->latency_s, 2), ic->source, ic->note);
}

/* A result with no rows under the machine's default roof: what the chart back ends draw when
 * only the roofs matter. Internal to the machine charts. */
static rf_status rf__roofs_only(rf_ctx *ctx, const rf_machine *m, rf_result **out)
{
    rf_analysis *an = NULL;
    char title[RF_TEXT_MAX];
    if (m->provenance == RF_PROV_MEASURED)
        rf__strlcpy(title, "measured ceilings", sizeof title);
    else
        snprintf(title, sizeof title, "ceilings of %s", m->name);
    rf_status st =
        rf_analysis_new(ctx, m, m->default_compute, m->default_bandwidth, RF_SORT_INPUT, 0, &an);
    if (st == RF_OK) st = rf_analysis_finish(an, title, out);
    rf_analysis_free(an);
    return st;
}

rf_status rf_report_machine_chart(rf_ctx *ctx, const rf_machine *m, rf_chart_format format,
                                  const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, m && w, RF_USAGE, "rf_report_machine_chart: missing argument");
    rf_result *r = NULL;
    RF_TRY(rf__roofs_only(ctx, m, &r));
    const rf_result *one[1] = {r};
    rf_status st = format == RF_CHART_ASCII  ? rf_report_chart_ascii(ctx, r, m, o, w)
                   : format == RF_CHART_HTML ? rf_report_chart_html(ctx, one, 1, m, o, w)
                                             : rf_report_chart_svg(ctx, one, 1, m, o, w);
    rf_result_free(r);
    return st;
}
