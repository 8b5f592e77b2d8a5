/* hwdb_data.c — the datasheet database: one static const table of real devices, every ceiling with
 * the vendor document it comes from, dense (non-sparse) peaks in base units (FLOP/s, OP/s, byte/s),
 * derivations spelled out in the note. Never measures, never guesses; docs/hardware-database.md
 * lists the same figures. Lookup by name and aliases live in hwdb.c. */
#include <string.h>

#include "core/rf_int.h"
#include "roofline/hw.h"

/* One ceiling of a device as stored in the table. */
typedef struct rf__hwc {
    const char *name;
    rf_ceiling_kind kind;
    double value; /* FLOP/s (OP/s for integer precisions) or byte/s */
    const char *source;
    const char *note;
} rf__hwc;

/* One device. */
typedef struct rf__hwdev {
    const char *id;
    const char *description;
    const char *kind; /* "cpu" or "gpu" */
    const char *source;
    const char *default_compute; /* the plain FP32 vector ceiling */
    const rf__hwc *ceilings;
    size_t n_ceilings;
} rf__hwdev;

#define RF__COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* clang-format off */
#define C_(name, value, src, note) {name, RF_CEILING_COMPUTE, value, src, note}
#define DRAM_(value, src, note) {"DRAM", RF_CEILING_BANDWIDTH, value, src, note}
/* clang-format on */

#define SPARSE_NOTE(x) "dense; the datasheet's " x " is with 2:4 sparsity"

/* ---- NVIDIA Volta ---------------------------------------------------------------------------- */

#define SRC_V100 "NVIDIA V100 Tensor Core GPU datasheet (V100 SXM2 / NVLink column)"
static const rf__hwc v100_sxm2_32gb[] = {
    C_("fp64", 7.8e12, SRC_V100, ""),
    C_("fp32", 15.7e12, SRC_V100, ""),
    C_("fp16.tensor", 125e12, SRC_V100, "Tensor Performance: FP16 multiply, FP32 accumulate"),
    DRAM_(900e9, SRC_V100, "HBM2, 32 GB, 4096-bit"),
};

/* ---- NVIDIA Ampere --------------------------------------------------------------------------- */

#define SRC_A100                                                                                   \
    "NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)"
#define A100_COMPUTE                                                                               \
    C_("fp64", 9.7e12, SRC_A100, ""), C_("fp64.tensor", 19.5e12, SRC_A100, ""),                    \
        C_("fp32", 19.5e12, SRC_A100, ""),                                                         \
        C_("tf32.tensor", 156e12, SRC_A100, SPARSE_NOTE("312 TFLOPS")),                            \
        C_("bf16.tensor", 312e12, SRC_A100, SPARSE_NOTE("624 TFLOPS")),                            \
        C_("fp16.tensor", 312e12, SRC_A100, SPARSE_NOTE("624 TFLOPS")),                            \
        C_("int8.tensor", 624e12, SRC_A100, SPARSE_NOTE("1,248 TOPS") "; OP/s")

/* On-chip levels, the same on every A100 (108 SMs, 1410 MHz boost): L2 5120 byte/clk, L1/shared
 * 128 byte/clk per SM. Table 3 of the source lists the full GA100 (128 SMs) at 7,219 GB/s L2
 * and 23,101 GB/s shared memory: the same per-clock figures. */
#define SRC_A100_CACHE                                                                             \
    "Hardware features of different Nvidia GPU architectures, Table 3 (PMC10448217); "             \
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper (108 SMs, 1410 MHz)"
#define A100_CACHES                                                                                \
    {"L1", RF_CEILING_BANDWIDTH, 128.0 * 108 * 1410e6, SRC_A100_CACHE,                             \
     "derived: 128 byte/clk per SM x 108 SMs x 1410 MHz"},                                         \
    {                                                                                              \
        "L2", RF_CEILING_BANDWIDTH, 5120.0 * 1410e6, SRC_A100_CACHE,                               \
            "derived: 5120 byte/clk x 1410 MHz"                                                    \
    }
