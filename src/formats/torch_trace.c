/* torch_trace.c — PyTorch profiler Chrome traces (`prof.export_chrome_trace`, docs/prof-import.md):
 * {"traceEvents": [...]} or a bare array of events (the exporter without Kineto). Complete events
 * ("ph": "X"): ops of category cpu_op (Operator in older traces, none in the Kineto-less export)
 * carry "args": {"flops": N} with with_flops=True; kernel and gpu_op events are GPU kernels, tied
 * to the op that launched them by "External id". With kernels in the trace the rows are the
 * kernels, each given its op's FLOPs (shared among the op's kernels); without, the ops that have
 * FLOPs. "dur" is in microseconds. Bytes: the op's input tensors from "Input Dims" and "Input
 * type" (record_shapes=True), shared among its kernels like the FLOPs. Streamed: the document is
 * bounded by core/json_scan.h, then jansson decodes one event at a time, twice (an index of the
 * ops by External id, then the rows); never hand-decodes JSON values. */
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

/* Pass 1, one event (number i): its op's FLOPs and input bytes by External id into `flops` and
 * `bytes` (objects used as hashes), the kernels each id launched into `launches`, and whether
 * the trace has kernels. */
static rf_status torch_index(rf_ctx *ctx, json_t *e, size_t i, json_t *flops, json_t *bytes,
                             json_t *launches, int *has_kernels)
{
    char key[64];
    int kind = torch_kind(e);
    double f = 0;
    if (kind == EV_OTHER || !torch_ext(e, key, sizeof key)[0]) {
        *has_kernels |= kind == EV_KERNEL;
        return RF_OK;
    }
    if (kind == EV_KERNEL) {
        *has_kernels = 1;
        json_t *n = json_object_get(launches, key);
        if (json_object_set_new(launches, key, json_integer(n ? json_integer_value(n) + 1 : 1)))
            return RF_NOMEM_ERR(ctx);
        return RF_OK;
    }
    json_t *n = json_object_get(flops, key);
    if (torch_number(json_object_get(e, "args"), "flops", &f) > 0 && f > 0 &&
        json_object_set_new(flops, key, json_real(n ? json_real_value(n) + f : f)))
        return RF_NOMEM_ERR(ctx);
    double b = torch_input_bytes(e);
    if (b < 0)
        return rf__error(ctx, RF_FORMAT, -1,
                         "traceEvents[%zu]: \"Input Dims\" holds a value that is not a dimension",
                         i);
    n = json_object_get(bytes, key);
    if (b > 0 && json_object_set_new(bytes, key, json_real(n ? json_real_value(n) + b : b)))
        return RF_NOMEM_ERR(ctx);
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

/* The document, read one event at a time: jansson decodes each value on its own
 * (JSON_DISABLE_EOF_CHECK stops after it), so memory is that of the largest event, not of the
 * trace (a 1 GB trace would take ~10 GB as one tree). */
typedef struct torch_stream {
    rf_ctx *ctx;
    const uint8_t *data;
    size_t size, pos;
} torch_stream;

static void torch_ws(torch_stream *s)
{
    while (s->pos < s->size && (s->data[s->pos] == ' ' || s->data[s->pos] == '\t' ||
                                s->data[s->pos] == '\n' || s->data[s->pos] == '\r'))
        s->pos++;
}

/* The line and column of byte `at`, for messages. */
static void torch_where(const torch_stream *s, size_t at, size_t *line, size_t *col)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < at && i < s->size; i++) {
        if (s->data[i] == '\n')
            (*line)++, *col = 1;
        else
            (*col)++;
    }
}

static rf_status torch_bad(torch_stream *s, size_t at, const char *what)
{
    size_t line, col;
    torch_where(s, at, &line, &col);
    return rf__error(s->ctx, RF_FORMAT, (int64_t)at, "not valid JSON at line %zu column %zu: %s",
                     line, col, what);
}

/* One value at s->pos into *out (a new reference). */
static rf_status torch_value(torch_stream *s, json_t **out)
{
    json_error_t err;
    *out = json_loadb((const char *)s->data + s->pos, s->size - s->pos,
                      JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_DECODE_INT_AS_REAL, &err);
    if (!*out) {
        if (json_error_code(&err) == json_error_out_of_memory) return RF_NOMEM_ERR(s->ctx);
        char text[JSON_ERROR_TEXT_LENGTH];
        size_t i = 0;
        for (; err.text[i] && i + 1 < sizeof text; i++)
            text[i] = (err.text[i] >= 0x20 && err.text[i] < 0x7F) ? err.text[i] : '?';
        text[i] = '\0';
        return torch_bad(s, s->pos + (err.position > 0 ? (size_t)err.position : 0), text);
    }
    s->pos += (size_t)err.position;
    return RF_OK;
}

