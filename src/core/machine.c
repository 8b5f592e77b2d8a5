/* machine.c — a machine as a set of named ceilings with provenance; selection of the compute and
 * bandwidth ceilings an analysis uses; which ceiling binds at a given intensity.
 * Pure data; machine files and the datasheet database live in src/hw. */
#include <math.h>
#include <string.h>

#include "rf_int.h"
#include "roofline/core.h"

rf_status rf_machine_new(rf_ctx *ctx, const char *name, rf_machine **out)
{
    RF_CHECK(ctx, out && name, RF_USAGE, "rf_machine_new: missing argument");
    *out = NULL;
    rf_machine *m = rf__calloc(ctx, 1, sizeof *m);
    if (!m) return RF_NOMEM_ERR(ctx);
    rf__strlcpy(m->name, name, sizeof m->name);
    rf__strlcpy(m->kind, "custom", sizeof m->kind);
    m->provenance = RF_PROV_FILE;
    m->alloc_ = *rf_ctx_allocator(ctx);
    m->default_compute = m->default_bandwidth = SIZE_MAX;
    *out = m;
    return RF_OK;
}

void rf_machine_free(rf_machine *m)
{
    if (!m) return;
    rf_allocator a = m->alloc_;
    rf__free_with(&a, m->ceilings);
    rf__free_with(&a, m);
}

rf_status rf_machine_clone(rf_ctx *ctx, const rf_machine *src, rf_machine **out)
{
    RF_CHECK(ctx, src && out, RF_USAGE, "rf_machine_clone: missing argument");
    RF_TRY(rf_machine_new(ctx, src->name, out));
    rf_machine *m = *out;
    rf_allocator keep = m->alloc_;
    *m = *src;
    m->alloc_ = keep;
    m->ceilings = NULL;
    m->n_ceilings = m->cap_ = 0;
    if (src->n_ceilings) {
        m->ceilings = rf__calloc(ctx, src->n_ceilings, sizeof *m->ceilings);
        if (!m->ceilings) {
            rf_machine_free(m);
            *out = NULL;
            return RF_NOMEM_ERR(ctx);
        }
        memcpy(m->ceilings, src->ceilings, src->n_ceilings * sizeof *m->ceilings);
        m->n_ceilings = m->cap_ = src->n_ceilings;
    }
    return RF_OK;
}

int rf_machine_provisional(const rf_machine *m)
{
    for (size_t i = 0; m && i < m->n_ceilings; i++)
        if (m->ceilings[i].provisional) return 1;
    return 0;
}

long rf_machine_find(const rf_machine *m, const char *name)
{
    for (size_t i = 0; i < m->n_ceilings; i++)
        if (rf__strcasecmp(m->ceilings[i].name, name) == 0) return (long)i;
    return -1;
}

rf_status rf_machine_add(rf_ctx *ctx, rf_machine *m, const rf_ceiling *c)
{
    RF_CHECK(ctx, m && c, RF_USAGE, "rf_machine_add: missing argument");
    RF_CHECK(ctx, c->name[0], RF_FORMAT, "machine '%s': a ceiling has no name", m->name);
    RF_CHECK(ctx, memchr(c->name, '\0', sizeof c->name), RF_FORMAT,
             "machine '%s': ceiling name too long", m->name);
    RF_CHECK(ctx,
             c->kind == RF_CEILING_COMPUTE || c->kind == RF_CEILING_BANDWIDTH ||
                 c->kind == RF_CEILING_NETWORK,
             RF_USAGE, "machine '%s', ceiling '%s': unknown kind", m->name, c->name);
    RF_CHECK(ctx, isfinite(c->value) && c->value > 0, RF_RANGE,
             "machine '%s', ceiling '%s': value must be finite and positive, got %g", m->name,
             c->name, c->value);
    RF_CHECK(ctx, rf_machine_find(m, c->name) < 0, RF_FORMAT,
             "machine '%s': duplicate ceiling '%s'", m->name, c->name);
    if (m->n_ceilings == m->cap_) {
        size_t ncap = m->cap_ ? m->cap_ * 2 : 8;
        rf_ceiling *p = rf__realloc(ctx, m->ceilings, ncap * sizeof *p);
        if (!p) return RF_NOMEM_ERR(ctx);
        m->ceilings = p;
        m->cap_ = ncap;
    }
    size_t i = m->n_ceilings++;
    m->ceilings[i] = *c;
    if (c->kind == RF_CEILING_COMPUTE && m->default_compute == SIZE_MAX) m->default_compute = i;
    if (c->kind == RF_CEILING_BANDWIDTH && m->default_bandwidth == SIZE_MAX)
        m->default_bandwidth = i;
    return RF_OK;
}

rf_status rf_machine_set_value(rf_ctx *ctx, rf_machine *m, size_t index, double value,
                               rf_provenance prov, const char *source)
{
    RF_CHECK(ctx, index < m->n_ceilings, RF_USAGE, "machine '%s' has no ceiling %zu", m->name,
             index);
    rf_ceiling *c = &m->ceilings[index];
    RF_CHECK(ctx, isfinite(value) && value > 0, RF_RANGE,
             "%s: value must be finite and positive, got %g", source ? source : c->name, value);
    c->value = value;
    c->provenance = prov;
    rf__strlcpy(c->source, source ? source : "", sizeof c->source);
    memset(&c->stats, 0, sizeof c->stats);
    return RF_OK;
}

