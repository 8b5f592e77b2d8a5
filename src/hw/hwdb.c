/* hwdb.c — finding a device of the datasheet database by identifier or alias (case-insensitive),
 * and the "unknown machine" message that names the close identifiers. The figures themselves live
 * in hwdb_data.c; this file never holds a number. Implements rf_hwdb_find, rf_interconnect_find and
 * rf_machine_add_interconnect of roofline/hw.h. */
#include <string.h>

#include "core/rf_int.h"
#include "roofline/hw.h"

/* Short names people type, each pointing at one identifier of the table. */
static const struct rf__hw_alias {
    const char *alias;
    const char *id;
} rf__hw_aliases[] = {
    {"a100", "a100-sxm4-80gb"},
    {"a100-80gb", "a100-sxm4-80gb"},
    {"a100-sxm", "a100-sxm4-80gb"},
    {"a100-40gb", "a100-sxm4-40gb"},
    {"a100-pcie", "a100-pcie-80gb"},
    {"h100", "h100-sxm5"},
    {"h100-sxm", "h100-sxm5"},
    {"h200", "h200-sxm"},
    {"v100", "v100-sxm2-32gb"},
    {"rtx4090", "rtx-4090"},
    {"4090", "rtx-4090"},
    {"mi300", "mi300x"},
    {"xeon-8480+", "xeon-8480plus"},
    {"sapphire-rapids", "xeon-8480plus"},
    {"genoa", "epyc-9654"},
    {"7950x", "ryzen9-7950x"},
    {"grace", "grace-superchip"},
    {"m2-max", "m2-max-gpu"},
};

#define RF__N_ALIASES (sizeof rf__hw_aliases / sizeof rf__hw_aliases[0])

/* Index of the entry called `id` exactly (case-insensitive), or the count when there is none. */
static size_t rf__hw_index(const char *id)
{
    size_t n = rf_hwdb_count();
    for (size_t i = 0; i < n; i++)
        if (rf__strcasecmp(rf_hwdb_id(i), id) == 0) return i;
    return n;
}

/* Case-insensitive: does `hay` contain `needle`? */
static int rf__hw_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0) return 0;
    for (; *hay; hay++)
        if (rf__strncasecmp(hay, needle, n) == 0) return 1;
    return 0;
}

/* Close: one name contains the other, or both start with the same dash-separated word. */
static int rf__hw_close(const char *id, const char *name)
{
    if (rf__hw_contains(id, name) || rf__hw_contains(name, id)) return 1;
    size_t a = strcspn(id, "-"), b = strcspn(name, "-");
    return a == b && a >= 2 && rf__strncasecmp(id, name, a) == 0;
}

static rf_status rf__hw_unknown(rf_ctx *ctx, const char *name)
{
    char list[256];
    size_t len = 0, shown = 0;
    list[0] = '\0';
    for (size_t i = 0; i < rf_hwdb_count() && shown < 6; i++) {
        if (!rf__hw_close(rf_hwdb_id(i), name)) continue;
        rf__appendf(list, sizeof list, &len, "%s%s", shown ? ", " : "", rf_hwdb_id(i));
        shown++;
    }
    if (shown)
        return rf__error(ctx, RF_USAGE, -1,
                         "unknown machine '%s' (close: %s; see `roofline hw list`)", name, list);
    return rf__error(ctx, RF_USAGE, -1,
                     "unknown machine '%s' (see `roofline hw list` for the %zu known ones)", name,
                     rf_hwdb_count());
}

rf_status rf_hwdb_find(rf_ctx *ctx, const char *name, rf_machine **out)
{
    RF_CHECK(ctx, out && name, RF_USAGE, "rf_hwdb_find: missing argument");
    *out = NULL;
    size_t i = rf__hw_index(name);
    for (size_t k = 0; i == rf_hwdb_count() && k < RF__N_ALIASES; k++)
        if (rf__strcasecmp(rf__hw_aliases[k].alias, name) == 0)
            i = rf__hw_index(rf__hw_aliases[k].id);
    if (i == rf_hwdb_count()) return rf__hw_unknown(ctx, name);
    return rf_hwdb_get(ctx, i, out);
}

rf_status rf_interconnect_find(rf_ctx *ctx, const char *name, const rf_interconnect **out)
{
    RF_CHECK(ctx, out && name, RF_USAGE, "rf_interconnect_find: missing argument");
    *out = NULL;
    char list[256];
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < rf_interconnect_count(); i++) {
        const rf_interconnect *ic = rf_interconnect_at(i);
        if (rf__strcasecmp(ic->id, name) == 0) {
            *out = ic;
            return RF_OK;
        }
        rf__appendf(list, sizeof list, &len, "%s%s", i ? ", " : "", ic->id);
    }
    return rf__error(ctx, RF_USAGE, -1, "unknown interconnect '%s' (known: %s; or a bandwidth)",
                     name, list);
}

rf_status rf_machine_add_interconnect(rf_ctx *ctx, rf_machine *m, const rf_interconnect *ic)
{
    RF_CHECK(ctx, m && ic, RF_USAGE, "rf_machine_add_interconnect: missing argument");
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    rf__strlcpy(c.name, ic->id, sizeof c.name);
    c.kind = RF_CEILING_NETWORK;
    c.value = ic->bytes_per_s;
    c.provenance = RF_PROV_DATASHEET;
    rf__strlcpy(c.source, ic->source, sizeof c.source);
    rf__strlcpy(c.note, ic->note, sizeof c.note);
    return rf_machine_add(ctx, m, &c);
}
