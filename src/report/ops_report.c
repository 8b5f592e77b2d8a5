/* ops_report.c — `roofline ops`: the op registry as a table or JSON — every op roofline knows,
 * its kind, the docs/cost-model.md section that counts it, and its executor kernel or why it has
 * none. The rows come from src/graph/op_table.h through rf_op_registry_at. */
#include <ctype.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/graph.h"
#include "roofline/report.h"

static int rf__ops_match(const rf_op_info *o, const char *pattern)
{
    if (!pattern || !pattern[0]) return 1;
    for (const char *s = o->name; *s; s++) { /* a case-insensitive substring of the name */
        size_t k = 0;
        while (pattern[k] && s[k] &&
               tolower((unsigned char)s[k]) == tolower((unsigned char)pattern[k]))
            k++;
        if (!pattern[k]) return 1;
    }
    return 0;
}

rf_status rf_report_ops(rf_ctx *ctx, const char *pattern, int json, rf_writer *w)
{
    (void)ctx;
    rf_writer rf__cw = rf__clean_writer(w);
    w = &rf__cw;
    size_t shown = 0, measured = 0;
    if (json)
        RF_TRY(RF_WRITE_LIT(w, "["));
    else
        RF_TRY(rf_writef(w, "%-32s %-13s %-14s %-10s %s\n", "op", "domain", "kind", "kernel",
                         "cost rule (section of docs/cost-model.md)"));
    for (size_t i = 0; i < rf_op_registry_count(); i++) {
        rf_op_info o;
        if (!rf_op_registry_at(i, &o) || !rf__ops_match(&o, pattern)) continue;
        measured += o.executor != NULL;
        if (json) {
            RF_TRY(rf_writef(w, "%s\n {\"op\": ", shown ? "," : ""));
            RF_TRY(rf__write_json_string(w, o.name));
            RF_TRY(RF_WRITE_LIT(w, ", \"domain\": "));
            RF_TRY(rf__write_json_string(w, o.domain));
            RF_TRY(rf_writef(w, ", \"kind\": \"%s\", \"cost_section\": ", rf_op_kind_name(o.kind)));
            RF_TRY(rf__write_json_string(w, o.cost_section));
            RF_TRY(RF_WRITE_LIT(w, ", \"executor\": "));
            RF_TRY(o.executor ? rf__write_json_string(w, o.executor) : RF_WRITE_LIT(w, "null"));
            RF_TRY(RF_WRITE_LIT(w, ", \"no_kernel\": "));
            RF_TRY(o.no_kernel ? rf__write_json_string(w, o.no_kernel) : RF_WRITE_LIT(w, "null"));
            RF_TRY(RF_WRITE_LIT(w, "}"));
        } else {
            RF_TRY(rf_writef(w, "%-32s %-13s %-14s %-10s %s%s%s\n", o.name,
                             o.domain[0] ? o.domain : "onnx", rf_op_kind_name(o.kind),
                             o.executor ? o.executor : "none", o.cost_section,
                             o.no_kernel ? "; not run: " : "", o.no_kernel ? o.no_kernel : ""));
        }
        shown++;
    }
    if (json) return rf_writef(w, "%s]\n", shown ? "\n" : "");
    return rf_writef(w, "\n%zu ops, %zu with an executor kernel (--measure runs and times them).\n",
                     shown, measured);
}
