/* qint.h — what op_qint.c (planning ConvInteger / MatMulInteger) and qint_run.c (their finishing
 * kernels) share: the meaning of the kernel arguments and the two kernels. Private to src/exec. */
#ifndef RF_EXEC_QINT_H
#define RF_EXEC_QINT_H

#include "exec/exec_int.h"

/* rf__xkernel_args.st of the conv's finishing step: geometry, window, flags (st[0] of the
 * matmul's: M, K, N; its st[2] as the conv's). rf__xkernel_args.n_idx: x is read as u8 nhwc (the
 * quantiser wrote it so), else f32 nchw. */
enum { RF__QG_N, RF__QG_C, RF__QG_H, RF__QG_W, RF__QG_G, RF__QG_CO, RF__QG_OH, RF__QG_OW };
enum { RF__QK_KH, RF__QK_KW, RF__QK_SH, RF__QK_SW, RF__QK_DH, RF__QK_DW, RF__QK_PT, RF__QK_PL };
enum {
    RF__QF_OFF,    /* o: what the weights were shifted by */
    RF__QF_XZ,     /* x's zero point is an input */
    RF__QF_WZ,     /* the weights' zero point is an input (only with the term) */
    RF__QF_WZ_PER, /* one per output channel */
    RF__QF_TERM,   /* (o - zw[c]) * sum (x - zx) is added */
    RF__QF_SPLIT,  /* the scratch's box sums start here (s32 elements) */
    RF__QF_PB,     /* bottom and right pads (for the descriptor) */
    RF__QF_PR
};

/* The element-wise layers after the op's output that its finishing step computes too, as ONNX
 * Runtime's exports follow it: Cast to float, Mul by one value (x_scale * w_scale), Add of one
 * value or one per channel (the bias), Relu. Flags in rf__xkernel_args.op. */
enum { RF__QP_MUL = 1, RF__QP_ADD = 2, RF__QP_ADD_PER = 4, RF__QP_RELU = 8 };

/* The finishing steps. io: A (s32: conv N OH OW CO, matmul M N), then x when the term is needed
 * (conv: f32 nchw or u8 nhwc; matmul: f32 M K), xz when given, wz when given, the Mul's and the
 * Add's operands when fused, the conv's scratch (s32: N G H W channel sums, then N G OH OW box
 * sums) when the term is needed; then Y (f32: nchw / M N). */
void rf__xqint_conv_finish(const rf__xstep *s);
void rf__xqint_mm_finish(const rf__xstep *s);

/* Short names of the kernel arguments, for op_qint.c and qint_run.c (this header is theirs
 * alone). */
#define G_N RF__QG_N
#define G_C RF__QG_C
#define G_H RF__QG_H
#define G_W RF__QG_W
#define G_G RF__QG_G
#define G_CO RF__QG_CO
#define G_OH RF__QG_OH
#define G_OW RF__QG_OW
#define K_KH RF__QK_KH
#define K_KW RF__QK_KW
#define K_SH RF__QK_SH
#define K_SW RF__QK_SW
#define K_DH RF__QK_DH
#define K_DW RF__QK_DW
#define K_PT RF__QK_PT
#define K_PL RF__QK_PL
#define F_OFF RF__QF_OFF
#define F_XZ RF__QF_XZ
#define F_WZ RF__QF_WZ
#define F_WZ_PER RF__QF_WZ_PER
#define F_TERM RF__QF_TERM
#define F_SCRATCH_SPLIT RF__QF_SPLIT
#define F_PB RF__QF_PB
#define F_PR RF__QF_PR
#define P_MUL RF__QP_MUL
#define P_ADD RF__QP_ADD
#define P_ADD_PER RF__QP_ADD_PER
#define P_RELU RF__QP_RELU

#endif