rf_status rf_machine_simple(rf_ctx *ctx, const char *name, double peak_flops_per_s,
                            double bw_bytes_per_s, rf_provenance prov, const char *source,
                            rf_machine **out)
{
    RF_TRY(rf_machine_new(ctx, name, out));
    rf_machine *m = *out;
    m->provenance = prov;
    rf__strlcpy(m->source, source ? source : "", sizeof m->source);
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    c.provenance = prov;
    rf__strlcpy(c.source, m->source, sizeof c.source);
    rf__strlcpy(c.name, "peak", sizeof c.name);
    c.kind = RF_CEILING_COMPUTE;
    c.value = peak_flops_per_s;
    rf_status st = rf_machine_add(ctx, m, &c);
    if (st == RF_OK) {
        rf__strlcpy(c.name, "memory", sizeof c.name);
        c.kind = RF_CEILING_BANDWIDTH;
        c.value = bw_bytes_per_s;
        st = rf_machine_add(ctx, m, &c);
    }
    if (st != RF_OK) {
        rf_machine_free(m);
        *out = NULL;
    }
    return st;
}

const char *rf_ceiling_kind_name(rf_ceiling_kind k)
{
    return k == RF_CEILING_COMPUTE ? "compute" : k == RF_CEILING_NETWORK ? "network" : "bandwidth";
}

size_t rf_machine_find_prefix(const rf_machine *m, rf_ceiling_kind kind, const char *names)
{
    size_t best = SIZE_MAX;
    char buf[128];
    rf__strlcpy(buf, names ? names : "", sizeof buf);
    for (char *p = buf, *e; *p && best == SIZE_MAX; p = e) {
        e = strchr(p, '|');
        if (e)
            *e++ = '\0';
        else
            e = p + strlen(p);
        size_t n = strlen(p);
        for (size_t i = 0; n && i < m->n_ceilings; i++) {
            const rf_ceiling *c = &m->ceilings[i];
            if (c->kind == kind && rf__strncasecmp(c->name, p, n) == 0 &&
                (c->name[n] == '\0' || c->name[n] == '.') &&
                (best == SIZE_MAX || c->value > m->ceilings[best].value))
                best = i;
        }
    }
    return best;
}

rf_status rf_machine_select(rf_ctx *ctx, const rf_machine *m, rf_ceiling_kind kind,
                            const char *name, size_t *index_out)
{
    RF_CHECK(ctx, m && index_out, RF_USAGE, "rf_machine_select: missing argument");
    if (!name || !name[0]) {
        size_t d = kind == RF_CEILING_COMPUTE ? m->default_compute : m->default_bandwidth;
        RF_CHECK(ctx, d < m->n_ceilings, RF_USAGE, "machine '%s' has no %s ceiling", m->name,
                 rf_ceiling_kind_name(kind));
        *index_out = d;
        return RF_OK;
    }
    long best = -1;
    size_t n = strlen(name);
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        if (c->kind != kind) continue;
        int exact = rf__strcasecmp(c->name, name) == 0;
        int prefix = rf__strncasecmp(c->name, name, n) == 0 && c->name[n] == '.';
        if (exact) {
            *index_out = i;
            return RF_OK;
        }
        if (prefix && (best < 0 || c->value > m->ceilings[best].value)) best = (long)i;
    }
    if (best >= 0) {
        *index_out = (size_t)best;
        return RF_OK;
    }
    char list[512];
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < m->n_ceilings; i++)
        if (m->ceilings[i].kind == kind)
            rf__appendf(list, sizeof list, &len, "%s%s", len ? ", " : "", m->ceilings[i].name);
    return rf__error(ctx, RF_USAGE, -1, "machine '%s' has no %s ceiling '%s' (it has: %s)", m->name,
                     rf_ceiling_kind_name(kind), name, len ? list : "none");
}

rf_status rf_machine_roof(rf_ctx *ctx, const rf_machine *m, size_t compute, size_t bandwidth,
                          rf_roof *out)
{
    RF_CHECK(ctx, compute < m->n_ceilings && m->ceilings[compute].kind == RF_CEILING_COMPUTE,
             RF_USAGE, "machine '%s': ceiling %zu is not a compute ceiling", m->name, compute);
    RF_CHECK(ctx, bandwidth < m->n_ceilings && m->ceilings[bandwidth].kind == RF_CEILING_BANDWIDTH,
             RF_USAGE, "machine '%s': ceiling %zu is not a bandwidth ceiling", m->name, bandwidth);
    out->peak_flops_per_s = m->ceilings[compute].value;
    out->bw_bytes_per_s = m->ceilings[bandwidth].value;
    return RF_OK;
}

rf_status rf_machine_binding(rf_ctx *ctx, const rf_machine *m, size_t compute, size_t bandwidth,
                             double ai, size_t *index_out, double *attainable_out)
{
    rf_roof roof = {0, 0};
    RF_TRY(rf_machine_roof(ctx, m, compute, bandwidth, &roof));
    RF_CHECK(ctx, !isnan(ai) && ai >= 0, RF_RANGE, "intensity must be >= 0, got %g", ai);
    double ridge = roof.peak_flops_per_s / roof.bw_bytes_per_s;
    int compute_binds = ai >= ridge;
    *index_out = compute_binds ? compute : bandwidth;
    if (attainable_out) {
        double a = compute_binds ? roof.peak_flops_per_s : ai * roof.bw_bytes_per_s;
        *attainable_out = a < roof.peak_flops_per_s ? a : roof.peak_flops_per_s;
    }
    return RF_OK;
}

void rf_machine_heights(const rf_machine *m, double ai, double *heights)
{
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        heights[i] = c->kind == RF_CEILING_COMPUTE ? c->value : ai * c->value;
    }
}
