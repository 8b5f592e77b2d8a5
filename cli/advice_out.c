/* advice_out.c — the --advice / --what-if-hw options of profile, llm and analyze. */
#include <string.h>

#include "cli.h"

int cli_advice_parse(const cli_cmd *cmd, const cli_args *a, cli_advice *adv)
{
    memset(adv, 0, sizeof *adv);
    unsigned long long n = 5;
    if (cli_get(a, "advice") && cli_uint(cmd, "advice", cli_get(a, "advice"), 0, 100, &n))
        return EXIT_USAGE;
    adv->off = n == 0;
    adv->o.max = (size_t)n;
    const char *hw = cli_get(a, "what-if-hw");
    if (!hw) return 0;
    if (strlen(hw) >= sizeof adv->buf) return cli_usage_error(cmd, "--what-if-hw: too long");
    memcpy(adv->buf, hw, strlen(hw) + 1);
    for (char *s = adv->buf, *e; s && *s; s = e) {
        e = strchr(s, ',');
        if (e) *e++ = '\0';
        if (adv->o.n_what_if == sizeof adv->names / sizeof *adv->names)
            return cli_usage_error(cmd, "--what-if-hw: at most 16 machines");
        if (*s) adv->names[adv->o.n_what_if++] = s;
    }
    adv->o.what_if = adv->names;
    if (adv->off && adv->o.n_what_if) adv->off = 0, adv->o.machines_only = 1;
    return 0;
}
