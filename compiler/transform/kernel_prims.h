#pragma once
// What LegalizeOps and FuseTIR both do with a kernel they built: print it as the T.prim_func the
// module holds, key it so equal kernels are compiled once, and call it with R.call_tir.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/tir/loop_ir.h"
#include "compiler/transform/legalize_ops.h"

namespace tvms::transform {

// The name of the T.prim_func a kernel is built from: its symbol without kKernelSymbolPrefix.
std::string primNameOf(const tir::Kernel& k);
// Each compute of `m` (LegalizedModule::computes) by its prim_func's name.
std::unordered_map<std::string, size_t> computesByName(const LegalizedModule& m);

// The symbolic dims the kernel reads that no buffer parameter's shape names: passed as tir_vars.
std::vector<std::string> freeDimsOf(const tir::Kernel& k);

// Two kernels with the same key are the same code for the same target, whatever their names (its
// fingerprint without the name: the size of the kernel's distinct nodes, not of its printed text).
std::string kernelKey(const tir::Kernel& k);

// The T.prim_func `name` of the kernel: a buffer parameter per struct info of `params` (inputs, then
// outputs, named as the kernel's buffers), then the free dims as scalars; its body printed from the
// kernel when the module is printed (PrimFunc::lazyBody).
ir::PrimFuncPtr primFuncOf(const std::string& name, const tir::Kernel& k, const std::vector<const ir::StructInfo*>& params,
                           const std::vector<std::string>& freeDims);

// What every call of one kernel names alike: its GlobalVar and its tir_vars, made once per kernel and
// shared by its calls (TVM's module has one GlobalVar per function too). A model's layers call a few
// kernels thousands of times: per call they were a fifth of a 1 MB module's legalized calls.
class KernelRefs {
 public:
  const ir::ExprPtr& globalVar(const std::string& kernel);
  // The ShapeExpr of `tirVars` (null when there are none), the same for every call of `kernel`.
  const ir::ExprPtr& tirVars(const std::string& kernel, const std::vector<std::string>& tirVars);

 private:
  struct Refs {
    ir::ExprPtr globalVar, tirVars;
    std::vector<std::string> tirVarNames;
  };
  std::unordered_map<std::string, Refs> byKernel_;
};

// R.call_tir(cls.kernel, (operands...), out_sinfo=result[, tir_vars=...]); a tuple result lists its
// fields. The kernel and its tir_vars are named through `refs`.
std::shared_ptr<ir::Call> callTir(KernelRefs& refs, const std::string& kernel, std::vector<ir::ExprPtr> operands, const ir::StructInfoPtr& result,
                                  const std::vector<std::string>& tirVars);

// The op builders' kernels no R.call_tir of the module names any more (fused, or made views) go,
// with their prim_funcs; a user's prim_func stays.
void dropUncalledKernels(LegalizedModule& m);

}  // namespace tvms::transform
