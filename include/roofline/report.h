/* roofline/report.h — renderers of an rf_result: aligned table, JSON, CSV, the bottleneck summary
 * and the roofline chart (ASCII, SVG, HTML). Each writes through an rf_writer and never prints
 * by itself. Output is independent of locale and time. */
#ifndef ROOFLINE_REPORT_H
#define ROOFLINE_REPORT_H

#include <stddef.h>

#include "export.h"
#include "analysis.h"
#include "buf.h"
#include "core.h"
#include "hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the JSON result schema ("schema" field). */
#define RF_RESULT_SCHEMA 1

/** Options shared by the renderers. Zero-initialised means: 80 columns, ASCII, no colour. */
typedef struct rf_report_opts {
    unsigned width;        /**< terminal columns (0 = 80) */
    int utf8;              /**< may use UTF-8 box/line characters */
    int color;             /**< reserved for ANSI colours: no renderer reads it (the CLI sets it) */
    unsigned chart_height; /**< rows of the chart's plot area (0 = automatic) */
    int wide; /**< 1: every column of a table with measurements; 0: the narrow set that fits 120
                   columns (attainable FLOP/s, efficiency, estimated share, achieved B/s
                   and measured/estimated left out; the shape cut to 12) */
    uint64_t rows_max;     /**< tables and the ASCII chart: 0 = every row in its order; N = the N
                                slowest rows only (measured time where a row has one, else the
                                estimate), slowest first, and one line for the rest */
    const char *more_hint; /**< appended to that line, e.g. "--all lists them" (NULL: none) */
    int brief; /**< the one-screen form (`roofline demo`): a chart of at most 100 columns and 10
                    rows with a legend of a few lines, the first two suggestions of the advice in
                    a few lines each, the model's totals in one line */
} rf_report_opts;

/** Aligned table of rows and totals, with SI units. */
RF_API rf_status rf_report_table(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o,
                                 rf_writer *w);

/** Bottleneck summary: bound shares, the slowest operations, and what would move them. */
RF_API rf_status rf_report_summary(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o,
                                   rf_writer *w);

/** JSON document (schema RF_RESULT_SCHEMA) in base units: machine, roof, rows, totals. */
RF_API rf_status rf_report_json(rf_ctx *ctx, const rf_result *r, rf_writer *w);

/** CSV: header then one line per row, base units, RFC 4180 quoting. */
RF_API rf_status rf_report_csv(rf_ctx *ctx, const rf_result *r, rf_writer *w);

/** ASCII (or UTF-8) log-log roofline chart of `r` with every ceiling of `m` (may be NULL: only the
 *  roof used), ridge points marked and one letter/digit per row with a legend. */
RF_API rf_status rf_report_chart_ascii(rf_ctx *ctx, const rf_result *r, const rf_machine *m,
                                       const rf_report_opts *o, rf_writer *w);

/** Read back a result written by rf_report_json (schema <= RF_RESULT_SCHEMA), e.g. to plot it
 *  later. Strict: duplicate or unknown keys, wrong types, negative or non-finite figures and a
 *  bound that does not match the row's figures are RF_FORMAT / RF_RANGE errors naming the item
 *  (and the byte offset for a syntax error); a newer schema is RF_UNSUPPORTED. Each row is
 *  evaluated again under the file's roof. `source` names the input in messages (may be NULL).
 *  *out is owned by the caller: rf_result_free. */
RF_API rf_status rf_result_parse_json(rf_ctx *ctx, const void *data, size_t size,
                                      const char *source, rf_result **out);

/** rf_result_parse_json on a file ("-": standard input), mapped read-only. RF_IO names the path. */
RF_API rf_status rf_result_read_file(rf_ctx *ctx, const char *path, rf_result **out);

/** SVG roofline chart of results[0..n_results) (n_results >= 1; several results are drawn as
 *  series on shared axes, e.g. 224x224 vs 512x512 or prefill vs decode) with every ceiling of `m`
 *  (may be NULL: only the ceilings of the results): log-log decade axes with SI labels, every
 *  roof labelled with its value, ridge points, one marker per plotted row (circle: memory-bound,
 *  hatched square: compute-bound; area proportional to its share of the time) carrying its
 *  figures as data-* attributes, a legend and a title naming the machine and its provenance.
 *  A standalone SVG 1.1 document; deterministic. `o` may be NULL (unused for now). */
