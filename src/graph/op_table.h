/* op_table.h — the op registry: every op roofline knows, one row each. A row is the op's name and
 * domain, its kind, its shape rule (rf__shape_<rule>, src/graph/shape_*.c), its cost rule
 * (rf__cost_<rule>, src/graph/cost_*.c) with the docs/cost-model.md section it implements, and
 * its executor entry (rf__xop_<entry>, src/exec/op_*.c) or, for `none`, the reason it has none.
 * Readers (kinds), shape inference, costing, the executor's dispatch and `roofline ops` all read
 * this one list; adding an op is adding a row (tests/unit/test_op_registry.c checks that every
 * ONNX standard op has one, that every section exists in docs/cost-model.md and that the rows are
 * sorted by name, which the lookup's binary search needs).
 *
 * Columns: X(ID, name, domain, kind, shape rule, cost rule, section, executor entry, no-kernel
 * reason). Domains: ONNX (the default domain, also "ai.onnx"), MS (com.microsoft: ONNX Runtime's
 * contrib ops; ONNX Runtime also registers standard ops there, so an MS lookup falls back to
 * ONNX), RF (roofline's own ops, made by its builders and the loop inliner). Never installed. */
#ifndef RF_GRAPH_OP_TABLE_H
#define RF_GRAPH_OP_TABLE_H

/* clang-format off */

/* The sections of docs/cost-model.md ("### title") that the rows cite. */
#define RF_COST_SECTIONS(X) \
    X(CONTRIB, "ONNX Runtime contrib ops (com.microsoft)") \
    X(CONTROL, "Control flow: If, Loop, Scan") \
    X(CONV, "Conv") \
    X(CONVT, "ConvTranspose") \
    X(DATA, "Data movement") \
    X(DET, "Det") \
    X(EINSUM, "Einsum") \
    X(GEMM, "Gemm, MatMul, attention matmuls") \
    X(GEN, "Generators and masks") \
    X(LOGIC, "Comparisons and logic") \
    X(LRN, "LRN, MeanVarianceNormalization, LpNormalization") \
    X(NARY, "Elementwise with broadcasting") \
    X(NORM, "Normalisation") \
    X(POOL, "Pooling") \
    X(QUANT, "Quantized") \
    X(REDUCE, "Reductions and global pooling") \
    X(RESIZE, "Resize") \
    X(RNN, "Recurrent: LSTM, GRU, RNN") \
    X(ROPE, "Rotary embedding (LLM builders)") \
    X(SELECT, "Selection, scans, gathers and scatters") \
    X(SOFTMAX, "Softmax") \
    X(SPECTRAL, "Spectral: DFT, STFT") \
    X(UNARY, "Activations and unary functions") \
    X(UNKNOWN, "Unknown") \

