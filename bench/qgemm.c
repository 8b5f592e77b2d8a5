/* qgemm.c — the prefill products' speed on one core (issue 28): for each weight type, the shapes
 * of a Llama-3.2-1B block (q/o 2048x2048, k/v 512x2048, gate/up 8192x2048, down 2048x8192) by
 * S = 128 activation rows, multiply-adds per second of the prefill product the LLM pass takes
 * (rf__qgemm_run for the packed types, rf__fgemm_run for the float ones) against the anchor
 * measured in the same run: the weights dequantised to F32 and multiplied by OpenBLAS sgemm
 * (rf__qmatmul_run). One thread; thread CPU time, best of 5, so other processes on a shared
 * machine slow it little. Multiply-adds per cycle from a chain of dependent adds (x86-64). Where
 * this CPU runs AMX-INT8 (and $RF_AMX allows it), the tiles (qgemm_amx.c) and the AVX-512 VNNI
 * kernel are timed too, interleaved, on the same data: the `amx/vnni` column is VNNI's time over
 * the tiles' (> 1: AMX is faster; "-" without AMX). Internal API: built with the library's private
 * headers. Usage: build/bench/qgemm [TYPE]  (TYPE: q8_0, q4_k, q6_k, q4_0, f16) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "exec/qgemm.h"

static double cpu_now(void)
{
    return bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
}
static double cycle_s(void)
{
    return bench_cycle_s(CLOCK_THREAD_CPUTIME_ID);
}

static uint32_t rng = 1;
static uint32_t rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

/* Random rows of type id with sane F16 scales. */
static void fill(int id, uint8_t *w, size_t rows, size_t K)
{
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    size_t nb = rows * K / be;
    for (size_t i = 0; i < nb * bb; i++) w[i] = (uint8_t)rnd();
    for (size_t b = 0; b < nb; b++) {
        uint16_t d = rf__f32_to_f16(0.001f + 0.01f * (float)(rnd() % 100) / 100.0f);
        if (id == RF__WEIGHT_F16) {
            uint16_t *h = (uint16_t *)(void *)w;
            h[b] = rf__f32_to_f16(((float)(rnd() % 2001) - 1000.0f) / 20000.0f);
        } else {
            memcpy(w + b * bb + (id == RF__WEIGHT_Q6_K ? 208 : 0), &d, 2);
            if (id == RF__WEIGHT_Q4_K) memcpy(w + b * bb + 2, &d, 2);
        }
    }
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int id;
    } types[] = {{"q8_0", RF__WEIGHT_Q8_0},
                 {"q4_k", RF__WEIGHT_Q4_K},
                 {"q6_k", RF__WEIGHT_Q6_K},
                 {"q4_0", RF__WEIGHT_Q4_0},
                 {"f16", RF__WEIGHT_F16}};
    static const uint64_t shapes[][2] = {{2048, 2048}, {512, 2048}, {8192, 2048}, {2048, 8192}};
    const uint64_t S = 128;
    int isa = rf__kernel_isa_best();
    double cyc = cycle_s();
    rf_ctx *ctx;
    rf__qmatmul *q;
    if (rf_ctx_new(&ctx, NULL) != RF_OK || rf__qmatmul_new(ctx, 1, isa, &q) != RF_OK) return 1;
    int amx = rf__qmatmul_amx(q);
    printf("one thread, %s kernels%s, clock %.2f GHz (dependent adds); S = %llu activation rows\n",
           rf__kernel_isa_name(isa), amx ? " (packed types on AMX-INT8 tiles)" : "",
           cyc > 0 ? 1e-9 / cyc : 0.0, (unsigned long long)S);
    printf("%-5s %11s | %9s %9s | %7s %7s %8s | %9s %9s | %6s\n", "type", "N x K", "GMAC/s",
           "MAC/cyc", "amx", "vnni", "amx/vnni", "anchor", "MAC/cyc", "ratio");
    int ran = 0;
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        if (argc > 1 && strcmp(argv[1], types[t].name) != 0) continue;
        int id = types[t].id;
        for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
            uint64_t N = shapes[sh][0], K = shapes[sh][1];
            uint32_t be, bb;
            rf__weight_block(id, &be, &bb);
            size_t rb = K / be * bb;
            uint8_t *w = malloc(N * rb);
            float *x = malloc(S * K * sizeof *x), *y = malloc(S * N * sizeof *y);
            if (!w || !x || !y) return 1;
            fill(id, w, N, K);
            for (size_t i = 0; i < S * K; i++) x[i] = (float)(rnd() % 2001) / 1000.0f - 1.0f;
            int packed = rf__qgemm_supported(id);
            rf__qgemm_w pw;
            uint8_t *pm = NULL, *am = NULL;
            float *fs = aligned_alloc(64, (rf__fgemm_scratch_bytes(S, K, 1) + 63) / 64 * 64);
            if (!fs) return 1;
            if (packed) {
                size_t pb = rf__qgemm_bytes(id, N, K);
                pm = aligned_alloc(64, (pb + 63) / 64 * 64);
                am = aligned_alloc(64,
                                   (rf__qgemm_act_bytes(S, K, rf__qgemm_blk(id)) + 63) / 64 * 64);
                if (!pm || !am) return 1;
                rf__qgemm_pack(id, w, rb, N, K, pm, &pw);
            }
            /* where AMX runs: the tiles through rf__qgemm_amx_run (also for a type the library
             * keeps on VNNI) and the VNNI kernel, each on the same data, interleaved */
            double best = 1e9, anchor = 1e9, vnni = 1e9, tiles = 1e9;
            int two = packed && amx;
            rf__qgemm_act a;
            if (two) rf__qgemm_quantize(x, S, K, pw.blk, am, &a);
            for (int r = 0; r < 5; r++) {
                double t0 = cpu_now();
                if (packed)
                    rf__qgemm_run(q, isa, &pw, x, S, am, y);
                else
                    rf__fgemm_run(q, isa, id, w, rb, N, K, x, S, fs, y);
                double t1 = cpu_now(), t2 = t1, t3 = t1;
                if (two) {
                    rf__qgemm_amx_run(q, &pw, x, &a, rf__qgemm_quantize_rows_avx512(), y);
                    t2 = cpu_now();
                    rf__qmatmul_set_amx(q, 0);
                    rf__qgemm_run(q, isa, &pw, x, S, am, y);
                    rf__qmatmul_set_amx(q, 1);
                    t3 = cpu_now();
                }
                if (rf__qmatmul_run(ctx, q, id, w, rb, N, K, x, S, y) != RF_OK) return 1;
                double t4 = cpu_now();
                best = t1 - t0 < best ? t1 - t0 : best;
                tiles = t2 - t1 < tiles ? t2 - t1 : tiles;
                vnni = t3 - t2 < vnni ? t3 - t2 : vnni;
                anchor = t4 - t3 < anchor ? t4 - t3 : anchor;
            }
            double mac = (double)S * (double)N * (double)K;
            char ts[16] = "-", vs[16] = "-", vr[16] = "-";
            if (two) {
                snprintf(ts, sizeof ts, "%.1f", mac / tiles / 1e9);
                snprintf(vs, sizeof vs, "%.1f", mac / vnni / 1e9);
                snprintf(vr, sizeof vr, "%.2f", vnni / tiles);
            }
            printf("%-5s %5llux%-5llu | %9.1f %9.1f | %7s %7s %8s | %9.1f %9.1f | %6.2f\n",
                   types[t].name, (unsigned long long)N, (unsigned long long)K, mac / best / 1e9,
                   cyc > 0 ? mac / best * cyc : 0.0, ts, vs, vr, mac / anchor / 1e9,
                   cyc > 0 ? mac / anchor * cyc : 0.0, anchor / best);
            ran++;
            free(w), free(x), free(y), free(pm), free(am), free(fs);
        }
    }
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    if (!ran) {
        fprintf(stderr, "qgemm: unknown type '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    printf("ratio: the anchor's time over ours (> 1: ours is faster); amx, vnni: GMAC/s of the "
           "AMX-INT8 tiles and of the AVX-512 VNNI kernel, amx/vnni the VNNI time over AMX's (ours "
           "is AMX where the library takes it: blocks of 32)\n");
    return 0;
}