static const rf__hwc a100_sxm4_40gb[] = {
    A100_COMPUTE,
    A100_CACHES,
    DRAM_(1555e9, SRC_A100, "HBM2, 40 GB (A100 40GB SXM column)"),
};
static const rf__hwc a100_sxm4_80gb[] = {
    A100_COMPUTE,
    A100_CACHES,
    DRAM_(2039e9, SRC_A100, "HBM2e, 80 GB (A100 80GB SXM column)"),
};
static const rf__hwc a100_pcie_40gb[] = {
    A100_COMPUTE,
    A100_CACHES,
    DRAM_(1555e9, SRC_A100, "HBM2, 40 GB (A100 40GB PCIe column)"),
};
static const rf__hwc a100_pcie_80gb[] = {
    A100_COMPUTE,
    A100_CACHES,
    DRAM_(1935e9, SRC_A100, "HBM2e, 80 GB (A100 80GB PCIe column)"),
};

/* ---- NVIDIA Hopper --------------------------------------------------------------------------- */

#define SRC_H100_SXM "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column)"
#define SRC_H100_PCIE "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe column)"
#define SRC_HOPPER_WP                                                                              \
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (Hopper), H100 SXM5 peak dense rates"
#define HOPPER_SPARSE "dense; the datasheet's figures are shown with sparsity, 1/2 lower without"
static const rf__hwc h100_sxm5[] = {
    C_("fp64", 34e12, SRC_H100_SXM, "whitepaper: 33.5 TFLOPS at boost clock"),
    C_("fp64.tensor", 67e12, SRC_H100_SXM, ""),
    C_("fp32", 67e12, SRC_H100_SXM, ""),
    C_("tf32.tensor", 494.7e12, SRC_HOPPER_WP, HOPPER_SPARSE " (989 TFLOPS)"),
    C_("bf16.tensor", 989.4e12, SRC_HOPPER_WP, HOPPER_SPARSE " (1,979 TFLOPS)"),
    C_("fp16.tensor", 989.4e12, SRC_HOPPER_WP, HOPPER_SPARSE " (1,979 TFLOPS)"),
    C_("fp8.tensor", 1979e12, SRC_H100_SXM, HOPPER_SPARSE " (3,958 TFLOPS)"),
    C_("int8.tensor", 1979e12, SRC_H100_SXM, HOPPER_SPARSE " (3,958 TOPS); OP/s"),
    DRAM_(3350e9, SRC_H100_SXM, "HBM3, 80 GB, 5120-bit"),
};
static const rf__hwc h100_pcie[] = {
    C_("fp64", 26e12, SRC_H100_PCIE, ""),
    C_("fp64.tensor", 51e12, SRC_H100_PCIE, ""),
    C_("fp32", 51e12, SRC_H100_PCIE, ""),
    C_("tf32.tensor", 378e12, SRC_H100_PCIE, HOPPER_SPARSE " (756 TFLOPS)"),
    C_("bf16.tensor", 756e12, SRC_H100_PCIE, HOPPER_SPARSE " (1,513 TFLOPS)"),
    C_("fp16.tensor", 756e12, SRC_H100_PCIE, HOPPER_SPARSE " (1,513 TFLOPS)"),
    C_("fp8.tensor", 1513e12, SRC_H100_PCIE, HOPPER_SPARSE " (3,026 TFLOPS)"),
    C_("int8.tensor", 1513e12, SRC_H100_PCIE, HOPPER_SPARSE " (3,026 TOPS); OP/s"),
    DRAM_(2000e9, SRC_H100_PCIE, "HBM2e, 80 GB, 5120-bit"),
};

#define SRC_H200 "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column)"
static const rf__hwc h200_sxm[] = {
    C_("fp64", 34e12, SRC_H200, ""),
    C_("fp64.tensor", 67e12, SRC_H200, ""),
    C_("fp32", 67e12, SRC_H200, ""),
    C_("tf32.tensor", 494.7e12, SRC_H200,
       "dense; datasheet shows 989 TFLOPS with sparsity; dense value from the Hopper whitepaper"),
    C_("bf16.tensor", 989.4e12, SRC_H200,
       "dense; datasheet shows 1,979 TFLOPS with sparsity; dense value from the Hopper whitepaper"),
    C_("fp16.tensor", 989.4e12, SRC_H200,
       "dense; datasheet shows 1,979 TFLOPS with sparsity; dense value from the Hopper whitepaper"),
    C_("fp8.tensor", 1979e12, SRC_H200, "dense; the datasheet's 3,958 TFLOPS is with sparsity"),
    C_("int8.tensor", 1979e12, SRC_H200,
       "dense; the datasheet's 3,958 TOPS is with sparsity; OP/s"),
    DRAM_(4800e9, SRC_H200, "HBM3e, 141 GB"),
};

