#pragma once
// The code generators behind one interface: LowerToVM's kernels are grouped by the kind of their
// target and each group goes to the code generator its kind names in the target-kind table
// (runtime/target_kind.h: the CPU kinds name the LLVM plugin, cuda names CUDA C + NVRTC); a kind
// with none is a clear build error.
#include <memory>
#include <string>
#include <vector>

#include "compiler/tir/loop_ir.h"
#include "runtime/kernel_library.h"

namespace tvms::codegen {

class Backend {
 public:
  virtual ~Backend() = default;
  // The kernels compiled for `target` as the module blob a .tvmx holds for this kind and the
  // runtime's loader of the same kind reads back (llvm: a shared library).
  virtual std::vector<char> build(const std::vector<tir::Kernel>& kernels, const tir::Target& target) const = 0;
  // The kernels compiled into this process, ready to run (llvm: ORC LLJIT).
  virtual std::unique_ptr<runtime::KernelLibrary> load(const std::vector<tir::Kernel>& kernels, const tir::Target& target) const = 0;
  // Text of the generated code for `tvms build --emit=WHAT` ("llvm": optimized IR, "asm"; cuda:
  // "cuda" source, "ptx"); throws std::invalid_argument when this backend does not print `what`.
  virtual std::string emit(const std::vector<tir::Kernel>& kernels, const tir::Target& target, const std::string& what) const = 0;
};

// The backend of the target kind `kind` spells (the code generator its table entry names), or null
// when tvms has none for it.
const Backend* backendFor(const std::string& kind);
// Adds (or replaces) a code generator under a name a target kind's `codegen` may give; the registry
// does not own it.
void registerBackend(const std::string& codegen, const Backend* backend);

}  // namespace tvms::codegen