#define RF_OP_TABLE(X) \
    X(ABS,                     "Abs",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(ACOS,                    "Acos",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(ACOSH,                   "Acosh",                   ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(ADD,                     "Add",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(AND,                     "And",                     ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(ARG_MAX,                 "ArgMax",                  ONNX,  REDUCE,         argmax,        per_input,  SELECT,   argbest,     NULL) \
    X(ARG_MIN,                 "ArgMin",                  ONNX,  REDUCE,         argmax,        per_input,  SELECT,   argbest,     NULL) \
    X(ASIN,                    "Asin",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(ASINH,                   "Asinh",                   ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(ATAN,                    "Atan",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(ATANH,                   "Atanh",                   ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(MS_ATTENTION,            "Attention",               MS,    ATTENTION,      ms_attention,  ms_attention, CONTRIB,  contrib,    NULL) \
    X(ATTENTION,               "Attention",               ONNX,  ATTENTION,      none,          attention,  GEMM,     contrib,    NULL) \
    X(AVERAGE_POOL,            "AveragePool",             ONNX,  POOL,           pool,          window,     POOL,     pool,       NULL) \
    X(BATCH_NORMALIZATION,     "BatchNormalization",      ONNX,  BATCHNORM,      same,          per_elem,   NORM,     norm,       NULL) \
    X(BERNOULLI,               "Bernoulli",               ONNX,  CONSTANT,       same,          zero,       GEN,      constant,   NULL) \
    X(MS_BIAS_ADD,             "BiasAdd",                 MS,    ELEMENTWISE,    bcast_same,    nary,       CONTRIB,  contrib,    NULL) \
    X(MS_BIAS_GELU,            "BiasGelu",                MS,    ACTIVATION,     same,          contrib,    CONTRIB,  contrib,    NULL) \
    X(MS_BIAS_SPLIT_GELU,      "BiasSplitGelu",           MS,    ACTIVATION,     split_gelu,    contrib,    CONTRIB,  contrib,    NULL) \
    X(BIT_SHIFT,               "BitShift",                ONNX,  ELEMENTWISE,    bcast_same,    nary,       GEN,      bitshift,     NULL) \
    X(BLACKMAN_WINDOW,         "BlackmanWindow",          ONNX,  CONSTANT,       window_fn,     zero,       GEN,      constant,   NULL) \
    X(CAST,                    "Cast",                    ONNX,  DATA_MOVEMENT,  copy,          zero,       DATA,     cunary,     NULL) \
    X(CAST_LIKE,               "CastLike",                ONNX,  DATA_MOVEMENT,  castlike,      zero,       GEN,      cunary,     NULL) \
    X(CEIL,                    "Ceil",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(CELU,                    "Celu",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(CLIP,                    "Clip",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(COMPRESS,                "Compress",                ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(CONCAT,                  "Concat",                  ONNX,  DATA_MOVEMENT,  concat,        zero,       DATA,     concat,     NULL) \
    X(CONCAT_FROM_SEQUENCE,    "ConcatFromSequence",      ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(CONSTANT,                "Constant",                ONNX,  CONSTANT,       none,          zero,       DATA,     constant,   NULL) \
    X(CONSTANT_OF_SHAPE,       "ConstantOfShape",         ONNX,  CONSTANT,       const_of_shape, zero,       DATA,     constant,   NULL) \
    X(CONV,                    "Conv",                    ONNX,  CONV,           conv,          conv,       CONV,     conv,       NULL) \
    X(CONV_INTEGER,            "ConvInteger",             ONNX,  CONV,           conv_int,      conv_int,   QUANT,    qlinear,    NULL) \
    X(CONV_TRANSPOSE,          "ConvTranspose",           ONNX,  CONV_TRANSPOSE, conv,          convt,      CONVT,    deconv,     NULL) \
    X(COS,                     "Cos",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(COSH,                    "Cosh",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(CUM_SUM,                 "CumSum",                  ONNX,  ELEMENTWISE,    same,          cumsum,     SELECT,   cumsum,     NULL) \
    X(DFT,                     "DFT",                     ONNX,  REDUCE,         dft,           dft,        SPECTRAL, none,       "no FFT library among the dependencies") \
    X(DEPTH_TO_SPACE,          "DepthToSpace",            ONNX,  DATA_MOVEMENT,  none,          zero,       DATA,     none,       "no kernel yet") \
    X(DEQUANTIZE_LINEAR,       "DequantizeLinear",        ONNX,  ACTIVATION,     dequantize,    quant,      QUANT,    quant,      NULL) \
    X(DET,                     "Det",                     ONNX,  MATMUL,         det,           det,        DET,      det,        NULL) \
    X(DIV,                     "Div",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(DROPOUT,                 "Dropout",                 ONNX,  METADATA,       copy,          zero,       DATA,     view,       NULL) \
    X(DYNAMIC_QUANTIZE_LINEAR, "DynamicQuantizeLinear",   ONNX,  ACTIVATION,     dynquant,      quant,      QUANT,    quant,      NULL) \
    X(EINSUM,                  "Einsum",                  ONNX,  MATMUL,         einsum,        einsum,     EINSUM,   einsum,     NULL) \
    X(ELU,                     "Elu",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(RF_EMBEDDING,            "Embedding",               RF,    GATHER,         none,          zero,       DATA,     none,       "no kernel yet") \
    X(EQUAL,                   "Equal",                   ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(ERF,                     "Erf",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(EXP,                     "Exp",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(EXPAND,                  "Expand",                  ONNX,  DATA_MOVEMENT,  expand,        zero,       DATA,     data,       NULL) \
    X(EYE_LIKE,                "EyeLike",                 ONNX,  CONSTANT,       same,          zero,       GEN,      constant,   NULL) \
    X(MS_FAST_GELU,            "FastGelu",                MS,    ACTIVATION,     same,          contrib,    CONTRIB,  contrib,    NULL) \
    X(FLATTEN,                 "Flatten",                 ONNX,  METADATA,       flatten,       zero,       DATA,     view,       NULL) \
    X(FLOOR,                   "Floor",                   ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(MS_FUSED_MAT_MUL,        "FusedMatMul",             MS,    MATMUL,         fused_mm,      mm,         CONTRIB,  contrib,    NULL) \
    X(GRU,                     "GRU",                     ONNX,  MATMUL,         rnn,           rnn,        RNN,      rnn,        NULL) \
    X(GATHER,                  "Gather",                  ONNX,  GATHER,         gather,        zero,       DATA,     data,       NULL) \
    X(GATHER_ELEMENTS,         "GatherElements",          ONNX,  GATHER,         gather_el,     zero,       SELECT,   index,      NULL) \
    X(GATHER_ND,               "GatherND",                ONNX,  GATHER,         gather_nd,     zero,       SELECT,   index,      NULL) \
    X(MS_GELU,                 "Gelu",                    MS,    ACTIVATION,     same,          contrib,    CONTRIB,  eltwise,    NULL) \
    X(GELU,                    "Gelu",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(GEMM,                    "Gemm",                    ONNX,  GEMM,           gemm,          gemm,       GEMM,     gemm,       NULL) \
    X(GLOBAL_AVERAGE_POOL,     "GlobalAveragePool",       ONNX,  GLOBAL_POOL,    pool,          per_input,  REDUCE,   pool,       NULL) \
    X(GLOBAL_LP_POOL,          "GlobalLpPool",            ONNX,  GLOBAL_POOL,    pool,          per_input,  REDUCE,   lp,         NULL) \
    X(GLOBAL_MAX_POOL,         "GlobalMaxPool",           ONNX,  GLOBAL_POOL,    pool,          per_input,  REDUCE,   pool,       NULL) \
    X(GREATER,                 "Greater",                 ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(GREATER_OR_EQUAL,        "GreaterOrEqual",          ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(GRID_SAMPLE,             "GridSample",              ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(GROUP_NORMALIZATION,     "GroupNormalization",      ONNX,  LAYERNORM,      same,          per_elem,   NORM,     none,       "no kernel yet") \
    X(MS_GROUP_QUERY_ATTENTION, "GroupQueryAttention",     MS,    ATTENTION,      mha,           mha,        CONTRIB,  contrib,    NULL) \
    X(HAMMING_WINDOW,          "HammingWindow",           ONNX,  CONSTANT,       window_fn,     zero,       GEN,      constant,   NULL) \
    X(HANN_WINDOW,             "HannWindow",              ONNX,  CONSTANT,       window_fn,     zero,       GEN,      constant,   NULL) \
    X(HARD_SIGMOID,            "HardSigmoid",             ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(HARD_SWISH,              "HardSwish",               ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(HARDMAX,                 "Hardmax",                 ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    hardmax_trilu,     NULL) \
    X(IDENTITY,                "Identity",                ONNX,  METADATA,       copy,          zero,       DATA,     view,       NULL) \
    X(IF,                      "If",                      ONNX,  UNKNOWN,        none,          unknown,    CONTROL,  none,       "a subgraph the reader could not inline") \
    X(INSTANCE_NORMALIZATION,  "InstanceNormalization",   ONNX,  LAYERNORM,      same,          per_elem,   NORM,     none,       "no kernel yet") \
    X(IS_INF,                  "IsInf",                   ONNX,  ACTIVATION,     bool1,         per_elem,   LOGIC,    none,       "no kernel yet") \
    X(IS_NA_N,                 "IsNaN",                   ONNX,  ACTIVATION,     bool1,         per_elem,   LOGIC,    none,       "no kernel yet") \
    X(RF_KVSTORE,              "KVStore",                 RF,    DATA_MOVEMENT,  none,          zero,       DATA,     llm,        NULL) \
    X(LRN,                     "LRN",                     ONNX,  LAYERNORM,      same,          norm_ext,   LRN,      lrn,        NULL) \
    X(LSTM,                    "LSTM",                    ONNX,  MATMUL,         rnn,           rnn,        RNN,      rnn,        NULL) \
    X(LAYER_NORMALIZATION,     "LayerNormalization",      ONNX,  LAYERNORM,      same,          per_elem,   NORM,     norm,       NULL) \
    X(LEAKY_RELU,              "LeakyRelu",               ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(LESS,                    "Less",                    ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(LESS_OR_EQUAL,           "LessOrEqual",             ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(RF_LINEAR,               "Linear",                  RF,    GEMM,           gemm,          gemm,       GEMM,     none,       "no kernel yet") \
    X(LOG,                     "Log",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(LOG_SOFTMAX,             "LogSoftmax",              ONNX,  SOFTMAX,        same,          per_elem,   SOFTMAX,  softmax,    NULL) \
    X(LOOP,                    "Loop",                    ONNX,  UNKNOWN,        none,          unknown,    CONTROL,  none,       "a subgraph the reader could not inline") \
    X(LP_NORMALIZATION,        "LpNormalization",         ONNX,  LAYERNORM,      same,          norm_ext,   LRN,      lp,         NULL) \
    X(LP_POOL,                 "LpPool",                  ONNX,  POOL,           pool,          window,     POOL,     none,       "no kernel yet") \
    X(MAT_MUL,                 "MatMul",                  ONNX,  MATMUL,         gemm,          matmul,     GEMM,     matmul_any, NULL) \
    X(MAT_MUL_INTEGER,         "MatMulInteger",           ONNX,  MATMUL,         mm_int,        mm,         QUANT,    qlinear,    NULL) \
    X(MS_MAT_MUL_NBITS,        "MatMulNBits",             MS,    MATMUL,         mm_nbits,      mm,         CONTRIB,  contrib,    NULL) \
    X(MAX,                     "Max",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(MAX_POOL,                "MaxPool",                 ONNX,  POOL,           pool,          window,     POOL,     pool,       NULL) \
    X(MAX_ROI_POOL,            "MaxRoiPool",              ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(MAX_UNPOOL,              "MaxUnpool",               ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(MEAN,                    "Mean",                    ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     none,       "no kernel yet") \
    X(MEAN_VARIANCE_NORMALIZATION, "MeanVarianceNormalization", ONNX,  LAYERNORM,      same,          norm_ext,   LRN,      none,       "no kernel yet") \
    X(MEL_WEIGHT_MATRIX,       "MelWeightMatrix",         ONNX,  CONSTANT,       mel,           zero,       SPECTRAL, constant,   NULL) \
    X(MIN,                     "Min",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(MISH,                    "Mish",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(MOD,                     "Mod",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(MUL,                     "Mul",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(MS_MULTI_HEAD_ATTENTION, "MultiHeadAttention",      MS,    ATTENTION,      mha,           mha,        CONTRIB,  contrib,    NULL) \
    X(MULTI_HEAD_ATTENTION,    "MultiHeadAttention",      ONNX,  ATTENTION,      none,          attention,  GEMM,     contrib,    NULL) \
    X(MULTINOMIAL,             "Multinomial",             ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(NEG,                     "Neg",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(NEGATIVE_LOG_LIKELIHOOD_LOSS, "NegativeLogLikelihoodLoss", ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(NON_MAX_SUPPRESSION,     "NonMaxSuppression",       ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(NON_ZERO,                "NonZero",                 ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(NOT,                     "Not",                     ONNX,  ACTIVATION,     bool1,         per_elem,   LOGIC,    cunary,     NULL) \
    X(ONE_HOT,                 "OneHot",                  ONNX,  DATA_MOVEMENT,  onehot,        zero,       GEN,      onehot,     NULL) \
    X(OPTIONAL,                "Optional",                ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(OPTIONAL_GET_ELEMENT,    "OptionalGetElement",      ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(OPTIONAL_HAS_ELEMENT,    "OptionalHasElement",      ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(OR,                      "Or",                      ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(PRELU,                   "PRelu",                   ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    binary,     NULL) \
    X(PAD,                     "Pad",                     ONNX,  DATA_MOVEMENT,  pad,           zero,       DATA,     data,       NULL) \
    X(POW,                     "Pow",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     pow,        NULL) \
    X(QLINEAR_CONV,            "QLinearConv",             ONNX,  CONV,           qlinear_conv,  conv_int,   QUANT,    qlinear,    NULL) \
    X(QLINEAR_MAT_MUL,         "QLinearMatMul",           ONNX,  MATMUL,         qlinear_mm,    mm,         QUANT,    qlinear,    NULL) \
    X(QUANTIZE_LINEAR,         "QuantizeLinear",          ONNX,  ACTIVATION,     quantize,      quant,      QUANT,    quant,      NULL) \
    X(MS_QUICK_GELU,           "QuickGelu",               MS,    ACTIVATION,     same,          contrib,    CONTRIB,  contrib,    NULL) \
    X(RF_RMSNORM,              "RMSNorm",                 RF,    RMSNORM,        same,          per_elem,   NORM,     llm,        NULL) \
    X(RMSNORMALIZATION,        "RMSNormalization",        ONNX,  RMSNORM,        same,          per_elem,   NORM,     none,       "no kernel yet") \
    X(RNN,                     "RNN",                     ONNX,  MATMUL,         rnn,           rnn,        RNN,      none,       "no kernel yet") \
    X(RANDOM_NORMAL,           "RandomNormal",            ONNX,  CONSTANT,       random,        zero,       GEN,      constant,   NULL) \
    X(RANDOM_NORMAL_LIKE,      "RandomNormalLike",        ONNX,  CONSTANT,       same,          zero,       GEN,      constant,   NULL) \
    X(RANDOM_UNIFORM,          "RandomUniform",           ONNX,  CONSTANT,       random,        zero,       GEN,      constant,   NULL) \
    X(RANDOM_UNIFORM_LIKE,     "RandomUniformLike",       ONNX,  CONSTANT,       same,          zero,       GEN,      constant,   NULL) \
    X(RANGE,                   "Range",                   ONNX,  CONSTANT,       range,         zero,       SELECT,   constant,   NULL) \
    X(RECIPROCAL,              "Reciprocal",              ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(REDUCE_L1,               "ReduceL1",                ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_L2,               "ReduceL2",                ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_LOG_SUM,          "ReduceLogSum",            ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_LOG_SUM_EXP,      "ReduceLogSumExp",         ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   none,       "no kernel yet") \
    X(REDUCE_MAX,              "ReduceMax",               ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_MEAN,             "ReduceMean",              ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_MIN,              "ReduceMin",               ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_PROD,             "ReduceProd",              ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_SUM,              "ReduceSum",               ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(REDUCE_SUM_SQUARE,       "ReduceSumSquare",         ONNX,  REDUCE,         reduce,        per_input,  REDUCE,   reduce,     NULL) \
    X(RELU,                    "Relu",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(RESHAPE,                 "Reshape",                 ONNX,  METADATA,       reshape,       zero,       DATA,     view,       NULL) \
    X(RESIZE,                  "Resize",                  ONNX,  RESIZE,         resize,        resize,     RESIZE,   resize,     NULL) \
    X(REVERSE_SEQUENCE,        "ReverseSequence",         ONNX,  DATA_MOVEMENT,  same,          zero,       GEN,      revseq,     NULL) \
    X(ROI_ALIGN,               "RoiAlign",                ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(MS_ROTARY_EMBEDDING,     "RotaryEmbedding",         MS,    ROPE,           same,          per_elem,   CONTRIB,  contrib,    NULL) \
    X(ROTARY_EMBEDDING,        "RotaryEmbedding",         ONNX,  ROPE,           same,          per_elem,   ROPE,     llm,        NULL) \
    X(ROUND,                   "Round",                   ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(STFT,                    "STFT",                    ONNX,  REDUCE,         stft,          stft,       SPECTRAL, none,       "no FFT library among the dependencies") \
    X(SCAN,                    "Scan",                    ONNX,  UNKNOWN,        none,          unknown,    CONTROL,  none,       "a subgraph the reader could not inline") \
    X(SCATTER,                 "Scatter",                 ONNX,  DATA_MOVEMENT,  same,          scatter,    GEN,      index,      NULL) \
    X(SCATTER_ELEMENTS,        "ScatterElements",         ONNX,  DATA_MOVEMENT,  same,          scatter,    SELECT,   index,      NULL) \
    X(SCATTER_ND,              "ScatterND",               ONNX,  DATA_MOVEMENT,  same,          scatter,    SELECT,   index,      NULL) \
    X(SELU,                    "Selu",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    none,       "no kernel yet") \
    X(SEQUENCE_AT,             "SequenceAt",              ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SEQUENCE_CONSTRUCT,      "SequenceConstruct",       ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SEQUENCE_EMPTY,          "SequenceEmpty",           ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SEQUENCE_ERASE,          "SequenceErase",           ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SEQUENCE_INSERT,         "SequenceInsert",          ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SEQUENCE_LENGTH,         "SequenceLength",          ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SEQUENCE_MAP,            "SequenceMap",             ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SHAPE,                   "Shape",                   ONNX,  METADATA,       shape_of,      zero,       DATA,     data,       NULL) \
    X(SHRINK,                  "Shrink",                  ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(RF_SI_LU,                "SiLU",                    RF,    ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(SIGMOID,                 "Sigmoid",                 ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(SIGN,                    "Sign",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(SILU,                    "Silu",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(SIMPLIFIED_LAYER_NORMALIZATION, "SimplifiedLayerNormalization", ONNX,  RMSNORM,        same,          per_elem,   NORM,     none,       "no kernel yet") \
    X(SIN,                     "Sin",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(SINH,                    "Sinh",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(SIZE,                    "Size",                    ONNX,  METADATA,       size,          zero,       DATA,     data,       NULL) \
    X(MS_SKIP_LAYER_NORMALIZATION, "SkipLayerNormalization",  MS,    LAYERNORM,      skipnorm,      contrib,    CONTRIB,  contrib,    NULL) \
    X(MS_SKIP_SIMPLIFIED_LAYER_NORMALIZATION, "SkipSimplifiedLayerNormalization", MS,    RMSNORM,        skipnorm,      contrib,    CONTRIB,  contrib,    NULL) \
    X(SLICE,                   "Slice",                   ONNX,  DATA_MOVEMENT,  slice,         zero,       DATA,     data,       NULL) \
    X(SOFTMAX,                 "Softmax",                 ONNX,  SOFTMAX,        same,          per_elem,   SOFTMAX,  softmax,    NULL) \
    X(SOFTMAX_CROSS_ENTROPY_LOSS, "SoftmaxCrossEntropyLoss", ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(SOFTPLUS,                "Softplus",                ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(SOFTSIGN,                "Softsign",                ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(SPACE_TO_DEPTH,          "SpaceToDepth",            ONNX,  DATA_MOVEMENT,  none,          zero,       DATA,     none,       "no kernel yet") \
    X(SPLIT,                   "Split",                   ONNX,  DATA_MOVEMENT,  split,         zero,       DATA,     data,       NULL) \
    X(SPLIT_TO_SEQUENCE,       "SplitToSequence",         ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "sequences and optionals are not tensors") \
    X(SQRT,                    "Sqrt",                    ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     eltwise,    NULL) \
    X(SQUEEZE,                 "Squeeze",                 ONNX,  METADATA,       squeeze,       zero,       DATA,     view,       NULL) \
    X(STRING_NORMALIZER,       "StringNormalizer",        ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(SUB,                     "Sub",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(SUM,                     "Sum",                     ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     none,       "no kernel yet") \
    X(SWISH,                   "Swish",                   ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(TAN,                     "Tan",                     ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(TANH,                    "Tanh",                    ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    eltwise,    NULL) \
    X(TF_IDF_VECTORIZER,       "TfIdfVectorizer",         ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(THRESHOLDED_RELU,        "ThresholdedRelu",         ONNX,  ACTIVATION,     same,          per_elem,   UNARY,    cunary,     NULL) \
    X(TILE,                    "Tile",                    ONNX,  DATA_MOVEMENT,  none,          zero,       DATA,     data,       NULL) \
    X(TOP_K,                   "TopK",                    ONNX,  REDUCE,         topk,          topk,       SELECT,   topk,       NULL) \
    X(TRANSPOSE,               "Transpose",               ONNX,  DATA_MOVEMENT,  transpose,     zero,       DATA,     transpose,  NULL) \
    X(TRILU,                   "Trilu",                   ONNX,  DATA_MOVEMENT,  same,          zero,       GEN,      hardmax_trilu,     NULL) \
    X(UNIQUE,                  "Unique",                  ONNX,  UNKNOWN,        none,          unknown,    UNKNOWN,  none,       "no cost rule and no kernel") \
    X(UNSQUEEZE,               "Unsqueeze",               ONNX,  METADATA,       unsqueeze,     zero,       DATA,     view,       NULL) \
    X(UPSAMPLE,                "Upsample",                ONNX,  RESIZE,         resize,        resize,     RESIZE,   resize,     NULL) \
    X(RF_VIEW,                 "View",                    RF,    METADATA,       none,          zero,       DATA,     view,       NULL) \
    X(WHERE,                   "Where",                   ONNX,  ELEMENTWISE,    broadcast,     nary,       NARY,     binary,     NULL) \
    X(XOR,                     "Xor",                     ONNX,  ELEMENTWISE,    compare,       nary,       LOGIC,    binary,     NULL) \
    X(RF_IF_SELECT,            "rf_IfSelect",             RF,    METADATA,       if_select,     zero,       CONTROL,  if_select,  NULL) \
    X(RF_SCAN_SLICE,           "rf_ScanSlice",            RF,    METADATA,       scan_slice,    zero,       CONTROL,  none,       "a view the loop inliner adds") \
    X(RF_STACK_TRIPS,          "rf_StackTrips",           RF,    METADATA,       stack_trips,   zero,       CONTROL,  none,       "a view the loop inliner adds")

/* clang-format on */

#endif