/* ---- NVIDIA Ada Lovelace and Turing ---------------------------------------------------------- */

#define SRC_L40S "NVIDIA L40S GPU datasheet"
static const rf__hwc l40s[] = {
    C_("fp32", 91.6e12, SRC_L40S, ""),
    C_("tf32.tensor", 183e12, SRC_L40S, SPARSE_NOTE("366 TFLOPS")),
    C_("bf16.tensor", 362.05e12, SRC_L40S, SPARSE_NOTE("733 TFLOPS")),
    C_("fp16.tensor", 362.05e12, SRC_L40S, SPARSE_NOTE("733 TFLOPS")),
    C_("fp8.tensor", 733e12, SRC_L40S, SPARSE_NOTE("1,466 TFLOPS")),
    C_("int8.tensor", 733e12, SRC_L40S, SPARSE_NOTE("1,466 TOPS") "; OP/s"),
    DRAM_(864e9, SRC_L40S, "GDDR6 with ECC, 48 GB, 384-bit"),
};

#define SRC_L4 "NVIDIA L4 Tensor Core GPU datasheet"
#define L4_HALF(x) "dense = 1/2 of the datasheet's " x " (shown with sparsity)"
static const rf__hwc l4[] = {
    C_("fp32", 30.3e12, SRC_L4, ""),
    C_("tf32.tensor", 60e12, SRC_L4, L4_HALF("120 TFLOPS")),
    C_("bf16.tensor", 121e12, SRC_L4, L4_HALF("242 TFLOPS")),
    C_("fp16.tensor", 121e12, SRC_L4, L4_HALF("242 TFLOPS")),
    C_("fp8.tensor", 242.5e12, SRC_L4, L4_HALF("485 TFLOPS")),
    C_("int8.tensor", 242.5e12, SRC_L4, L4_HALF("485 TOPS") "; OP/s"),
    DRAM_(300e9, SRC_L4, "GDDR6, 24 GB"),
};

#define SRC_T4 "NVIDIA T4 Tensor Core GPU datasheet"
static const rf__hwc t4[] = {
    C_("fp32", 8.1e12, SRC_T4, ""),
    C_("fp16.tensor", 65e12, SRC_T4, "Mixed Precision (FP16/FP32)"),
    C_("int8.tensor", 130e12, SRC_T4, "OP/s"),
    DRAM_(300e9, SRC_T4,
          "GDDR6, 16 GB; the T4 datasheet's 300 GB/s (NVIDIA's T4 product page says 320+ GB/s)"),
};

#define SRC_ADA                                                                                    \
    "NVIDIA Ada Lovelace GPU Architecture whitepaper, appendix table (GeForce RTX 4090 column)"
static const rf__hwc rtx_4090[] = {
    C_("fp64", 1.29e12, SRC_ADA, "non-tensor, 1/64 of the FP32 rate"),
    C_("fp32", 82.6e12, SRC_ADA, ""),
    C_("tf32.tensor", 82.6e12, SRC_ADA, "dense"),
    C_("bf16.tensor", 165.2e12, SRC_ADA, "dense, FP32 accumulate"),
    C_("fp16.tensor", 165.2e12, SRC_ADA, "dense, FP32 accumulate (330.3 with FP16 accumulate)"),
    C_("fp16.tensor.acc16", 330.3e12, SRC_ADA, "dense, FP16 accumulate"),
    C_("fp8.tensor", 330.3e12, SRC_ADA, "dense, FP32 accumulate"),
    C_("int8.tensor", 660.6e12, SRC_ADA, "dense; OP/s"),
    DRAM_(1008e9, SRC_ADA, "GDDR6X, 24 GB: 21 Gbps x 384-bit"),
};

