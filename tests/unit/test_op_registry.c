/* test_op_registry.c — the op registry (src/graph/op_table.h): every ONNX standard op has a row,
 * every row's cost rule cites a section that docs/cost-model.md has, the rows are sorted for the
 * lookup, each row has an executor entry or the reason it has none, and lookups by domain. */
#include "rf_test.h"

#include "graph/graph_int.h"

RF_TEST(registry_sorted_and_whole)
{
    RF_EXPECT_INT(rf_op_registry_count(), RF_OPID_COUNT);
    for (int i = 0; i < RF_OPID_COUNT; i++) {
        const rf__op_row *r = rf__op_row_at((rf__op_id)i);
        RF_EXPECT_INT(r->id, i);
        if (i) {
            const rf__op_row *q = rf__op_row_at((rf__op_id)(i - 1));
            int c = strcmp(q->name, r->name);
            if (c > 0 || (c == 0 && q->domain == r->domain))
                RF_FAIL_AT("op_table.h: row '%s' after '%s': keep the rows sorted by name, one "
                           "per domain",
                           r->name, q->name);
        }
        /* an executor entry, or the reason there is none: exactly one */
        int none = strcmp(r->executor, "none") == 0;
        if (none != (r->no_kernel != NULL))
            RF_FAIL_AT("op_table.h: row '%s': executor '%s' with reason '%s'", r->name, r->executor,
                       r->no_kernel ? r->no_kernel : "(none)");
        RF_EXPECT(r->shape != NULL && r->cost != NULL);
        rf_op_info info;
        RF_EXPECT(rf_op_registry_at((size_t)i, &info));
        RF_EXPECT_STR(info.name, r->name);
    }
    rf_op_info info;
    RF_EXPECT(!rf_op_registry_at(RF_OPID_COUNT, &info));
}

/* Every name in tests/data/onnx_standard_ops.txt has a row of the default domain. */
RF_TEST(registry_has_every_onnx_standard_op)
{
    char *text = rf_test_slurp(RF_SOURCE_DIR "/tests/data/onnx_standard_ops.txt");
    RF_EXPECT(text != NULL);
    if (!text) return;
    int names = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (line[0] == '#' || !line[0]) continue;
        names++;
        const rf__op_row *r = rf__op_find(line, "");
        if (!r || r->domain == RF__DOM_MS)
            RF_FAIL_AT("ONNX standard op '%s' has no row in src/graph/op_table.h", line);
    }
    RF_EXPECT(names >= 178); /* onnx 1.12's default domain */
    free(text);
}

/* Every row's section is a "### " heading of docs/cost-model.md, and every section is used. */
RF_TEST(registry_sections_are_in_the_cost_model)
{
    char *doc = rf_test_slurp(RF_SOURCE_DIR "/docs/cost-model.md");
    RF_EXPECT(doc != NULL);
    if (!doc) return;
    for (int s = 0; s < RF__SEC_COUNT; s++) {
        char want[160];
        snprintf(want, sizeof want, "\n### %s\n", rf__cost_section_title((rf__cost_section)s));
        if (!strstr(doc, want))
            RF_FAIL_AT("docs/cost-model.md has no section '### %s'",
                       rf__cost_section_title((rf__cost_section)s));
        int used = 0;
        for (int i = 0; i < RF_OPID_COUNT; i++)
            used |= (int)rf__op_row_at((rf__op_id)i)->section == s;
        if (!used) RF_FAIL_AT("section '%s' cited by no row", rf__cost_section_title(s));
    }
    free(doc);
}

RF_TEST(registry_lookup_by_domain)
{
    RF_EXPECT_INT(rf_op_kind_from_type("Conv"), RF_OP_CONV);
    RF_EXPECT_INT(rf_op_kind_in_domain("Conv", "ai.onnx"), RF_OP_CONV);
    /* ONNX Runtime registers standard ops in its domain too */
    RF_EXPECT_INT(rf_op_kind_in_domain("LayerNormalization", "com.microsoft"), RF_OP_LAYERNORM);
    RF_EXPECT_INT(rf_op_kind_in_domain("FusedMatMul", "com.microsoft"), RF_OP_MATMUL);
    RF_EXPECT_INT(rf_op_kind_from_type("FusedMatMul"), RF_OP_UNKNOWN); /* contrib only */
    RF_EXPECT_INT(rf_op_kind_in_domain("Relu", "com.example"), RF_OP_UNKNOWN);
    RF_EXPECT_INT(rf_op_kind_from_type("NoSuchOp"), RF_OP_UNKNOWN);
    RF_EXPECT_INT(rf_op_kind_from_type(NULL), RF_OP_UNKNOWN);
    /* one name, two domains: two rows */
    const rf__op_row *std = rf__op_find("Gelu", ""), *ms = rf__op_find("Gelu", "com.microsoft");
    RF_EXPECT(std && ms && std != ms && ms->domain == RF__DOM_MS);
    /* the builders' own ops */
    RF_EXPECT_INT(rf_op_kind_from_type("RMSNorm"), RF_OP_RMSNORM);
    RF_EXPECT(rf__op_find("KVStore", "") && rf__op_find("KVStore", "")->domain == RF__DOM_RF);
}