RF_API rf_status rf_report_chart_svg(rf_ctx *ctx, const rf_result *const *results, size_t n_results,
                                     const rf_machine *m, const rf_report_opts *o, rf_writer *w);

/** A self-contained HTML page (no network: inline SVG, CSS and script) with the chart of
 *  rf_report_chart_svg, a tooltip per marker, legend entries that hide a bound or a series, a
 *  table of every row sortable by column, and light/dark styling following the system. */
RF_API rf_status rf_report_chart_html(rf_ctx *ctx, const rf_result *const *results,
                                      size_t n_results, const rf_machine *m,
                                      const rf_report_opts *o, rf_writer *w);

/* ---- other results: LLM analyses, machines, model profiles ---- */

struct rf_llm_result;
struct rf_probe_report;

/** Text report of `roofline llm`: the model and its shape, weights, machine and roof, the
 *  per-layer table of prefill and of decode (bytes split into weights, activations and KV cache,
 *  bits per weight), and the token-rate ceilings. */
RF_API rf_status rf_report_llm_table(rf_ctx *ctx, const struct rf_llm_result *r,
                                     const rf_report_opts *o, rf_writer *w);

/** The same as one JSON document (schema "roofline-llm/1"), base units, null for non-finite. */
RF_API rf_status rf_report_llm_json(rf_ctx *ctx, const struct rf_llm_result *r, rf_writer *w);

/** The layers of both phases as CSV (header, then one line per layer; RFC 4180 quoting). */
RF_API rf_status rf_report_llm_csv(rf_ctx *ctx, const struct rf_llm_result *r, rf_writer *w);

struct rf_llm_dist;

/** The distributed view of `roofline llm --tp/--pp` (rf_llm_distribute): the devices and the link,
 *  per phase the device's time, the allreduces and hand-offs, the pass and its token rate with
 *  communication included, the batch and the TP degree at which communication becomes the bound. */
RF_API rf_status rf_report_llm_dist(rf_ctx *ctx, const struct rf_llm_dist *d, uint64_t decode_batch,
                                    const rf_report_opts *o, rf_writer *w);

/** A JSON object `doc` with a "distributed" key holding `d` added before its closing brace. */
RF_API rf_status rf_report_json_add_dist(rf_ctx *ctx, const char *doc, size_t len,
                                         const struct rf_llm_dist *d, rf_writer *w);

struct rf_cluster;

/** `roofline peaks --mpi` as text: each ceiling per node (up to four side by side), its spread
 *  and the aggregate; the ping-pong and allreduce curves and the network ceilings. */
RF_API rf_status rf_report_cluster(rf_ctx *ctx, const struct rf_cluster *c, const rf_report_opts *o,
                                   rf_writer *w);

struct rf_llm_weights;

/** The weights report of a model whose architecture roofline does not build: parameters, bytes
 *  and bits per weight, bytes by type, the tensors grouped by name, and the memory-bound ceiling
 *  of reading every weight once per token on bandwidth ceiling `bandwidth` of `m` (tokens/s <=
 *  bandwidth / bytes, aprender's simple figure). `path` names the file. */
RF_API rf_status rf_report_llm_weights(rf_ctx *ctx, const struct rf_llm_weights *wr,
                                       const char *path, const rf_machine *m, size_t bandwidth,
                                       const rf_report_opts *o, rf_writer *w);
/** The same as JSON (schema "roofline-llm-weights/1"). */
RF_API rf_status rf_report_llm_weights_json(rf_ctx *ctx, const struct rf_llm_weights *wr,
                                            const char *path, const rf_machine *m, size_t bandwidth,
                                            rf_writer *w);
/** The same as CSV (RFC 4180 quoting): header `row,name,tensors,params,bytes,bits_per_weight,
 *  type,bw_tokens_per_s`, then one `total` row (name: the path; the ceiling in bw_tokens_per_s),
 *  one `dtype` row per element type and one `group` row per group of tensors, all groups. */
RF_API rf_status rf_report_llm_weights_csv(rf_ctx *ctx, const struct rf_llm_weights *wr,
                                           const char *path, const rf_machine *m, size_t bandwidth,
                                           rf_writer *w);

struct rf_profile;

/** Under `roofline profile`'s table: the model's totals (layers, params, weight bytes, FLOPs and
 *  MACs, undefined layers by op type) and the `top` slowest layers (0: none). With `o->brief`
 *  the totals in one line; with `o->brief`, or an `o->rows_max` that the table's rows exceed (the
 *  table was that list), no slowest layers. */