/* ---- AMD Instinct ---------------------------------------------------------------------------- */

#define SRC_MI300X                                                                                 \
    "AMD ROCm documentation, AMD Instinct MI300 series microarchitecture, table "                  \
    "'Peak-performance capabilities of the MI300X' "                                               \
    "(rocm.docs.amd.com/en/latest/conceptual/gpu-arch/mi300.html)"
static const rf__hwc mi300x[] = {
    C_("fp64", 81.7e12, SRC_MI300X, "Vector FP64"),
    C_("fp64.tensor", 163.4e12, SRC_MI300X, "Matrix FP64"),
    C_("fp32", 163.4e12, SRC_MI300X, "Vector FP32"),
    C_("fp32.tensor", 163.4e12, SRC_MI300X, "Matrix FP32"),
    C_("tf32.tensor", 653.7e12, SRC_MI300X, "dense"),
    C_("bf16.tensor", 1307.4e12, SRC_MI300X, "Matrix BF16, dense"),
    C_("fp16.tensor", 1307.4e12, SRC_MI300X, "Matrix FP16, dense"),
    C_("fp8.tensor", 2614.9e12, SRC_MI300X, "Matrix FP8, dense"),
    C_("int8.tensor", 2614.9e12, SRC_MI300X, "Matrix INT8, dense; OP/s"),
    DRAM_(5300e9, SRC_MI300X, "HBM3, 192 GB, 8 stacks"),
};

/* ---- Apple ----------------------------------------------------------------------------------- */

#define SRC_M2MAX                                                                                  \
    "Apple Newsroom, 2023-01-17: Apple unveils M2 Pro and M2 Max (up to 38-core GPU, 400GB/s "     \
    "unified memory bandwidth)"
static const rf__hwc m2_max_gpu[] = {
    C_("fp32", 13.6e12, SRC_M2MAX,
       "derived: 38 GPU cores x 128 FP32 ALUs x 2 (FMA) x ~1.398 GHz; Apple publishes neither "
       "the TFLOPS nor the GPU clock"),
    C_("fp16", 13.6e12, SRC_M2MAX,
       "derived: FP16 runs at the FP32 rate on this GPU (no matrix units); same derivation"),
    DRAM_(400e9, SRC_M2MAX, "LPDDR5 unified memory shared by CPU and GPU (Apple figure)"),
};

/* ---- CPUs ------------------------------------------------------------------------------------ */

#define SRC_8480                                                                                   \
    "Intel ARK: Intel Xeon Platinum 8480+ Processor (56 cores, 2.0 GHz base, 3.8 GHz max turbo, "  \
    "8 channels DDR5-4800)"
#define SRC_AMX                                                                                    \
    "Intel: Accelerate AI Workloads with Intel Advanced Matrix Extensions (Intel AMX) solution "   \
    "brief (2048 INT8 or 1024 BF16 operations per cycle per core); core count and clock: Intel "   \
    "ARK"
#define AT_BASE "; at base clock, AVX-512 and AMX clocks under load differ"
static const rf__hwc xeon_8480plus[] = {
    C_("fp64.fma.avx512", 3584e9, SRC_8480,
       "derived: 56 cores x 2.0 GHz x 32 FP64 FLOP/cycle (2x AVX-512 FMA)" AT_BASE),
    C_("fp32.fma.avx512", 7168e9, SRC_8480,
       "derived: 56 cores x 2.0 GHz x 64 FP32 FLOP/cycle (2x AVX-512 FMA)" AT_BASE),
    C_("bf16.amx", 114688e9, SRC_AMX, "derived: 56 cores x 2.0 GHz x 1024 BF16 FLOP/cycle" AT_BASE),
    C_("int8.amx", 229376e9, SRC_AMX,
       "derived: 56 cores x 2.0 GHz x 2048 INT8 OP/cycle" AT_BASE "; OP/s"),
    DRAM_(307.2e9, SRC_8480, "derived: 8 channels x DDR5-4800 x 8 bytes (1 socket)"),
};

