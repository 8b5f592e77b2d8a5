/* rf_fixtures.h — the model fixtures kept in the repository (tests/data/<format>/, each with its
 * .ref.json and a README saying how it was made) for unit tests: the path of a GGUF fixture,
 * gunzipped once into the build tree when it is stored compressed. Tests that use it call
 * RF_NEED_FIXTURES() first (rf_test.h). */
#ifndef RF_FIXTURES_H
#define RF_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rf_test.h"

#define RF_FIXTURES_DIR RF_SOURCE_DIR "/tests/data/"

static inline const char *rf_test_gguf_fixture(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, RF_FIXTURES_DIR "gguf/%s", name);
    if (access(buf, R_OK) == 0) return buf;
    snprintf(buf, cap, RF_BINARY_DIR "/fixtures/%s", name);
    if (access(buf, R_OK) == 0) return buf;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '" RF_BINARY_DIR "/fixtures' && gunzip -c '" RF_FIXTURES_DIR
             "gguf/%s.gz' > '%s.tmp.%d' && mv '%s.tmp.%d' '%s'",
             name, buf, (int)getpid(), buf, (int)getpid(), buf);
    if (system(cmd) != 0) RF_FAIL_AT("cannot gunzip %s", name);
    return buf;
}

#endif
