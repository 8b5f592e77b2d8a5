/* rf_test.h — the tiny unit-test harness: RF_TEST(name) registers a test; the binary runs the one
 * named on its command line (each test is its own ctest entry, own process, own timeout — libuv's
 * runner) or all of them. Expectations print both sides on failure. */
#ifndef RF_TEST_H
#define RF_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*rf_test_fn)(void);
struct rf_test_entry {
    const char *name;
    rf_test_fn fn;
};
#define RF_TEST_MAX 256
extern struct rf_test_entry rf_test_table[RF_TEST_MAX];
extern int rf_test_count;
extern int rf_test_failures;
extern int rf_test_skipped;

#define RF_TEST(name)                                                                              \
    static void rf_test_##name(void);                                                              \
    __attribute__((constructor)) static void rf_test_reg_##name(void)                              \
    {                                                                                              \
        if (rf_test_count < RF_TEST_MAX)                                                           \
            rf_test_table[rf_test_count++] = (struct rf_test_entry){#name, rf_test_##name};        \
    }                                                                                              \
    static void rf_test_##name(void)

#define RF_FAIL_AT(...)                                                                            \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        rf_test_failures++;                                                                        \
    } while (0)

#define RF_EXPECT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) RF_FAIL_AT("expected %s", #cond);                                             \
    } while (0)

#define RF_EXPECT_INT(a, b)                                                                        \
    do {                                                                                           \
        long long rf_a = (long long)(a), rf_b = (long long)(b);                                    \
        if (rf_a != rf_b) RF_FAIL_AT("%s == %s: %lld != %lld", #a, #b, rf_a, rf_b);                \
    } while (0)

/* Exact double equality (NaN never equals; +inf equals +inf). */
#define RF_EXPECT_DBL(a, b)                                                                        \
    do {                                                                                           \
        double rf_a = (a), rf_b = (b);                                                             \
        if (!(rf_a == rf_b)) RF_FAIL_AT("%s == %s: %.17g != %.17g", #a, #b, rf_a, rf_b);           \
    } while (0)

/* Relative tolerance. */
#define RF_EXPECT_NEAR(a, b, rel)                                                                  \
    do {                                                                                           \
        double rf_a = (a), rf_b = (b);                                                             \
        if (!(fabs(rf_a - rf_b) <= (rel)*fabs(rf_b)))                                              \
            RF_FAIL_AT("%s ~= %s (rel %g): %.17g vs %.17g", #a, #b, (double)(rel), rf_a, rf_b);    \
    } while (0)

#define RF_EXPECT_STR(a, b)                                                                        \
    do {                                                                                           \
        const char *rf_a = (a), *rf_b = (b);                                                       \
        if (!rf_a || !rf_b || strcmp(rf_a, rf_b) != 0)                                             \
            RF_FAIL_AT("%s == %s: \"%s\" != \"%s\"", #a, #b, rf_a ? rf_a : "(null)",               \
                       rf_b ? rf_b : "(null)");                                                    \
    } while (0)

#define RF_EXPECT_CONTAINS(hay, needle)                                                            \
    do {                                                                                           \
        const char *rf_h = (hay), *rf_n = (needle);                                                \
        if (!rf_h || !strstr(rf_h, rf_n))                                                          \
            RF_FAIL_AT("%s contains \"%s\": got \"%s\"", #hay, rf_n, rf_h ? rf_h : "(null)");      \
    } while (0)

/* Skip the current test (ctest reports it as skipped: the runner exits 77). */
#define RF_SKIP(...)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "SKIP: ");                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        rf_test_skipped++;                                                                         \
        return;                                                                                    \
    } while (0)

/* Fail (never skip) when the model fixtures are missing: they are part of the repository
 * (tests/data/<format>/), so their absence is a broken checkout, not an unmet prerequisite. */
#define RF_NEED_FIXTURES()                                                                         \
    do {                                                                                           \
        FILE *rf_fx = fopen(RF_SOURCE_DIR "/tests/data/onnx/README.md", "r");                      \
        if (!rf_fx) {                                                                              \
            RF_FAIL_AT("model fixtures not found in " RF_SOURCE_DIR "/tests/data");                \
            return;                                                                                \
        }                                                                                          \
        fclose(rf_fx);                                                                             \
    } while (0)

/* Stop the current test if an expectation before failed (for guards before dereferences). */
#define RF_REQUIRE(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            RF_FAIL_AT("required %s", #cond);                                                      \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* The whole file at `path`, NUL-terminated (malloc'd; NULL when it cannot be read). */
static inline char *rf_test_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (b) b[n] = '\0';
    fclose(f);
    return b;
}

#endif