#define SRC_9654                                                                                   \
    "AMD EPYC 9654 product page (96 cores, 2.4 GHz base, 3.7 GHz boost, 12 channels DDR5-4800, "   \
    "460.8 GB/s per socket)"
#define ZEN4 " (2x 256-bit FMA; Zen 4 runs AVX-512 on 256-bit datapaths); at base clock"
static const rf__hwc epyc_9654[] = {
    C_("fp64.fma.avx512", 3686.4e9, SRC_9654,
       "derived: 96 cores x 2.4 GHz x 16 FP64 FLOP/cycle" ZEN4),
    C_("fp32.fma.avx512", 7372.8e9, SRC_9654,
       "derived: 96 cores x 2.4 GHz x 32 FP32 FLOP/cycle" ZEN4),
    DRAM_(460.8e9, SRC_9654, "12 channels x DDR5-4800 x 8 bytes (1 socket)"),
};

#define SRC_7950X                                                                                  \
    "AMD Ryzen 9 7950X product page (16 cores, 4.5 GHz base, 5.7 GHz boost, DDR5-5200, 2 "         \
    "channels)"
static const rf__hwc ryzen9_7950x[] = {
    C_("fp64.fma.avx512", 1152e9, SRC_7950X,
       "derived: 16 cores x 4.5 GHz x 16 FP64 FLOP/cycle" ZEN4),
    C_("fp32.fma.avx512", 2304e9, SRC_7950X,
       "derived: 16 cores x 4.5 GHz x 32 FP32 FLOP/cycle" ZEN4),
    DRAM_(83.2e9, SRC_7950X, "derived: 2 channels x DDR5-5200 x 8 bytes"),
};

#define SRC_GRACE                                                                                  \
    "NVIDIA Technical Blog: NVIDIA Grace CPU Superchip Architecture In Depth, Table 1 (144 Arm "   \
    "Neoverse V2 cores with 4x128b SVE2, FP64 peak 7.1 TFLOPS, raw memory BW up to 1 TB/s)"
static const rf__hwc grace_superchip[] = {
    C_("fp64.fma.sve", 7.1e12, SRC_GRACE, "vendor figure for both CPUs (144 cores)"),
    C_("fp32.fma.sve", 14.2e12, SRC_GRACE,
       "derived: 2x the vendor FP64 figure (same 4x128-bit SVE2 FMA pipes, twice the lanes)"),
    DRAM_(1e12, SRC_GRACE, "LPDDR5X with ECC, co-packaged; 'up to 1 TB/s' raw, both CPUs"),
};

/* ---- the table ------------------------------------------------------------------------------- */

/* clang-format off */
#define DEV(id, desc, kind, src, dflt, arr) {id, desc, kind, src, dflt, arr, RF__COUNT(arr)}
/* clang-format on */

