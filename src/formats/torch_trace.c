/* torch_trace.c — PyTorch profiler Chrome traces (`prof.export_chrome_trace`, docs/prof-import.md):
 * {"traceEvents": [...]} or a bare array of events (the exporter without Kineto). Complete events
 * ("ph": "X"): ops of category cpu_op (Operator in older traces, none in the Kineto-less export)
 * carry "args": {"flops": N} with with_flops=True; kernel and gpu_op events are GPU kernels, tied
 * to the op that launched them by "External id". With kernels in the trace the rows are the
 * kernels, each given its op's FLOPs (shared among the op's kernels); without, the ops that have
 * FLOPs. "dur" is in microseconds. Bytes: the op's input tensors from "Input Dims" and "Input
 * type" (record_shapes=True), shared among its kernels like the FLOPs. The document is bounded by
 * core/json_scan.h before jansson builds it; never hand-decodes JSON values. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
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

enum { EV_OTHER, EV_OP, EV_KERNEL };

/* A number member of `o`, finite and >= 0, into *out; 0 when absent; -1 when of another type or
 * out of range. */
static int torch_number(json_t *o, const char *key, double *out)
{
    json_t *v = o ? json_object_get(o, key) : NULL;
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

static int torch_kind(json_t *e)
{
    if (!json_is_object(e) || !torch_is(e, "ph", "X")) return EV_OTHER;
    if (torch_is(e, "cat", "kernel") || torch_is(e, "cat", "gpu_op")) return EV_KERNEL;
    if (torch_is(e, "cat", "cpu_op") || torch_is(e, "cat", "Operator") ||
        !json_object_get(e, "cat"))
        return EV_OP;
    return EV_OTHER;
}

/* Bytes of one element of a tensor of `type` as the profiler names it; 0 when not a tensor. */
static double torch_elem_size(const char *type)
{
    static const struct {
        const char *name;
        double size;
    } t[] = {{"float", 4},
             {"double", 8},
             {"c10::Half", 2},
             {"c10::BFloat16", 2},
             {"long int", 8},
             {"int", 4},
             {"short int", 2},
             {"signed char", 1},
             {"unsigned char", 1},
             {"bool", 1},
             {"c10::complex<float>", 8},
             {"c10::complex<double>", 16},
             {"c10::Float8_e4m3fn", 1},
             {"c10::Float8_e5m2", 1}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(type, t[i].name) == 0) return t[i].size;
    return 0;
}

/* The bytes of an op's input tensors; 0 without shapes; -1 when a dimension is not a count. */
static double torch_input_bytes(json_t *e)
{
    json_t *args = json_object_get(e, "args");
    json_t *dims = json_is_object(args) ? json_object_get(args, "Input Dims") : NULL;
    json_t *types = json_is_object(args) ? json_object_get(args, "Input type") : NULL;
    if (!json_is_array(dims) || !json_is_array(types)) return 0;
    double sum = 0;
    for (size_t i = 0; i < json_array_size(dims) && i < json_array_size(types); i++) {
        json_t *ty = json_array_get(types, i), *d = json_array_get(dims, i);
        double n = json_is_string(ty) ? torch_elem_size(json_string_value(ty)) : 0;
        if (n == 0 || !json_is_array(d)) continue;
        for (size_t j = 0; j < json_array_size(d); j++) {
            json_t *v = json_array_get(d, j);
            double x = json_is_number(v) ? json_number_value(v) : -1;
            if (!(x >= 0 && x <= 1e15 && x == floor(x))) return -1;
            n *= x;
        }
        sum += n;
        if (!(sum <= 1e300)) return -1;
    }
    return sum;
}

/* The "External id" of an event as a key ("" when it has none). */
static const char *torch_ext(json_t *e, char *buf, size_t cap)
{
    json_t *args = json_object_get(e, "args");
    json_t *id = json_is_object(args) ? json_object_get(args, "External id") : NULL;
    buf[0] = '\0';
    if (json_is_integer(id))
        snprintf(buf, cap, "%lld", (long long)json_integer_value(id));
    else if (json_is_real(id))
        snprintf(buf, cap, "%.17g", json_real_value(id));
    else if (json_is_string(id))
        snprintf(buf, cap, "%s", json_string_value(id));
    return buf;
}

/* Pass 1: the FLOPs and input bytes of each op by External id into `flops` and `bytes` (objects
 * used as hashes), how many
 * kernels each id launched into `launches`, and whether the trace has kernels. */
static rf_status torch_index(rf_ctx *ctx, json_t *events, json_t *flops, json_t *bytes,
                             json_t *launches, int *has_kernels)
{
    char key[64];
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        int kind = torch_kind(e);
        double f = 0;
        if (kind == EV_OTHER || !torch_ext(e, key, sizeof key)[0]) {
            *has_kernels |= kind == EV_KERNEL;
            continue;
        }
        if (kind == EV_KERNEL) {
            *has_kernels = 1;
            json_t *n = json_object_get(launches, key);
            if (json_object_set_new(launches, key, json_integer(n ? json_integer_value(n) + 1 : 1)))
                return RF_NOMEM_ERR(ctx);
        } else {
            json_t *n = json_object_get(flops, key);
            if (torch_number(json_object_get(e, "args"), "flops", &f) > 0 && f > 0 &&
                json_object_set_new(flops, key, json_real(n ? json_real_value(n) + f : f)))
                return RF_NOMEM_ERR(ctx);
            double b = torch_input_bytes(e);
            if (b < 0)
                return rf__error(ctx, RF_FORMAT, -1,
                                 "traceEvents[%zu]: \"Input Dims\" holds a value that is not a "
                                 "dimension",
                                 i);
            n = json_object_get(bytes, key);
            if (b > 0 && json_object_set_new(bytes, key, json_real(n ? json_real_value(n) + b : b)))
                return RF_NOMEM_ERR(ctx);
        }
    }
    return RF_OK;
}

