// O3 for the host CPU, then ORC LLJIT (in-process) or an object file + `cc -shared` (artifacts).
#include "compiler/codegen/llvm/llvm_backend.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include "compiler/codegen/llvm/llvm_emit.h"

namespace tvms::codegen::llvm_backend {

using tir::Kernel;
using tir::Target;

namespace {

void initializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

std::string errorText(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return os.str();
}

// The host's triple, CPU and features, narrowed to the target's vector width: a 256-bit target on an
// AVX-512 host is built without AVX-512 (as an AVX2-only machine would run it), a 128-bit one without AVX.
llvm::orc::JITTargetMachineBuilder hostMachine(const Target& target, bool pic) {
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) throw std::runtime_error("LLVM cannot target this host: " + errorText(jtmb.takeError()));
  if (target.vectorBits > 0 && target.vectorBits < 512) jtmb->getFeatures().AddFeature("avx512f", false);
  if (target.vectorBits > 0 && target.vectorBits < 256) jtmb->getFeatures().AddFeature("avx", false);
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  if (pic) jtmb->setRelocationModel(llvm::Reloc::PIC_);
  return std::move(*jtmb);
}

std::unique_ptr<llvm::TargetMachine> hostTargetMachine(const Target& target, bool pic) {
  auto tm = hostMachine(target, pic).createTargetMachine();
  if (!tm) throw std::runtime_error("LLVM: " + errorText(tm.takeError()));
  return std::move(*tm);
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm, const Target& target) {
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(tm.getTargetTriple().str());
  for (auto& f : m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", tm.getTargetCPU());
    f.addFnAttr("target-features", tm.getTargetFeatureString());
    // LLVM keeps to 256-bit vectors on AVX-512 parts by default (frequency throttling on old Xeons);
    // the CPU schedule sizes register tiles for the target's width, so kernels ask for exactly that.
    if (target.vectorBits > 0) f.addFnAttr("prefer-vector-width", std::to_string(target.vectorBits));
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

class JitLibrary : public runtime::KernelLibrary {
 public:
  JitLibrary(std::unique_ptr<llvm::orc::LLJIT> jit, const std::vector<Kernel>& kernels) : jit_(std::move(jit)) {
    for (auto& k : kernels) {
      auto sym = jit_->lookup(k.name);
      if (!sym) throw std::runtime_error("JIT: kernel " + k.name + " not found: " + errorText(sym.takeError()));
      fns_[k.name] = sym->toPtr<void*>();
    }
  }
  const void* find(const std::string& name) const override {
    auto it = fns_.find(name);
    return it == fns_.end() ? nullptr : it->second;
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unordered_map<std::string, const void*> fns_;
};

}  // namespace

std::unique_ptr<runtime::KernelLibrary> jitCompile(const std::vector<Kernel>& kernels, const Target& target) {
  initializeLlvm();
  auto jtmb = hostMachine(target, false);
  auto tm = jtmb.createTargetMachine();
  if (!tm) throw std::runtime_error("LLVM: " + errorText(tm.takeError()));
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = emitModule(kernels, *ctx);
  optimize(*m, **tm, target);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) throw std::runtime_error("LLVM JIT: " + errorText(jit.takeError()));
  // libm (tanhf, erff) and the C runtime come from this process.
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!gen) throw std::runtime_error("LLVM JIT: " + errorText(gen.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*gen));
  if (auto e = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    throw std::runtime_error("LLVM JIT: " + errorText(std::move(e)));
  return std::make_unique<JitLibrary>(std::move(*jit), kernels);
}

namespace {
// The kernels as an optimized module for the host (not position independent), for the text outputs.
std::unique_ptr<llvm::Module> optimizedForHost(const std::vector<Kernel>& kernels, const Target& target, llvm::LLVMContext& ctx,
                                               llvm::TargetMachine& tm) {
  auto m = emitModule(kernels, ctx);
  optimize(*m, tm, target);
  return m;
}
}  // namespace

std::string optimizedIR(const std::vector<Kernel>& kernels, const Target& target) {
  initializeLlvm();
  auto tm = hostTargetMachine(target, false);
  llvm::LLVMContext ctx;
  auto m = optimizedForHost(kernels, target, ctx, *tm);
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os, nullptr);
  return os.str();
}

std::string assembly(const std::vector<Kernel>& kernels, const Target& target) {
  initializeLlvm();
  auto tm = hostTargetMachine(target, false);
  llvm::LLVMContext ctx;
  auto m = optimizedForHost(kernels, target, ctx, *tm);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream out(text);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw std::runtime_error("LLVM cannot emit assembly for this host");
  pm.run(*m);
  return std::string(text.str());
}

void buildSharedLibrary(const std::vector<Kernel>& kernels, const Target& target, const std::string& soPath) {
  initializeLlvm();
  auto tm = hostTargetMachine(target, true);
  llvm::LLVMContext ctx;
  auto m = emitModule(kernels, ctx);
  optimize(*m, *tm, target);
  std::string objPath = soPath + ".o";
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(objPath, ec, llvm::sys::fs::OF_None);
    if (ec) throw std::runtime_error("cannot write " + objPath + ": " + ec.message());
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile))
      throw std::runtime_error("LLVM cannot emit an object file for this host");
    pm.run(*m);
  }
  // The system linker makes the shared library (libm for tanhf / erff).
  std::string cc = std::getenv("CC") ? std::getenv("CC") : "cc";
  std::string cmd = cc + " -shared -o '" + soPath + "' '" + objPath + "' -lm";
  int rc = std::system(cmd.c_str());
  std::remove(objPath.c_str());
  if (rc != 0) throw std::runtime_error("linking the kernels failed: " + cmd);
}

}  // namespace tvms::codegen::llvm_backend