static const rf__hwdev rf__hwdb[] = {
    DEV("xeon-8480plus", "Intel Xeon Platinum 8480+ (Sapphire Rapids, 1 socket)", "cpu", SRC_8480,
        "fp32.fma.avx512", xeon_8480plus),
    DEV("epyc-9654", "AMD EPYC 9654 (Genoa, 1 socket)", "cpu", SRC_9654, "fp32.fma.avx512",
        epyc_9654),
    DEV("ryzen9-7950x", "AMD Ryzen 9 7950X (Zen 4 desktop)", "cpu", SRC_7950X, "fp32.fma.avx512",
        ryzen9_7950x),
    DEV("grace-superchip", "NVIDIA Grace CPU Superchip (2x 72 Arm Neoverse V2 cores)", "cpu",
        SRC_GRACE, "fp32.fma.sve", grace_superchip),
    DEV("m2-max-gpu", "Apple M2 Max, 38-core GPU", "gpu", SRC_M2MAX, "fp32", m2_max_gpu),
    DEV("v100-sxm2-32gb", "NVIDIA Tesla V100 SXM2 32GB", "gpu", SRC_V100, "fp32", v100_sxm2_32gb),
    DEV("a100-sxm4-40gb", "NVIDIA A100 SXM4 40GB", "gpu", SRC_A100, "fp32", a100_sxm4_40gb),
    DEV("a100-sxm4-80gb", "NVIDIA A100 SXM4 80GB", "gpu", SRC_A100, "fp32", a100_sxm4_80gb),
    DEV("a100-pcie-40gb", "NVIDIA A100 PCIe 40GB", "gpu", SRC_A100, "fp32", a100_pcie_40gb),
    DEV("a100-pcie-80gb", "NVIDIA A100 PCIe 80GB", "gpu", SRC_A100, "fp32", a100_pcie_80gb),
    DEV("h100-sxm5", "NVIDIA H100 SXM5 80GB", "gpu", SRC_H100_SXM, "fp32", h100_sxm5),
    DEV("h100-pcie", "NVIDIA H100 PCIe 80GB", "gpu", SRC_H100_PCIE, "fp32", h100_pcie),
    DEV("h200-sxm", "NVIDIA H200 SXM 141GB", "gpu", SRC_H200, "fp32", h200_sxm),
    DEV("l40s", "NVIDIA L40S 48GB", "gpu", SRC_L40S, "fp32", l40s),
    DEV("l4", "NVIDIA L4 24GB", "gpu", SRC_L4, "fp32", l4),
    DEV("t4", "NVIDIA T4 16GB", "gpu", SRC_T4, "fp32", t4),
    DEV("rtx-4090", "NVIDIA GeForce RTX 4090 24GB", "gpu", SRC_ADA, "fp32", rtx_4090),
    DEV("mi300x", "AMD Instinct MI300X 192GB", "gpu", SRC_MI300X, "fp32", mi300x),
};

size_t rf_hwdb_count(void)
{
    return RF__COUNT(rf__hwdb);
}

const char *rf_hwdb_id(size_t i)
{
    return i < RF__COUNT(rf__hwdb) ? rf__hwdb[i].id : NULL;
}

/* Copy a table string into a fixed field; a string that does not fit is a bug in the table. */
static rf_status rf__hw_copy(rf_ctx *ctx, char *dst, size_t cap, const char *src, const char *id,
                             const char *what)
{
    RF_CHECK(ctx, strlen(src) < cap, RF_INTERNAL,
             "hardware database entry '%s': %s is longer than %zu bytes", id, what, cap - 1);
    memcpy(dst, src, strlen(src) + 1);
    return RF_OK;
}

static rf_status rf__hw_ceiling(rf_ctx *ctx, rf_machine *m, const rf__hwdev *d, const rf__hwc *h)
{
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    RF_TRY(rf__hw_copy(ctx, c.name, sizeof c.name, h->name, d->id, "a ceiling name"));
    RF_TRY(rf__hw_copy(ctx, c.source, sizeof c.source, h->source, d->id, "a source"));
    RF_TRY(rf__hw_copy(ctx, c.note, sizeof c.note, h->note, d->id, "a note"));
    c.kind = h->kind;
    c.value = h->value;
    c.provenance = RF_PROV_DATASHEET;
    return rf_machine_add(ctx, m, &c);
}

static rf_status rf__hw_fill(rf_ctx *ctx, rf_machine *m, const rf__hwdev *d)
{
    RF_TRY(rf__hw_copy(ctx, m->description, sizeof m->description, d->description, d->id,
                       "the description"));
    RF_TRY(rf__hw_copy(ctx, m->kind, sizeof m->kind, d->kind, d->id, "the kind"));
    RF_TRY(rf__hw_copy(ctx, m->source, sizeof m->source, d->source, d->id, "the source"));
    m->provenance = RF_PROV_DATASHEET;
    for (size_t k = 0; k < d->n_ceilings; k++) RF_TRY(rf__hw_ceiling(ctx, m, d, &d->ceilings[k]));
    long dc = rf_machine_find(m, d->default_compute);
    long db = rf_machine_find(m, "DRAM");
    RF_CHECK(ctx, dc >= 0 && db >= 0, RF_INTERNAL,
             "hardware database entry '%s': default ceiling missing", d->id);
    m->default_compute = (size_t)dc;
    m->default_bandwidth = (size_t)db;
    return RF_OK;
}

