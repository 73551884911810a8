#pragma once
// The code generators, one per target kind, behind one interface: LowerToVM's kernels are grouped by
// the kind of their target and each group goes to the backend registered for that kind. "llvm" (and
// its aliases "c", "cpu") is the LLVM plugin; a kind with no backend is a clear build error.
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

// The backend of a target kind, or null when tvms has none for it.
const Backend* backendFor(const std::string& kind);
// Adds (or replaces) the backend of a kind; the registry does not own it.
void registerBackend(const std::string& kind, const Backend* backend);

}  // namespace tvms::codegen