/* Expect byte c (after white space). */
static int torch_take(torch_stream *s, char c)
{
    torch_ws(s);
    if (s->pos < s->size && s->data[s->pos] == (uint8_t)c) {
        s->pos++;
        return 1;
    }
    return 0;
}

/* Position s at the first byte after the '[' of the events array: the document itself when it
 * is an array, else the value of the top-level "traceEvents" (other members decoded and dropped,
 * each bounded by the scan). 0 when there is none. */
static rf_status torch_find_events(torch_stream *s, int *found)
{
    *found = 0;
    if (torch_take(s, '[')) {
        *found = 1;
        return RF_OK;
    }
    if (!torch_take(s, '{')) return torch_bad(s, s->pos, "expected an object or an array");
    if (torch_take(s, '}')) return RF_OK;
    for (;;) {
        torch_ws(s);
        json_t *key;
        RF_TRY(torch_value(s, &key));
        int is_events = json_is_string(key) && strcmp(json_string_value(key), "traceEvents") == 0;
        int ok = json_is_string(key);
        json_decref(key);
        if (!ok) return torch_bad(s, s->pos, "an object key must be a string");
        if (!torch_take(s, ':')) return torch_bad(s, s->pos, "':' expected");
        if (is_events) {
            if (!torch_take(s, '[')) return RF_OK; /* not an array: said by the caller */
            *found = 1;
            return RF_OK;
        }
        torch_ws(s);
        json_t *v;
        RF_TRY(torch_value(s, &v));
        json_decref(v);
        if (torch_take(s, ',')) continue;
        if (torch_take(s, '}')) return RF_OK;
        return torch_bad(s, s->pos, "',' or '}' expected");
    }
}

/* After the events array: the object's other members and its '}' (obj), then only white space. A
 * truncated or padded document is refused like a whole-document parse would. */
static rf_status torch_tail(torch_stream *s, int obj)
{
    while (obj) {
        if (torch_take(s, '}')) break;
        if (!torch_take(s, ',')) return torch_bad(s, s->pos, "',' or '}' expected");
        json_t *v = NULL;
        torch_ws(s);
        RF_TRY(torch_value(s, &v));
        int ok = json_is_string(v);
        json_decref(v);
        if (!ok) return torch_bad(s, s->pos, "an object key must be a string");
        if (!torch_take(s, ':')) return torch_bad(s, s->pos, "':' expected");
        torch_ws(s);
        RF_TRY(torch_value(s, &v));
        json_decref(v);
    }
    torch_ws(s);
    return s->pos == s->size ? RF_OK : torch_bad(s, s->pos, "text after the document");
}

/* Pass `pass` (1: index, 2: rows) over the events, one decoded at a time. */
static rf_status torch_pass(torch_stream *s, size_t start, int pass, rf__prof_table *t,
                            json_t *flops, json_t *bytes, json_t *launches, int *kernels)
{
    s->pos = start;
    if (torch_take(s, ']')) return RF_OK;
    for (size_t i = 0;; i++) {
        torch_ws(s);
        json_t *e;
        RF_TRY(torch_value(s, &e));
        rf_status st = pass == 1 ? torch_index(s->ctx, e, i, flops, bytes, launches, kernels)
                                 : torch_event(s->ctx, t, e, i, *kernels, flops, bytes, launches);
        json_decref(e);
        RF_TRY(st);
        if (torch_take(s, ',')) continue;
        if (torch_take(s, ']')) return RF_OK;
        return torch_bad(s, s->pos, "',' or ']' expected");
    }
}

static rf_status torch_events(rf_ctx *ctx, const uint8_t *data, size_t size, rf__prof_table *t)
{
    torch_stream s = {ctx, data, size, 0};
    torch_ws(&s);
    int obj = s.pos < size && data[s.pos] == '{';
    int found;
    RF_TRY(torch_find_events(&s, &found));
    if (!found)
        return rf__error(ctx, RF_FORMAT, -1,
                         "not a PyTorch trace: no \"traceEvents\" array (an "
                         "export_chrome_trace file has one)");
    size_t start = s.pos;
    json_t *flops = json_object(), *bytes = json_object(), *launches = json_object();
    int kernels = 0;
    rf_status st = flops && bytes && launches
                       ? torch_pass(&s, start, 1, t, flops, bytes, launches, &kernels)
                       : RF_NOMEM_ERR(ctx);
    if (st == RF_OK) st = torch_pass(&s, start, 2, t, flops, bytes, launches, &kernels);
    if (st == RF_OK) st = torch_tail(&s, obj);
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
    return torch_events(ctx, data, size, t);
}
