/* roofline/hw.h — machines from outside the process: the datasheet database (every entry with the
 * document it comes from) and machine files in JSON (the simple form and the full form).
 * Never measures; the probe (roofline/probe.h) does. */
#ifndef ROOFLINE_HW_H
#define ROOFLINE_HW_H

#include <stddef.h>

#include "export.h"
#include "buf.h"
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version written in, and the highest accepted from, the "schema" field of machine files. */
#define RF_MACHINE_SCHEMA 1

/** Number of devices in the datasheet database. */
RF_API size_t rf_hwdb_count(void);

/** Identifier of entry `i` (e.g. "a100-sxm4-80gb"), or NULL past the end. Static. */
RF_API const char *rf_hwdb_id(size_t i);

/** Build the machine of entry `i` (provenance datasheet, every ceiling with its source). */
RF_API rf_status rf_hwdb_get(rf_ctx *ctx, size_t i, rf_machine **out);

/** Find an entry by identifier or alias, case-insensitive ("a100-80gb", "h100"). RF_USAGE naming
 *  the closest identifiers when none matches. */
RF_API rf_status rf_hwdb_find(rf_ctx *ctx, const char *name, rf_machine **out);

/** An interconnect of the datasheet database: the network roof of distributed work. */
typedef struct rf_interconnect {
    const char *id;          /**< "nvlink4", "ib-ndr", "eth-100g" ... */
    const char *description; /**< "NVIDIA NVLink 4 (H100 SXM5: 18 links)" */
    double bytes_per_s;      /**< per direction, per device (a GPU's NVLink total, one NIC port) */
    double latency_s;        /**< one message's latency assumed for communication time */
    const char *source;      /**< the document the bandwidth comes from */
    const char *note;        /**< the derivation and what the latency rests on */
} rf_interconnect;

/** Number of interconnects in the database. */
RF_API size_t rf_interconnect_count(void);

/** Entry `i`, or NULL past the end. Static. */
RF_API const rf_interconnect *rf_interconnect_at(size_t i);

/** Find an interconnect by identifier (case-insensitive). RF_USAGE listing the known ones. */
RF_API rf_status rf_interconnect_find(rf_ctx *ctx, const char *name, const rf_interconnect **out);

/** Add `ic` to `m` as a network ceiling named after it (provenance datasheet). */
RF_API rf_status rf_machine_add_interconnect(rf_ctx *ctx, rf_machine *m, const rf_interconnect *ic);

/** Parse a machine file from memory (JSON, either form; see docs/machine-file.md). `source` names
 *  the input in messages and in the ceilings' provenance. Rejects unknown schema versions, missing
 *  or non-numeric figures, NaN/negative/zero peaks, duplicate keys and ceilings. */
RF_API rf_status rf_machine_parse_json(rf_ctx *ctx, const void *data, size_t size,
                                       const char *source, rf_machine **out);

/** Read a machine file (at most 16 MiB). Errors name the path. */
RF_API rf_status rf_machine_read_file(rf_ctx *ctx, const char *path, rf_machine **out);

/** Write `m` as JSON: the full form, or with `simple` the simple form (name, peak_flops,
 *  peak_bandwidth from the default ceilings). Ends with a newline. */
RF_API rf_status rf_machine_write_json(rf_ctx *ctx, const rf_machine *m, int simple, rf_writer *w);

/** Resolve a --hw argument: a database name, else a path to a machine file. */
RF_API rf_status rf_machine_resolve(rf_ctx *ctx, const char *spec, rf_machine **out);

#ifdef __cplusplus
}
#endif
#endif
