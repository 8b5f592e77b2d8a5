/* cmd_hw.c — `roofline hw list` and `roofline hw show NAME|FILE`: the datasheet database and
 * machine files, as a table or as JSON (the machine-file form, ready to edit and pass to --hw). */
#include <string.h>

#include "cli.h"

static const rf_cli_opt rf__hw_opts[] = {
    {"json", 0, NULL, "print JSON (show: a machine file in the full form)"},
    {"simple", 0, NULL, "show --json: the simple form (name, peak_flops, peak_bandwidth)"},
    {0, 0, 0, 0},
};

/* Highest compute ceiling of a machine (for the list). */
static const rf_ceiling *rf__top_compute(const rf_machine *m)
{
    const rf_ceiling *best = NULL;
    for (size_t i = 0; i < m->n_ceilings; i++)
        if (m->ceilings[i].kind == RF_CEILING_COMPUTE &&
            (!best || m->ceilings[i].value > best->value))
            best = &m->ceilings[i];
    return best;
}

static rf_status rf__list(rf_ctx *ctx, int json, rf_writer *w)
{
    char a[32], b[32], c[32], desc[40];
    if (json)
        RF_TRY_CLI(rf_write(w, "[\n", 2));
    else
        RF_TRY_CLI(rf_writef(w, "%-15s %-4s %-33s %7s %7s %7s\n", "id", "kind", "device", "default",
                             "best", "DRAM"));
    for (size_t i = 0; i < rf_hwdb_count(); i++) {
        rf_machine *m = NULL;
        rf_status st = rf_hwdb_get(ctx, i, &m);
        if (st != RF_OK) return st;
        const rf_ceiling *dc = &m->ceilings[m->default_compute], *top = rf__top_compute(m),
                         *bw = &m->ceilings[m->default_bandwidth];
        rf_si_format_compact(a, sizeof a, dc->value, "");
        rf_si_format_compact(b, sizeof b, top->value, "");
        rf_si_format_compact(c, sizeof c, bw->value, "");
        size_t dl = strlen(m->description);
        memcpy(desc, m->description, dl < 33 ? dl : 32);
        if (dl > 33) desc[32] = '~';
        desc[dl < 33 ? dl : 33] = '\0';
        if (json)
            st = rf_writef(w, "  {\"id\": \"%s\", \"kind\": \"%s\", \"description\": \"%s\"}%s\n",
                           m->name, m->kind, m->description, i + 1 < rf_hwdb_count() ? "," : "");
        else
            st = rf_writef(w, "%-15s %-4s %-33s %7s %7s %7s\n", m->name, m->kind, desc, a, b, c);
        rf_machine_free(m);
        if (st != RF_OK) return st;
    }
    if (json) return rf_write(w, "]\n", 2);
    return rf_writef(w, "\ndefault: the roof used unless --compute says otherwise (FLOP/s); best: "
                        "the highest\ncompute ceiling; DRAM: main-memory bandwidth (B/s). "
                        "'roofline hw show ID' for all.\n");
}

static rf_status rf__show(rf_ctx *ctx, const rf_machine *m, rf_writer *w)
{
    char v[32];
    RF_TRY_CLI(rf_writef(w, "%s [%s, %s, %s]\n", m->description[0] ? m->description : m->name,
                         m->name, m->kind, rf_provenance_name(m->provenance)));
    if (m->source[0]) RF_TRY_CLI(rf_writef(w, "source: %s\n", m->source));
    RF_TRY_CLI(rf_writef(w, "\n  %-18s %-9s %14s  %-9s  %s\n", "ceiling", "kind", "value", "from",
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
        RF_TRY_CLI(rf_writef(w, "%s\n", line));
        if (src[0] && c->note[0])
            RF_TRY_CLI(rf_writef(w, "  %-18s %-9s %14s  %-9s  %s\n", "", "", "", "", c->note));
    }
    const rf_ceiling *dc = &m->ceilings[m->default_compute],
                     *bw = &m->ceilings[m->default_bandwidth];
    RF_TRY_CLI(rf_writef(w, "\n* default roof: %s / %s, ridge %.3g FLOP/B\n", dc->name, bw->name,
                         dc->value / bw->value));
    (void)ctx;
    return RF_OK;
}

static int rf__hw(const rf_cli_cmd *cmd, int argc, char **argv)
{
    rf_cli_args a;
    int done, rc = rf_cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos == 0) return rf_cli_usage_error(cmd, "missing 'list' or 'show NAME|FILE'");
    int json = rf_cli_get(&a, "json") != NULL;
    int is_list = strcmp(a.pos[0], "list") == 0, is_show = strcmp(a.pos[0], "show") == 0;
    if (!is_list && !is_show) return rf_cli_usage_error(cmd, "unknown action '%s'", a.pos[0]);
    if (is_list && a.n_pos != 1) return rf_cli_usage_error(cmd, "'list' takes no argument");
    if (is_show && a.n_pos != 2) return rf_cli_usage_error(cmd, "'show' takes one NAME or FILE");
    rf_ctx *ctx = rf_cli_ctx();
    if (!ctx) return RF_EXIT_INTERNAL;
    rf_writer w = rf_cli_stdout();
    rf_machine *m = NULL;
    rf_status st;
    if (is_list) {
        st = rf__list(ctx, json, &w);
    } else if ((st = rf_machine_resolve(ctx, a.pos[1], &m)) == RF_OK) {
        st = json ? rf_machine_write_json(ctx, m, rf_cli_get(&a, "simple") != NULL, &w)
                  : rf__show(ctx, m, &w);
    }
    rf_machine_free(m);
    if (st == RF_OK)
        rc = rf_cli_flush(ctx) == RF_OK ? RF_EXIT_OK : RF_EXIT_INTERNAL;
    else
        rc = rf_cli_fail(ctx, st);
    rf_ctx_free(ctx);
    return rc;
}

const rf_cli_cmd rf_cmd_hw = {
    "hw",
    "hw list | hw show NAME|FILE [--json [--simple]]",
    "the datasheet database and machine files",
    "'hw list' lists the devices of the datasheet database (every figure dense, with the document "
    "it comes from). 'hw show' prints one device, or a machine file, ceiling by ceiling; with "
    "--json it prints a machine file you can edit and pass to --hw.",
    rf__hw_opts,
    rf__hw,
};