RF_API rf_status rf_report_profile_summary(rf_ctx *ctx, const struct rf_profile *p, uint64_t top,
                                           const rf_report_opts *o, rf_writer *w);

/** `--compare`: layer by layer (matched by name) the intensity, bound and time of `a` and of `b`
 *  (the same model under the input shapes `what`), and the totals' shift. */
RF_API rf_status rf_report_profile_compare(rf_ctx *ctx, const struct rf_profile *a,
                                           const struct rf_profile *b, const char *what,
                                           const rf_report_opts *o, rf_writer *w);

/** The chart back ends. */
typedef enum rf_chart_format { RF_CHART_ASCII, RF_CHART_SVG, RF_CHART_HTML } rf_chart_format;

/** `roofline peaks`: the machine's description and conditions, every ceiling with its
 *  statistics (threads, min .. max) and note, the ridge matrix, and when `sweep` is given (a fresh
 *  measurement, not the cache) the working-set sweep with its plateaus. */
RF_API rf_status rf_report_machine_measured(rf_ctx *ctx, const rf_machine *m,
                                            const struct rf_probe_report *sweep,
                                            const rf_report_opts *o, rf_writer *w);

struct rf_ocl_device;
struct rf_ocl_report;

/** `roofline hw list --devices`: the OpenCL devices devs[0..n) (rf_ocl_devices) as a table (id
 *  opencl:P.D, type, name, compute units, clock, memories, precisions, platform and driver) or,
 *  with `json`, an array of objects. */
RF_API rf_status rf_report_ocl_devices(rf_ctx *ctx, const struct rf_ocl_device *devs, size_t n,
                                       int json, rf_writer *w);

/** `roofline peaks --device`: the device's description and conditions, every ceiling with its
 *  statistics and note, the ridge matrix, and when `r` is given (a fresh measurement, not the
 *  cache) the global-memory sweep with its plateaus. */
RF_API rf_status rf_report_ocl_measured(rf_ctx *ctx, const rf_machine *m,
                                        const struct rf_ocl_report *r, const rf_report_opts *o,
                                        rf_writer *w);

/** `roofline hw show`: one machine ceiling by ceiling with provenance and sources, and its
 *  default roof with the ridge. */
RF_API rf_status rf_report_machine_show(rf_ctx *ctx, const rf_machine *m, const rf_report_opts *o,
                                        rf_writer *w);

/** Ridge points (FLOP/byte) of every FMA, GEMM and dot compute ceiling against every level. */
RF_API rf_status rf_report_machine_ridges(rf_ctx *ctx, const rf_machine *m, rf_writer *w);

/** `roofline ops`: the op registry (every op type roofline knows: kind, the cost-model section
 *  that counts it, its executor kernel or why it has none) as a table or a JSON array; `pattern`
 *  (NULL: all) keeps the ops whose name contains it, case-insensitively. */
RF_API rf_status rf_report_ops(rf_ctx *ctx, const char *pattern, int json, rf_writer *w);

/** `roofline hw list`: the datasheet database as a table (default and best compute, DRAM) or
 *  as a JSON array of {id, kind, description} (`json` non-zero). */
RF_API rf_status rf_report_hwdb_list(rf_ctx *ctx, int json, rf_writer *w);

/** One interconnect of the database (`hw show nvlink4`): its bandwidth per direction, the latency
 *  assumed for a message, source and note; as text, or with `json` as an object. */
RF_API rf_status rf_report_interconnect(rf_ctx *ctx, const rf_interconnect *ic, int json,
                                        rf_writer *w);

/** The chart of an LLM analysis: prefill and decode layers as two series (SVG, HTML; ASCII: the
 *  phase groups of `r->groups`) and, when rates were measured (`r->measured`), a third series
 *  whose points are the whole prefill pass and one decode step, the estimate open and the
 *  measured rate solid. */
RF_API rf_status rf_report_llm_chart(rf_ctx *ctx, const struct rf_llm_result *r,
                                     rf_chart_format format, const rf_report_opts *o, rf_writer *w);

/** The roofline chart of a machine alone (every ceiling, ridge points, no operations). */
RF_API rf_status rf_report_machine_chart(rf_ctx *ctx, const rf_machine *m, rf_chart_format format,
                                         const rf_report_opts *o, rf_writer *w);

#ifdef __cplusplus
}
#endif
#endif
