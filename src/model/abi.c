/* abi.c — the layout of the public structs that bindings copy by hand (python/roofline/_lib.py
 * declares them for ctypes): each struct's size and each field's offset, so a binding can check
 * its copy against the library it loaded instead of trusting it. */
#include <stddef.h>
#include <string.h>

#include "roofline/analysis.h"
#include "roofline/buf.h"
#include "roofline/cost.h"
#include "roofline/ctx.h"
#include "roofline/graph.h"
#include "roofline/model.h"
#include "roofline/op_cost.h"
#include "roofline/shape.h"

#define RF__F(type, field)                                                                         \
    {                                                                                              \
#type, #field, offsetof(type, field)                                                       \
    }
#define RF__S(type)                                                                                \
    {                                                                                              \
#type, NULL, sizeof(type)                                                                  \
    }

static const struct {
    const char *type, *field;
    size_t value;
} rf__abi[] = {
    RF__S(rf_allocator),
    RF__F(rf_allocator, malloc_fn),
    RF__F(rf_allocator, realloc_fn),
    RF__F(rf_allocator, free_fn),
    RF__F(rf_allocator, user),
    RF__S(rf_buf),
    RF__F(rf_buf, data),
    RF__F(rf_buf, len),
    RF__F(rf_buf, cap),
    RF__F(rf_buf, max),
    RF__F(rf_buf, a),
    RF__S(rf_writer),
    RF__F(rf_writer, write),
    RF__F(rf_writer, user),
    RF__S(rf_attr),
    RF__F(rf_attr, name),
    RF__F(rf_attr, type),
    RF__F(rf_attr, i),
    RF__F(rf_attr, f),
    RF__F(rf_attr, s),
    RF__F(rf_attr, ints),
    RF__F(rf_attr, floats),
    RF__F(rf_attr, n),
    RF__S(rf_op_input),
    RF__F(rf_op_input, dtype),
    RF__F(rf_op_input, rank),
    RF__F(rf_op_input, dims),
    RF__F(rf_op_input, weight),
    RF__F(rf_op_input, values),
    RF__F(rf_op_input, n_values),
    RF__S(rf_layer_cost),
    RF__F(rf_layer_cost, flops),
    RF__F(rf_layer_cost, bias_flops),
    RF__F(rf_layer_cost, weight_bytes),
    RF__F(rf_layer_cost, input_bytes),
    RF__F(rf_layer_cost, output_bytes),
    RF__F(rf_layer_cost, kv_read_bytes),
    RF__F(rf_layer_cost, kv_write_bytes),
    RF__F(rf_layer_cost, bytes),
    RF__F(rf_layer_cost, params),
    RF__F(rf_layer_cost, known),
    RF__F(rf_layer_cost, reason),
    RF__S(rf_measured),
    RF__F(rf_measured, time_s),
    RF__F(rf_measured, min_s),
    RF__F(rf_measured, max_s),
    RF__F(rf_measured, runs),
    RF__S(rf_shape_binding),
    RF__F(rf_shape_binding, name),
    RF__F(rf_shape_binding, is_dim),
    RF__F(rf_shape_binding, rank),
    RF__F(rf_shape_binding, dims),
    RF__F(rf_shape_binding, value),
    RF__S(rf_model_opts),
    RF__F(rf_model_opts, format),
    RF__F(rf_model_opts, bindings),
    RF__F(rf_model_opts, n_bindings),
    RF__F(rf_model_opts, batch),
    RF__F(rf_model_opts, seq),
    RF__F(rf_model_opts, granular),
    RF__F(rf_model_opts, trips),
    RF__F(rf_profile, graph),
    RF__F(rf_profile, cost),
    RF__F(rf_profile, result),
};

int rf_abi_layout(const char *type, const char *field, size_t *out)
{
    if (!type || !out) return 0;
    for (size_t i = 0; i < sizeof rf__abi / sizeof *rf__abi; i++)
        if (strcmp(rf__abi[i].type, type) == 0 &&
            (field ? rf__abi[i].field && strcmp(rf__abi[i].field, field) == 0
                   : !rf__abi[i].field)) {
            *out = rf__abi[i].value;
            return 1;
        }
    return 0;
}
