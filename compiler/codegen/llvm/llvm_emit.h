#pragma once
// Internal to the LLVM backend: loop IR -> an LLVM module (unoptimized).
#include <memory>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "compiler/tir/loop_ir.h"

namespace tvms::codegen::llvm_backend {

std::unique_ptr<llvm::Module> emitModule(const std::vector<tir::Kernel>& kernels, llvm::LLVMContext& ctx);

}  // namespace tvms::codegen::llvm_backend
