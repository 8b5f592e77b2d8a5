/* roofline/roofline.h — the whole public API of libroofline. Include this one header.
 * Modules: status and context, the core model, analysis of many operations, machines (datasheet
 * database and files), operations lists, reports. */
#ifndef ROOFLINE_ROOFLINE_H
#define ROOFLINE_ROOFLINE_H

#include "status.h"
#include "ctx.h"
#include "buf.h"
#include "core.h"
#include "analysis.h"
#include "hw.h"
#include "probe.h"
#include "ops.h"
#include "report.h"
#include "demo.h"
#include "graph.h"
#include "model.h"
#include "gguf.h"
#include "safetensors.h"
#include "llm.h"
#include "region.h"
#include "op_cost.h"

#endif