/* Pass 2, one event: a row when it is a kernel (with kernels) or an op with FLOPs (without). */
static rf_status torch_event(rf_ctx *ctx, rf__prof_table *t, json_t *e, size_t i, int kernels,
                             json_t *flops, json_t *bytes, json_t *launches)
{
    int kind = torch_kind(e);
    if (kind == EV_OTHER || (kind == EV_KERNEL) != (kernels != 0)) return RF_OK;
    double f = 0, dur = 0, b = 0;
    int hf = torch_number(json_object_get(e, "args"), "flops", &f);
    int hd = torch_number(e, "dur", &dur);
    if (hf < 0 || hd < 0)
        return rf__error(ctx, RF_FORMAT, -1, "traceEvents[%zu]: \"%s\" is not a finite number >= 0",
                         i, hf < 0 ? "args.flops" : "dur");
    if (kind == EV_KERNEL) {
        char key[64];
        json_t *of = json_object_get(flops, torch_ext(e, key, sizeof key));
        json_t *ob = json_object_get(bytes, key);
        json_t *n = json_object_get(launches, key);
        f = of && n ? json_real_value(of) / (double)json_integer_value(n) : 0;
        b = ob && n ? json_real_value(ob) / (double)json_integer_value(n) : 0;
    } else if (!(f > 0)) {
        return RF_OK; /* an op without a FLOP count: not a roofline point */
    } else if ((b = torch_input_bytes(e)) < 0) {
        return rf__error(ctx, RF_FORMAT, -1,
                         "traceEvents[%zu]: \"Input Dims\" holds a value that is not a dimension",
                         i);
    }
    json_t *name = json_object_get(e, "name");
    if (!json_is_string(name) || json_string_length(name) == 0)
        return rf__error(ctx, RF_FORMAT, -1, "traceEvents[%zu]: no \"name\" string", i);
    const char *s = json_string_value(name);
    size_t len = json_string_length(name);
    if (memchr(s, 0, len))
        return rf__error(ctx, RF_FORMAT, -1, "traceEvents[%zu]: a NUL character in the name", i);
    rf_prof_kernel *k;
    RF_TRY(rf__prof_kernel_get(t, s, len, &k));
    k->gpu_kernel = kind == EV_KERNEL;
    k->count++;
    k->flops_other += f;
    k->time_s += dur * 1e-6;
    k->bytes_inputs += b;
    if (!(k->flops_other <= 1e300) || !(k->time_s <= 1e300) || !(k->bytes_inputs <= 1e300))
        return rf__error(ctx, RF_RANGE, -1, "traceEvents[%zu]: the sums are out of range", i);
    return RF_OK;
}

static rf_status torch_events(rf_ctx *ctx, json_t *events, rf__prof_table *t)
{
    json_t *flops = json_object(), *bytes = json_object(), *launches = json_object();
    int kernels = 0;
    rf_status st = flops && bytes && launches
                       ? torch_index(ctx, events, flops, bytes, launches, &kernels)
                       : RF_NOMEM_ERR(ctx);
    for (size_t i = 0; st == RF_OK && i < json_array_size(events); i++)
        st = torch_event(ctx, t, json_array_get(events, i), i, kernels, flops, bytes, launches);
    json_decref(flops);
    json_decref(bytes);
    json_decref(launches);
    return st;
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
    rf_status st = json_is_array(events)
                       ? torch_events(ctx, events, t)
                       : rf__error(ctx, RF_FORMAT, -1,
                                   "not a PyTorch trace: no \"traceEvents\" array (an "
                                   "export_chrome_trace file has one)");
    json_decref(root);
    return st;
}
