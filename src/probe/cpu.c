/* cpu.c — what this CPU can run: features from cpuid and xgetbv (the OS must save the registers),
 * the brand string, and the choice of instruction set (best available, or $RF_ISA / --isa, like
 * BLIS frame/base/bli_arch.c). Also lists the kernels usable at a level. Never measures. */
#define _GNU_SOURCE /* syscall(), for the AMX permission */
#include <stdlib.h>
#include <string.h>

#include "probe/probe_int.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Ask Linux for the AMX tile data (XFEATURE 18); 1 when granted. Idempotent per process. */
static int rf__amx_permit(void)
{
#if defined(__linux__) && defined(SYS_arch_prctl)
    return syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18) == 0;
#else
    return 0;
#endif
}

static uint64_t rf__xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

uint32_t rf__cpu_features(void)
{
    unsigned a, b, c, d, max;
    uint32_t f = 0;
    if (!__get_cpuid(0, &max, &b, &c, &d)) return 0;
    __get_cpuid(1, &a, &b, &c, &d);
    if (d & (1u << 26)) f |= RF__F_SSE2;
    if (c & (1u << 31)) f |= RF__F_HYPERVISOR;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    uint64_t xcr0 = osxsave ? rf__xgetbv0() : 0;
    int ymm_ok = (xcr0 & 0x6) == 0x6, zmm_ok = (xcr0 & 0xe6) == 0xe6;
    if (avx && ymm_ok) f |= RF__F_AVX | (fma ? RF__F_FMA : 0);
    if (max < 7) return f;
    __cpuid_count(7, 0, a, b, c, d);
    if ((b & (1u << 5)) && ymm_ok) f |= RF__F_AVX2;
    if (zmm_ok && (b & (1u << 16))) {
        f |= RF__F_AVX512F;
        if (b & (1u << 30)) f |= RF__F_AVX512BW;
        if (b & (1u << 31)) f |= RF__F_AVX512VL;
        if (c & (1u << 11)) f |= RF__F_AVX512VNNI;
        if (d & (1u << 23)) f |= RF__F_AVX512FP16;
    }
    /* AMX: tile, bf16 and int8 (edx 24, 22, 25), tile state in XCR0 (bits 17, 18), and Linux's
     * permission for this process to use the tile data (arch_prctl ARCH_REQ_XCOMP_PERM). */
    int amx =
        (d & (1u << 24)) && (d & (1u << 22)) && (d & (1u << 25)) && (xcr0 & 0x60000) == 0x60000;
    if (amx && rf__amx_permit()) f |= RF__F_AMX;
    __cpuid_count(7, 1, a, b, c, d);
    if (ymm_ok && (a & (1u << 4))) f |= RF__F_AVXVNNI;
    if ((f & RF__F_AVX512F) && (a & (1u << 5))) f |= RF__F_AVX512BF16;
    return f;
}

void rf__cpu_brand(char *buf, size_t size)
{
    unsigned r[12], max = __get_cpuid_max(0x80000000u, 0);
    char s[49];
    if (max < 0x80000004u) {
        rf__strlcpy(buf, "unknown x86-64 CPU", size);
        return;
    }
    for (unsigned i = 0; i < 3; i++)
        __get_cpuid(0x80000002u + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
    memcpy(s, r, 48);
    s[48] = '\0';
    char *p = s;
    while (*p == ' ') p++;
    rf__strlcpy(buf, p, size);
}
#else
uint32_t rf__cpu_features(void)
{
    return 0;
}
void rf__cpu_brand(char *buf, size_t size)
{
    rf__strlcpy(buf, "unknown CPU", size);
}
#endif

static const char *const rf__isa_names[RF__ISA_COUNT] = {"generic", "sse2", "avx2", "avx512"};
static const uint32_t rf__isa_needs[RF__ISA_COUNT] = {0, RF__F_SSE2, RF__F_AVX2 | RF__F_FMA,
                                                      RF__F_AVX512F};

const char *rf__isa_name(int isa)
{
    return isa >= 0 && isa < RF__ISA_COUNT ? rf__isa_names[isa] : "?";
}

rf_status rf__isa_select(rf_ctx *ctx, const char *name, uint32_t features, int *isa_out)
{
    int best = RF__ISA_GENERIC;
    for (int i = 0; i < RF__ISA_COUNT; i++)
        if ((features & rf__isa_needs[i]) == rf__isa_needs[i]) best = i;
    const char *env = getenv("RF_ISA");
    const char *from = name ? "--isa" : "RF_ISA";
    if (!name) name = env && env[0] ? env : NULL;
    if (!name || rf__strcasecmp(name, "best") == 0) {
        *isa_out = best;
        return RF_OK;
    }
    for (int i = 0; i < RF__ISA_COUNT; i++) {
        if (rf__strcasecmp(name, rf__isa_names[i]) != 0) continue;
        RF_CHECK(ctx, i <= best, RF_USAGE,
                 "%s '%s': this CPU (or its operating system) does not support it; the best it "
                 "runs is '%s'",
                 from, name, rf__isa_names[best]);
        *isa_out = i;
        return RF_OK;
    }
    return rf__error(ctx, RF_USAGE, -1,
                     "%s '%s' is not an instruction set (use avx512, avx2, sse2, generic or best)",
                     from, name);
}

size_t rf__flop_usable(int isa, uint32_t features, const rf__flop_kernel **out, size_t max)
{
    const rf__flop_kernel *tabs[] = {rf__flop_generic, rf__flop_sse2, rf__flop_avx2,
                                     rf__flop_avx512};
    const size_t ns[] = {rf__n_flop_generic, rf__n_flop_sse2, rf__n_flop_avx2, rf__n_flop_avx512};
    size_t k = 0;
    for (int t = RF__ISA_COUNT - 1; t >= 0; t--)
        for (size_t i = 0; i < ns[t]; i++) {
            const rf__flop_kernel *kd = &tabs[t][i];
            if (kd->isa <= isa && (features & kd->features) == kd->features && k < max)
                out[k++] = kd;
        }
    return k;
}

size_t rf__bw_usable(int isa, uint32_t features, const rf__bw_kernel **out, size_t max)
{
    const rf__bw_kernel *tabs[] = {rf__bw_generic, rf__bw_sse2, rf__bw_avx2, rf__bw_avx512};
    const size_t ns[] = {rf__n_bw_generic, rf__n_bw_sse2, rf__n_bw_avx2, rf__n_bw_avx512};
    size_t k = 0;
    for (int t = RF__ISA_COUNT - 1; t >= 0; t--)
        for (size_t i = 0; i < ns[t]; i++) {
            const rf__bw_kernel *kd = &tabs[t][i];
            if (kd->isa <= isa && (features & kd->features) == kd->features && k < max)
                out[k++] = kd;
        }
    return k;
}