/* ---- interconnects: bandwidth per direction and per device ------------------------------------
 * Latencies: the adapters' published port-to-port figure where there is one (ConnectX); NVLink and
 * PCIe publish none, so a round 1 us per message stands in (a peer-to-peer copy's launch and
 * completion); `peaks --mpi` measures the real one and --net-latency sets another. */
#define SRC_PCIE                                                                                   \
    "PCI-SIG PCI Express Base Specification (4.0: 16 GT/s, 5.0: 32 GT/s per lane, 128b/130b)"
#define NOTE_NO_LAT "latency 1 us assumed (no published figure)"
static const rf_interconnect rf__interconnects[] = {
    {"nvlink3", "NVIDIA NVLink 3 (A100 SXM4: 12 links)", 300e9, 1e-6, SRC_A100,
     "NVLink 600 GB/s per GPU in both directions together: 300 GB/s each way; " NOTE_NO_LAT},
    {"nvlink4", "NVIDIA NVLink 4 (H100 SXM5: 18 links)", 450e9, 1e-6,
     "NVIDIA H100 Tensor Core GPU datasheet (NVLink: 900GB/s)",
     "900 GB/s per GPU in both directions together: 450 GB/s each way; " NOTE_NO_LAT},
    {"pcie4-x16", "PCI Express 4.0 x16", 31.5e9, 1e-6, SRC_PCIE,
     "16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s each way (before packet "
     "overhead); " NOTE_NO_LAT},
    {"pcie5-x16", "PCI Express 5.0 x16", 63e9, 1e-6, SRC_PCIE,
     "32 GT/s x 16 lanes x 128/130 / 8 = 63 GB/s each way (before packet overhead); " NOTE_NO_LAT},
    {"ib-hdr", "InfiniBand HDR, one 200 Gb/s port", 25e9, 0.6e-6,
     "NVIDIA ConnectX-6 VPI adapter user manual (200 Gb/s ports, sub-600 ns latency)",
     "200 Gb/s / 8 = 25 GB/s each way; latency 0.6 us (the adapter's figure)"},
    {"ib-ndr", "InfiniBand NDR, one 400 Gb/s port", 50e9, 0.6e-6,
     "NVIDIA ConnectX-7 adapter documentation (400 Gb/s InfiniBand NDR ports)",
     "400 Gb/s / 8 = 50 GB/s each way; latency 0.6 us assumed as ConnectX-6's"},
    {"eth-100g", "Ethernet 100 Gb/s (RoCE), one port", 12.5e9, 0.8e-6,
     "IEEE 802.3bj/802.3bm 100 Gb/s Ethernet; NVIDIA ConnectX-6 EN product brief (sub 0.8 us)",
     "100 Gb/s / 8 = 12.5 GB/s each way; latency 0.8 us (RDMA, the adapter's figure; TCP is ~10x)"},
    {"eth-400g", "Ethernet 400 Gb/s (RoCE), one port", 50e9, 0.8e-6,
     "IEEE 802.3bs 400 Gb/s Ethernet",
     "400 Gb/s / 8 = 50 GB/s each way; latency 0.8 us assumed as ConnectX-6 EN's"},
};

size_t rf_interconnect_count(void)
{
    return RF__COUNT(rf__interconnects);
}

const rf_interconnect *rf_interconnect_at(size_t i)
{
    return i < RF__COUNT(rf__interconnects) ? &rf__interconnects[i] : NULL;
}

rf_status rf_hwdb_get(rf_ctx *ctx, size_t i, rf_machine **out)
{
    RF_CHECK(ctx, out, RF_USAGE, "rf_hwdb_get: missing argument");
    *out = NULL;
    RF_CHECK(ctx, i < RF__COUNT(rf__hwdb), RF_USAGE,
             "hardware database has %zu entries, no entry %zu", RF__COUNT(rf__hwdb), i);
    const rf__hwdev *d = &rf__hwdb[i];
    rf_machine *m = NULL;
    RF_TRY(rf_machine_new(ctx, d->id, &m));
    rf_status st = rf__hw_fill(ctx, m, d);
    if (st != RF_OK) {
        rf_machine_free(m);
        return st;
    }
    *out = m;
    return RF_OK;
}
