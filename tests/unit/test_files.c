/* test_files.c — only regular files are read (issue 11 item 4): a FIFO or a symlink to /dev/zero
 * given as a machine file, a config.json, a model or the probe cache is refused at once with
 * RF_IO naming it (the cache: ignored with a warning, as no cache). A hang fails by the test's
 * timeout. Works in a fresh temporary folder; skips where mkfifo or /dev/zero are missing. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rf_test.h"
#include "roofline/roofline.h"

static char tmpdir[256];

static int make_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rf_test_files.XXXXXX");
    if (!mkdtemp(tmpdir)) return 0;
    return 1;
}

static void rm_tmp(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* path = tmpdir/name made a FIFO (kind 0) or a symlink to /dev/zero (kind 1). 0 when impossible. */
static int make_special(char *path, size_t size, const char *name, int kind)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    unlink(path);
    return kind == 0 ? mkfifo(path, 0600) == 0 : symlink("/dev/zero", path) == 0;
}

RF_TEST(special_files_are_refused_by_every_reader)
{
    if (!make_tmp()) RF_SKIP("no temporary folder");
    static const char *what[2] = {"is a FIFO", "is a character device"};
    for (int kind = 0; kind < 2; kind++) {
        char path[512];
        rf_ctx *ctx;
        RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
        if (!make_special(path, sizeof path, "m.json", kind)) {
            rf_ctx_free(ctx);
            rm_tmp();
            RF_SKIP("cannot make a FIFO or a link to /dev/zero");
        }
        rf_machine *m = NULL;
        RF_EXPECT_INT(rf_machine_read_file(ctx, path, &m), RF_IO);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), path);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), what[kind]);
        RF_EXPECT(m == NULL);

        rf_hfconfig hc;
        RF_EXPECT_INT(rf_hfconfig_read_file(ctx, path, &hc), RF_IO);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), what[kind]);

        rf_graph *g = NULL;
        RF_EXPECT_INT(rf_onnx_read_file(ctx, path, &g), RF_IO);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), what[kind]);
        RF_EXPECT(g == NULL);

        rf_result *r = NULL;
        RF_EXPECT_INT(rf_result_read_file(ctx, path, &r), RF_IO);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), what[kind]);
        rf_ctx_free(ctx);
    }
    rm_tmp();
}

static void capture(void *user, rf_log_level level, const char *msg)
{
    if (level >= RF_LOG_WARN) snprintf(user, 512, "%s", msg);
}

RF_TEST(fifo_cache_file_is_no_cache)
{
    if (!make_tmp()) RF_SKIP("no temporary folder");
    char old[512] = "", warn[512] = "", path[1024], dir[1024];
    const char *o = getenv("XDG_CACHE_HOME");
    if (o) snprintf(old, sizeof old, "%s", o);
    setenv("XDG_CACHE_HOME", tmpdir, 1);
    rf_ctx *ctx;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_ctx_set_log(ctx, capture, warn, RF_LOG_INFO);
    rf_probe_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.quick = 1;
    RF_REQUIRE(rf_probe_cache_path(ctx, &opts, path, sizeof path) == RF_OK);
    snprintf(dir, sizeof dir, "%s/roofline", tmpdir);
    RF_REQUIRE(mkdir(dir, 0700) == 0);
    if (mkfifo(path, 0600) != 0) {
        rf_ctx_free(ctx);
        rm_tmp();
        RF_SKIP("cannot make a FIFO");
    }
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_probe_cache_load(ctx, &opts, &m), RF_OK);
    RF_EXPECT(m == NULL);
    RF_EXPECT_CONTAINS(warn, "ignoring the cache file");
    RF_EXPECT_CONTAINS(warn, "is a FIFO");
    rf_ctx_free(ctx);
    if (old[0])
        setenv("XDG_CACHE_HOME", old, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    rm_tmp();
}
