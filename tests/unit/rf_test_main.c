/* rf_test_main.c — runner for the unit tests: `test_x NAME` runs one test, `test_x` runs all,
 * `test_x --list` lists them. Exit 0 when every expectation held, 1 on a failure, 77 when a test
 * was skipped (ctest SKIP_RETURN_CODE). */
#include "rf_test.h"

struct rf_test_entry rf_test_table[RF_TEST_MAX];
int rf_test_count;
int rf_test_failures;
int rf_test_skipped;

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < rf_test_count; i++) printf("%s\n", rf_test_table[i].name);
        return 0;
    }
    int ran = 0;
    for (int i = 0; i < rf_test_count; i++) {
        if (argc > 1 && strcmp(argv[1], rf_test_table[i].name) != 0) continue;
        int before = rf_test_failures, skipped = rf_test_skipped;
        rf_test_table[i].fn();
        fprintf(stderr, "%s %s\n",
                rf_test_failures != before   ? "FAIL"
                : rf_test_skipped != skipped ? "skip"
                                             : "ok  ",
                rf_test_table[i].name);
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "no test named '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    if (rf_test_failures) return 1;
    /* Any skip makes the whole run a skip (ctest's SKIP_RETURN_CODE): never counted as passed. */
    return rf_test_skipped ? 77 : 0;
}
