/* roofline/roofline.h — the whole public API of libroofline. Include this one header.
 * Modules: status and context, the core model, analysis of many operations, machines (datasheet
 * database, files, the probe), operations lists, model readers, LLMs, reports. Which header holds
 * what, and how the stages connect: docs/design.md ("Header map", "Data flow"). */
#ifndef ROOFLINE_ROOFLINE_H
#define ROOFLINE_ROOFLINE_H

#include "version.h"
#include "status.h"
#include "ctx.h"
#include "buf.h"
#include "core.h"
#include "analysis.h"
#include "hw.h"
#include "cluster.h"
#include "probe.h"
#include "opencl.h"
#include "ops.h"
#include "prof.h"
#include "report.h"
#include "dtype.h"
#include "graph.h"
#include "shape.h"
#include "cost.h"
#include "onnx.h"
#include "model.h"
#include "gguf.h"
#include "safetensors.h"
#include "apr.h"
#include "llm.h"
#include "exec.h"
#include "exec_llm.h"
#include "region.h"
#include "op_cost.h"
#include "advice.h"

#endif
