#pragma once
// The build pipeline shared by `tvms build`, `tvms run` and the language server's tvms/viewIR: the
// passes of compiler/driver/pass_list.h in order ([UpdateVDevice] -> Normalize -> RealizeVDevice ->
// OffloadLibraries -> LegalizeOps -> [FoldVDeviceScopeChange] -> LowerToVM, those in brackets only
// when asked for), printable after each, then the kernels of each target kind through the code
// generator its kind names (compiler/codegen/backend.h): loaded into this process, and/or as one
// module blob per kind for a .tvmx artifact.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "runtime/executable.h"

namespace tvms::driver {

// The pass names in pipeline order (compiler/driver/pass_list.h).
const std::vector<std::string>& passNames();

struct BuildOptions {
  std::map<std::string, std::string> remap;  // "cuda:0" -> "cpu": its kernels are built for the CPU
  // Called after each pass with its name and the module printed as TVMScript (LowerToVM: the
  // bytecode listing as comments).
  std::function<void(const std::string& pass, const std::string& text)> afterPass;
  // The passes afterPass is called for (null: every one). Printing a large module after every pass
  // was most of `tvms build`'s time when nothing was printed.
  std::function<bool(const std::string& pass)> wantsAfterPass;
  bool compileKernels = true;   // load the kernels into this process (exe.libraries, by kind)
  bool offload = true;           // OffloadLibraries: matmul / conv2d on cuda vdevices to cuBLAS / cuDNN
  bool buildModules = false;    // also build one module blob per kind into exe.modules (for .tvmx)
  std::string emit;             // "llvm" or "asm": BuildResult::kernelText gets the kernels' optimized IR or assembly
  // UpdateVDevice(vdevice, index), TVM's pass, applied first in order when given (`--update-vdevice`).
  std::vector<std::pair<size_t, std::shared_ptr<const ir::VDevice>>> updateVDevice;
  bool fuse = true;              // FuseOps + FuseTIR (`--no-fuse`: one kernel per op)
  bool foldVDeviceScopeChange = false;  // TVM's FoldVDeviceScopeChange after LegalizeOps (its texture pipeline's)
  // `--passes`: exactly these passes, in this order, then stop (no code generation); empty: the pipeline.
  std::vector<std::string> passes;
  // Stop after this pass (no later pass, no code generation): `--print-after` without -o, tvms/viewIR.
  std::string stopAfter;
  // CUDA graphs for the executable's calls (`--cuda-graph`, TVM's relax.backend.use_cuda_graph).
  runtime::GraphMode graphs = runtime::GraphMode::Auto;
};

struct BuildResult {
  std::optional<runtime::Executable> exe;  // unset on errors, and when the build stopped before code generation
  bool stopped = false;                    // it did (BuildOptions::passes / stopAfter), without errors
  std::vector<std::string> errors;
  int64_t storageAllocations = 0, storageReuses = 0;
  std::string kernelText;  // BuildOptions::emit
  // Code generation alone (the backends' build and load), and how many kernel modules (one per
  // target kind) came from the kernel cache or were compiled.
  double codegenMs = 0;
  int kernelModulesCached = 0, kernelModulesCompiled = 0;
};

// Never throws for a bad module: problems come back in `errors`.
BuildResult build(const ir::IRModule& m, const BuildOptions& options);
// The same, taking the module over: its functions go as the passes replace them (the one-shot
// `tvms build` of a large file holds no copy of its input for the whole build).
BuildResult build(ir::IRModule&& m, const BuildOptions& options);

// The module after `pass` as text (tvms/viewIR), or an error message; the build stops after the pass.
std::string printAfter(const ir::IRModule& m, const std::string& pass, std::string* error);

}  // namespace tvms::driver
