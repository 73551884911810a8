#pragma once
// RewriteDataflowReshape (TVM's pass of that name): a kernel call that only copies its one operand's
// bytes in order (what reshape, flatten, expand_dims and squeeze legalize to, when fusion left them
// alone) becomes R.reshape of the operand, which the VM runs as a view of the operand's storage: no
// kernel, no copy. A module with R.call_tir_inplace keeps its copies (a write through one name would
// be seen through the other).
#include "compiler/transform/legalize_ops.h"

namespace tvms::transform {

LegalizedModule rewriteDataflowReshape(LegalizedModule m);

}  // namespace tvms::transform
