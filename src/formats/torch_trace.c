/* torch_trace.c — PyTorch profiler Chrome traces (`prof.export_chrome_trace`, docs/prof-import.md):
 * {"traceEvents": [...]} or a bare array of events. Complete events ("ph": "X") of category
 * cpu_op (or the older Operator) that carry "args": {"flops": N} (with_flops=True) are ops; kernel
 * and gpu_op events are GPU kernels (time only). "dur" is in microseconds. The document is bounded
 * by core/json_scan.h before jansson builds it; never hand-decodes JSON values. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "core/json_scan.h"
#include "formats/prof_int.h"

/* What an event may hold: its args carry shapes and strides (a few hundred values for a
 * concatenation of many tensors); outside the events, deviceProperties and a few keys. */
static const rf__json_limits torch_lim_obj = {.max_depth = 32,
                                              .max_string = 1 << 20,
                                              .bulk_key = "traceEvents",
                                              .per_item = 1 << 16,
                                              .outside = 1 << 16,
                                              .items_are_containers = 1};
static const rf__json_limits torch_lim_arr = {.max_depth = 32,
                                              .max_string = 1 << 20,
                                              .bulk_key = NULL,
                                              .per_item = 1 << 16,
                                              .outside = 16,
                                              .items_are_containers = 1};

/* A number member of `o`, finite and >= 0, into *out; 0 when absent; -1 when of another type or
 * out of range. */
static int torch_number(json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) return 0;
    if (!json_is_number(v)) return -1;
    double d = json_number_value(v);
    if (!isfinite(d) || d < 0 || d > 1e300) return -1;
    *out = d;
    return 1;
}

static int torch_is(json_t *o, const char *key, const char *value)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) && strcmp(json_string_value(v), value) == 0;
}

/* One event: an op with flops or a GPU kernel goes into the table; anything else is passed by. */
static rf_status torch_event(rf_ctx *ctx, rf__prof_table *t, json_t *e, size_t i)
{
    if (!json_is_object(e) || !torch_is(e, "ph", "X")) return RF_OK;
    int op = torch_is(e, "cat", "cpu_op") || torch_is(e, "cat", "Operator");
    int kernel = torch_is(e, "cat", "kernel") || torch_is(e, "cat", "gpu_op");
    if (!op && !kernel) return RF_OK;
    double flops = 0, dur = 0;
    json_t *args = json_object_get(e, "args");
    int hf = json_is_object(args) ? torch_number(args, "flops", &flops) : 0;
    int hd = torch_number(e, "dur", &dur);
    json_t *name = json_object_get(e, "name");
    if (hf < 0 || hd < 0)
        return rf__error(ctx, RF_FORMAT, -1, "traceEvents[%zu]: \"%s\" is not a finite number >= 0",
                         i, hf < 0 ? "args.flops" : "dur");
    if (op && !(flops > 0)) return RF_OK; /* an op without a FLOP count: not a roofline point */
    if (!json_is_string(name) || json_string_length(name) == 0)
        return rf__error(ctx, RF_FORMAT, -1, "traceEvents[%zu]: no \"name\" string", i);
    const char *s = json_string_value(name);
    size_t len = json_string_length(name);
    if (memchr(s, 0, len))
        return rf__error(ctx, RF_FORMAT, -1, "traceEvents[%zu]: a NUL character in the name", i);
    rf_prof_kernel *k;
    RF_TRY(rf__prof_kernel_get(t, s, len, &k));
    k->count++;
    k->flops_other += flops;
    k->time_s += dur * 1e-6;
    if (!(k->flops_other <= 1e300) || !(k->time_s <= 1e300))
        return rf__error(ctx, RF_RANGE, -1, "traceEvents[%zu]: '%s' summed is out of range", i,
                         k->name);
    return RF_OK;
}

rf_status rf__prof_parse_torch(rf_ctx *ctx, const uint8_t *data, size_t size, rf__prof_table *t)
{
    size_t lead = 0;
    while (lead < size &&
           (data[lead] == ' ' || data[lead] == '\t' || data[lead] == '\n' || data[lead] == '\r'))
        lead++;
    int is_array = lead < size && data[lead] == '[';
    RF_TRY(rf__json_scan(ctx, data, size, is_array ? &torch_lim_arr : &torch_lim_obj));
    json_error_t err;
    json_t *root = json_loadb((const char *)data, size, JSON_DECODE_INT_AS_REAL, &err);
    if (!root) {
        char text[JSON_ERROR_TEXT_LENGTH];
        size_t i = 0;
        for (; err.text[i] && i + 1 < sizeof text; i++)
            text[i] = (err.text[i] >= 0x20 && err.text[i] < 0x7F) ? err.text[i] : '?';
        text[i] = '\0';
        return rf__error(ctx,
                         json_error_code(&err) == json_error_out_of_memory ? RF_NOMEM : RF_FORMAT,
                         err.position >= 0 ? (int64_t)err.position : -1,
                         "not valid JSON at line %d column %d: %s", err.line, err.column, text);
    }
    json_t *events = is_array ? root : json_object_get(root, "traceEvents");
    rf_status st = RF_OK;
    if (!json_is_array(events))
        st = rf__error(ctx, RF_FORMAT, -1,
                       "not a PyTorch trace: no \"traceEvents\" array (an export_chrome_trace "
                       "file has one)");
    for (size_t i = 0; st == RF_OK && i < json_array_size(events); i++)
        st = torch_event(ctx, t, json_array_get(events, i), i);
    json_decref(root);
    return st;
}
