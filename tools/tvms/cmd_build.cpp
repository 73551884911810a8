// tvms build / tvms run: lint, compile through the pipeline, write a .tvmx or run on the VM.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "compiler/analysis/lint.h"
#include "runtime/free_memory.h"
#include "compiler/codegen/kernel_cache.h"
#include "compiler/driver/pass_list.h"
#include "compiler/driver/pipeline.h"
#include "config/project_config.h"
#include "compiler/frontend/frontend.h"
#include "runtime/npy.h"
#include "runtime/usable_cores.h"
#include "runtime/vm.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/file_module.h"
#include "runtime/param_binding.h"
#include "runtime/repeated_run.h"
#include "tools/tvms/run_inputs.h"
#include "tools/tvms/run_report.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

namespace {

struct BuildArgs {
  std::string file, output, entry = "main", outputDir, emit, format = "text", trace, params;
  bool progress = false, randomMissing = false, offload = true, fuse = true, foldScopeChange = false;
  int64_t repeat = 0;
  std::vector<std::string> printAfter, passes;
  bool printAll = false;
  std::map<std::string, std::string> remap, inputs;
  std::map<std::string, int64_t> dims;
  std::vector<std::pair<size_t, std::shared_ptr<const ir::VDevice>>> updateVDevice;
  std::optional<runtime::GraphMode> graphs;  // --cuda-graph
};

bool splitPair(const std::string& s, std::string& k, std::string& v) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  k = s.substr(0, eq);
  v = s.substr(eq + 1);
  return true;
}

std::vector<std::string> splitColons(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == ':') out.emplace_back();
    else out.back().push_back(c);
  }
  return out;
}

// A non-negative 64-bit integer, the whole text.
std::optional<int64_t> count(const std::string& s) {
  int64_t v = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// --repeat keeps one time per call (and, with --trace, every call's spans): a bound keeps that memory
// and the run's length finite.
constexpr int64_t kMaxRepeat = 1'000'000, kMaxTracedRepeat = 10'000;

// --update-vdevice=INDEX:KIND[:ID][:SCOPE]: UpdateVDevice(I.vdevice(KIND, ID, SCOPE), INDEX).
std::optional<std::pair<size_t, std::shared_ptr<const ir::VDevice>>> parseUpdateVDevice(const std::string& spec) {
  auto parts = splitColons(spec);
  auto index = parts.size() >= 2 ? count(parts[0]) : std::nullopt;
  auto id = parts.size() >= 3 ? count(parts[2]) : std::optional<int64_t>(0);
  if (!index || parts[1].empty() || !id || parts.size() > 4) {
    std::cerr << "tvms: --update-vdevice=" << spec << ": give INDEX:KIND[:ID][:SCOPE], e.g. --update-vdevice=1:cuda:1 "
                 "(list entry 1 becomes I.vdevice(\"cuda\", 1))\n";
    return std::nullopt;
  }
  auto v = std::make_shared<ir::VDevice>();
  v->target.kind = parts[1];
  v->vdeviceId = *id;
  if (parts.size() == 4) v->memoryScope = parts[3];
  return std::make_pair(static_cast<size_t>(*index), std::shared_ptr<const ir::VDevice>(v));
}

// What the options say together: a trace's size, no output over an input, known passes, --passes
// without -o. False (with the reason printed) when they disagree.
bool argumentsAgree(const BuildArgs& b) {
  if (!b.trace.empty() && b.repeat > kMaxTracedRepeat) {
    std::cerr << "tvms: --repeat " << b.repeat << " with --trace: the trace keeps every call's spans; trace at most "
              << kMaxTracedRepeat << " calls\n";
    return false;
  }
  // No output may replace an input: the module's file or an input tensor's .npy.
  std::vector<std::string> inputFiles{b.file};
  for (auto& [name, spec] : b.inputs)
    if (spec.rfind("random", 0) != 0) inputFiles.push_back(spec);
  if (!b.params.empty()) inputFiles.push_back(b.params);
  if (!b.output.empty() && outputIsAnInput("-o", b.output, inputFiles)) return false;
  if (!b.trace.empty() && outputIsAnInput("--trace", b.trace, inputFiles)) return false;
  for (auto& p : b.printAfter)
    if (!driver::findPass(p)) {
      std::cerr << "tvms: unknown pass '" << p << "' (passes: " << driver::passNamesText() << ")\n";
      return false;
    }
  if (!b.passes.empty() && !b.output.empty()) {
    std::cerr << "tvms: --passes runs those passes and prints the module; it compiles nothing to write with -o\n";
    return false;
  }
  return true;
}

std::optional<BuildArgs> parseArgs(const Args& args, bool run, const char* usage) {
  BuildArgs b;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= args.size()) return false;
      out = args[++i];
      return true;
    };
    std::string v, k, x;
    if (a == "-h" || a == "--help") {
      std::cout << usage;
      std::exit(0);
    }
    if (a == "-o" && !run && value(b.output)) continue;
    if (a.rfind("--print-after=", 0) == 0) { b.printAfter.push_back(a.substr(14)); continue; }
    if (a == "--print-after-all") { b.printAll = true; continue; }
    if (!run && a.rfind("--passes=", 0) == 0) {
      std::stringstream names(a.substr(9));
      for (std::string name; std::getline(names, name, ',');) b.passes.push_back(name);
      continue;
    }
    if (a == "--no-offload") { b.offload = false; continue; }
    if (a.rfind("--cuda-graph=", 0) == 0) {
      b.graphs = runtime::parseGraphMode(a.substr(13));
      if (!b.graphs) {
        std::cerr << "tvms: " << a << ": give --cuda-graph=on, off or auto\n";
        return std::nullopt;
      }
      continue;
    }
    if (a == "--no-fuse") { b.fuse = false; continue; }
    if (a == "--fold-vdevice-scope-change") { b.foldScopeChange = true; continue; }
    if (a.rfind("--update-vdevice=", 0) == 0) {
      auto update = parseUpdateVDevice(a.substr(17));
      if (!update) return std::nullopt;
      b.updateVDevice.push_back(*update);
      continue;
    }
    if (a == "--no-cache") { ::setenv("TVMS_NO_CACHE", "1", 1); continue; }  // read by the kernel cache (compiler/codegen/kernel_cache.h)
    if (!run && (a == "--emit=llvm" || a == "--emit=asm" || a == "--emit=cuda" || a == "--emit=ptx")) { b.emit = a.substr(7); continue; }
    if (a == "--device" && value(v) && splitPair(v, k, x)) {
      // The left side is checked against the module's vdevices once it is compiled or loaded.
      if (!runtime::parseDevice(x)) {
        std::cerr << "tvms: --device " << v << ": give VDEVICE=DEVICE, a vdevice of the module as KIND:INDEX (cuda:0, llvm:1) and a device: "
                     "cpu, cuda:N or llvm:N (e.g. --device cuda:0=cpu, --device cuda:1=cuda:0)\n";
        return std::nullopt;
      }
      b.remap[k] = x;
      continue;
    }
    if (run && a == "--entry" && value(b.entry)) continue;
    if (run && a == "--input" && value(v) && splitPair(v, k, x)) {
      if (x.rfind("random:", 0) == 0 && !count(x.substr(7))) {
        std::cerr << "tvms: --input " << v << ": a seed is a non-negative integer (random:42), or give random or a .npy file\n";
        return std::nullopt;
      }
      b.inputs[k] = x;
      continue;
    }
    if (run && a == "--output" && value(b.outputDir)) continue;
    if (run && a == "--params" && value(b.params)) continue;
    if (run && a == "--trace" && value(b.trace)) continue;
    if (run && a == "--repeat" && value(v)) {
      // The whole text, a plain decimal count: "1e3", "5x" and counts past the bound are errors.
      auto n = count(v);
      if (!n || *n < 1 || *n > kMaxRepeat) {
        std::cerr << "tvms: --repeat " << v << ": give a count of calls from 1 to " << kMaxRepeat << "\n";
        return std::nullopt;
      }
      b.repeat = *n;
      continue;
    }
    if (run && a == "--format" && value(b.format) && (b.format == "text" || b.format == "json")) continue;
    if (run && a == "--progress") { b.progress = true; continue; }
    if (run && a == "--random-missing") { b.randomMissing = true; continue; }
    if (run && a == "--dim" && value(v) && splitPair(v, k, x)) {
      auto n = count(x);
      if (!n) {
        std::cerr << "tvms: --dim " << v << ": a dimension is a non-negative integer (--dim n=128)\n";
        return std::nullopt;
      }
      b.dims[k] = *n;
      continue;
    }
    if (!a.empty() && a[0] != '-' && b.file.empty()) { b.file = a; continue; }
    std::cerr << "tvms: bad argument '" << a << "'\n" << usage;
    return std::nullopt;
  }
  if (b.file.empty()) { std::cerr << usage; return std::nullopt; }
  if (!argumentsAgree(b)) return std::nullopt;
  return b;
}

// Lints the file; prints its errors and returns nullopt when it has any. The document goes once the
// errors are printed: the module refers to nothing in it, and the text is a byte of memory per byte
// of source that a large module's passes can use.
std::optional<driver::BuildResult> compileFile(const BuildArgs& b, bool buildModules, bool jit) {
  auto src = readSource(b.file);
  if (!src) return std::nullopt;
  // Read by function, as a one-shot lint reads (the build needs the module, not the syntax trees).
  const unsigned helpers = runtime::usableCores() - 1;
  auto doc = std::make_unique<syntax::Document>(std::move(src->text), syntax::Parsing::ByFunction, helpers);
  auto lint = analysis::lintDocumentOnce(*doc, {}, helpers);
  if (int errors = printErrors(lint, b.file, *doc)) {
    std::cerr << "tvms: " << b.file << ": " << errors << " error(s); fix them before building\n";
    return std::nullopt;
  }
  // A Python program that builds (or writes) a module and calls relax.build on it: that module,
  // through the pipeline it names.
  const auto pipeline = lint.file.pipeline;
  std::shared_ptr<ir::IRModule> module;
  if (const ir::IRModule* found = moduleToBuild(lint.file))
    for (auto& r : lint.file.regions)
      if (r.module.get() == found) module = r.module;
  if (!module) { std::cerr << "tvms: " << b.file << ": no TVMScript module to build (and no IRBuilder or BlockBuilder program building one)\n"; return std::nullopt; }
  // Only the module goes on: the analysis, the source maps and the other regions are lint's, about a
  // third of a large file's memory, freed before the passes make their copies.
  lint = analysis::LintResult{};
  doc.reset();
  runtime::returnFreeMemory();
  driver::BuildOptions o;
  o.remap = b.remap;
  o.updateVDevice = b.updateVDevice;
  if (pipeline && o.updateVDevice.empty()) o.updateVDevice = pipeline->updateVDevice;
  o.foldVDeviceScopeChange = b.foldScopeChange;
  o.passes = b.passes;
  std::vector<std::string> printAfter = b.printAfter;
  // --passes prints the module after its last pass; --print-after without -o (or --emit, or a run)
  // stops after the last pass it prints.
  if (!b.passes.empty() && printAfter.empty() && !b.printAll) printAfter.push_back(b.passes.back());
  if (!buildModules && !jit && b.emit.empty() && b.passes.empty() && !b.printAll)
    for (const driver::Pass& p : driver::passList())
      if (std::find(printAfter.begin(), printAfter.end(), p.name) != printAfter.end()) o.stopAfter = p.name;
  o.compileKernels = jit;
  o.buildModules = buildModules;
  // --no-offload, else `offload = false` in [tool.tvms] of the nearest pyproject.toml.
  config::Config project;
  if (!config::loadConfig(b.file, project)) return std::nullopt;
  o.offload = b.offload && project.offload.value_or(true);
  // A program offloads to cuBLAS/cuDNN only where it partitions for them, as TVM does.
  if (pipeline) o.offload = o.offload && pipeline->offload;
  // --cuda-graph, else the program's PassContext(config={"relax.backend.use_cuda_graph": ...}).
  if (pipeline && pipeline->useCudaGraph) o.graphs = *pipeline->useCudaGraph ? runtime::GraphMode::On : runtime::GraphMode::Off;
  if (b.graphs) o.graphs = *b.graphs;
  o.fuse = b.fuse;
  o.emit = b.emit;
  o.wantsAfterPass = [&](const std::string& pass) {
    return b.printAll || std::find(printAfter.begin(), printAfter.end(), pass) != printAfter.end();
  };
  o.afterPass = [&](const std::string& pass, const std::string& text) {
    std::cout << "# after " << pass << "\n" << text << (text.empty() || text.back() == '\n' ? "" : "\n") << "\n";
  };
  // A cache folder that is not the cache's (TVMS_CACHE_DIR=$HOME) is left alone: said once here.
  if (auto why = codegen::KernelCache::fromEnvironment().notACache())
    std::cerr << "tvms: warning: the kernel cache is off: " << *why << "\n";
  // A pass printed after must run: one the options leave out says how to ask for it.
  for (auto& name : printAfter) {
    std::string why;
    driver::BuildOptions probe = o;
    probe.stopAfter = name;
    if (driver::planPasses(probe, &why).empty()) {
      std::cerr << "tvms: " << why << "\n";
      return std::nullopt;
    }
  }
  // The build takes the module over when nothing else holds it (the lint result went above).
  ir::IRModule input = module.use_count() == 1 ? std::move(*module) : *module;
  module.reset();
  driver::BuildResult r = driver::build(std::move(input), o);
  std::cout << r.kernelText;
  for (auto& e : r.errors) std::cerr << "tvms: " << b.file << ": " << e << "\n";
  if (!r.exe && !r.stopped) return std::nullopt;
  return r;
}

// Shape and prim-value results are reported and saved as int64 tensors (shape (n,) and ()).
runtime::NDArray hostInts(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  runtime::NDArray a;
  a.dtype = runtime::DType::I64;
  a.shape = std::move(shape);
  a.storage = std::make_shared<runtime::Storage>(runtime::makeCpuDevice(-1), -1, a.bytes());
  std::copy(values.begin(), values.end(), static_cast<int64_t*>(a.data()));
  return a;
}

// With --progress, one line per stage on stderr, for the language server's $/progress.
void progress(const BuildArgs& b, const std::string& stage) {
  if (b.progress) std::cerr << "tvms-progress: " << stage << std::endl;
}

const char* kBuildUsage = "usage: tvms build FILE [-o FILE.tvmx] [--print-after=PASS]... [--print-after-all] [--passes=PASS,...] [--update-vdevice=INDEX:KIND[:ID]] [--fold-vdevice-scope-change] [--emit=llvm|asm|cuda|ptx] [--device SPELLING=cpu] [--no-offload] [--no-fuse] [--no-cache] [--cuda-graph=auto|on|off]\n";
const char* kRunUsage =
    "usage: tvms run FILE|FILE.tvmx [--entry main] [--input NAME=file.npy | NAME=random[:seed]]... [--params FILE.safetensors|FILE.npz]\n"
    "                [--dim NAME=VALUE]"
    "                [--output DIR] [--device SPELLING=cpu] [--print-after=PASS]... [--format text|json] [--progress]\n"
    "                [--random-missing] [--no-offload] [--no-fuse] [--no-cache] [--repeat N] [--trace FILE.json] [--cuda-graph=auto|on|off]\n"
    "       --cuda-graph: record a function's GPU work as a CUDA graph on its second call with the same input shapes\n"
    "       and replay it after (auto, the default unless the build chose: when it can be; on: the same, and say why not)\n"
    "       without any --input (or with --random-missing, each parameter not given) a parameter gets random\n"
    "       values, seeded by its position (0, 1, ...); a tuple parameter takes NAME=DIR (DIR/0.npy, DIR/1.npy, ...),\n"
    "       an integer parameter (R.Prim(\"int64\")) NAME=VALUE; --params binds parameters by name from a weights file\n";

// A --device whose left side names no vdevice of the module is said (a typo such as cuda:7 would
// otherwise remap nothing, silently), as a warning: one command line may serve a folder of modules
// of which only some have that vdevice. The message lists the module's vdevices.
void warnUnknownRemaps(const runtime::Executable& exe, const std::map<std::string, std::string>& remap) {
  for (auto& [from, to] : remap) {
    bool known = false;
    for (auto& d : exe.devices) known |= d.spelling == from;
    if (known) continue;
    std::cerr << "tvms: warning: --device " << from << "=" << to << ": the module has no vdevice " << from << " (its vdevices:";
    for (auto& d : exe.devices) std::cerr << " " << d.spelling;
    std::cerr << "); ignored\n";
  }
}

}  // namespace

int runBuild(const Args& args) {
  auto b = parseArgs(args, false, kBuildUsage);
  if (!b) return 2;
  auto r = compileFile(*b, !b->output.empty(), false);
  if (!r) return 1;
  if (r->stopped) {
    std::cerr << "tvms: " << b->file << ": stopped after the pass printed; nothing compiled\n";
    return 0;
  }
  warnUnknownRemaps(*r->exe, b->remap);
  if (!b->output.empty()) {
    runtime::saveExecutable(*r->exe, b->output);
    std::cerr << "tvms: wrote " << b->output << " (" << r->exe->kernels.size() << " kernels, " << r->exe->functions.size()
              << " functions, " << r->exe->devices.size() << " devices)\n";
  } else {
    // Never silently nothing: say what was checked, and how to keep the result.
    std::cerr << "tvms: " << b->file << ": checked and lowered (" << r->exe->kernels.size() << " kernels, "
              << r->exe->functions.size() << " functions, " << r->exe->devices.size()
              << " devices); nothing written: add -o FILE.tvmx to compile and save it\n";
  }
  return 0;
}

int runOnVM(const BuildArgs& b);

int runRun(const Args& args) {
  auto b = parseArgs(args, true, kRunUsage);
  if (!b) return 2;
  // Bad inputs, missing devices and damaged artifacts are errors of the run, not of tvms.
  try {
    return runOnVM(*b);
  } catch (const std::exception& e) {
    std::cerr << "tvms: " << e.what() << "\n";
    return 1;
  }
}

// --repeat: the wall-time percentiles of the repeated calls (their device figures are per call).
void repeatFigures(int64_t repeat, std::vector<double> perCall, RunReport& report) {
  std::sort(perCall.begin(), perCall.end());
  report.repeat = repeat;
  report.minMs = perCall.front();
  report.p50Ms = perCall[perCall.size() / 2];
  report.p90Ms = perCall[std::min(perCall.size() - 1, perCall.size() * 9 / 10)];
}

int runOnVM(const BuildArgs& b) {
  std::optional<runtime::Executable> exe;
  auto t0 = std::chrono::steady_clock::now();
  RunReport report;
  if (b.file.size() > 5 && b.file.substr(b.file.size() - 5) == ".tvmx") {
    exe = runtime::loadExecutable(b.file);
  } else {
    progress(b, "compiling " + b.file);
    auto r = compileFile(b, false, true);
    if (!r) return 1;
    exe = std::move(r->exe);
    report.codegenMs = r->codegenMs;
    report.kernelModulesCached = r->kernelModulesCached;
    report.kernelModulesCompiled = r->kernelModulesCompiled;
  }
  double compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  warnUnknownRemaps(*exe, b.remap);
  const runtime::VMFunction* f = exe->function(b.entry);
  if (!f) {
    std::cerr << "tvms: no function '" << b.entry << "' in " << b.file << " (functions:";
    for (auto& g : exe->functions) std::cerr << " " << g.name;
    std::cerr << ")\n";
    return 2;
  }
  for (auto& [name, v] : b.inputs) {
    bool known = false;
    for (auto& p : f->params) known |= p.name == name;
    if (!known) { std::cerr << "tvms: " << b.entry << " has no parameter '" << name << "'\n"; return 2; }
  }
  // --params: weights bound by name (a tensor naming no parameter, or of the wrong dtype or shape, is
  // an error naming it); the first call places each on its parameter's device, --repeat reuses them.
  std::map<size_t, runtime::NDArray> weights;
  if (!b.params.empty()) {
    weights = runtime::bindWeights(*f, runtime::readWeightsFile(b.params, runtime::makeCpuDevice(-1)), b.params);
    for (auto& [index, array] : weights)
      if (b.inputs.count(f->params[index].name)) {
        std::cerr << "tvms: '" << f->params[index].name << "' is given by --input and by --params " << b.params << "\n";
        return 2;
      }
  }
  runtime::VirtualMachine vm(*exe, runtime::openDevices(*exe, b.remap));
  if (b.graphs) vm.setGraphMode(*b.graphs);
  auto bound = bindInputs(b.inputs, b.dims, b.randomMissing, *f, weights);
  if (!bound) return 2;
  std::vector<runtime::Value> inputs = std::move(*bound);
  progress(b, "running " + b.entry);
  // Fault injection for the language server's isolation test (tests/lsp): the run dies the way a
  // kernel with a wild store would, and the server must answer with an error and carry on.
  if (const char* fault = std::getenv("TVMS_FAULT_INJECT"); fault && std::string(fault) == "segv-in-run") std::raise(SIGSEGV);
  runtime::RepeatedRun run = runtime::runRepeated(vm, b.entry, std::move(inputs), b.repeat, !b.trace.empty());
  report.inputBytesPlacedOnce = run.inputBytesPlacedOnce;
  const runtime::Value& result = run.result;
  progress(b, "reporting");
  report.entry = b.entry;
  report.compileMs = compileSeconds * 1e3;
  report.runMs = run.firstCallSeconds * 1e3;
  // Outputs: one tensor, or a tuple's fields.
  std::vector<std::pair<std::string, runtime::NDArray>> outs;
  // Named after the returned variable, else after the function; a tuple's tensors as <name>_<i>.
  std::string base = f->outputNames.size() == 1 ? f->outputNames[0] : b.entry;
  // Nested tuples too: ((a, b), c) gives <name>_0_0, <name>_0_1 and <name>_1.
  std::function<void(const runtime::Value&, const std::string&)> collect = [&](const runtime::Value& v, const std::string& name) {
    if (auto* t = std::get_if<runtime::NDArray>(&v)) outs.push_back({name, *t});
    else if (auto* shape = std::get_if<runtime::ShapeValue>(&v)) outs.push_back({name, hostInts(shape->dims, {static_cast<int64_t>(shape->dims.size())})});
    else if (auto* i = std::get_if<int64_t>(&v)) outs.push_back({name, hostInts({*i}, {})});  // a prim value: a 0-d int64 tensor
    else if (auto* tup = std::get_if<std::shared_ptr<runtime::TupleValue>>(&v))
      for (size_t i = 0; i < (*tup)->fields.size(); ++i) collect((*tup)->fields[i], name + "_" + std::to_string(i));
  };
  collect(result, base);
  if (!b.outputDir.empty()) {
    std::vector<std::string> inputFiles{b.file};
    for (auto& [name, spec] : b.inputs) inputFiles.push_back(spec);
    if (!b.params.empty()) inputFiles.push_back(b.params);
    for (auto& [name, t] : outs)
      if (outputIsAnInput("--output", b.outputDir + "/" + name + ".npy", inputFiles)) return 2;
    std::filesystem::create_directories(b.outputDir);
  }
  for (auto& [name, t] : outs) {
    runtime::NDArray h = vm.hostCopy(t);
    OutputReport o = describeOutput(name, h, t.slot() >= 0 ? exe->devices[t.slot()].spelling : "host");
    if (!b.outputDir.empty()) {
      o.npyPath = b.outputDir + "/" + name + ".npy";
      runtime::writeNpy(o.npyPath, h);
    }
    report.outputs.push_back(std::move(o));
  }
  const runtime::RunStats& st = run.stats;
  if (b.repeat) repeatFigures(b.repeat, run.perCallMs, report);
  for (size_t i = 0; i < exe->devices.size(); ++i)
    report.devices.push_back({static_cast<int>(i), exe->devices[i].spelling, vm.device(static_cast<int>(i)).name(), st.kernelCalls[i],
                              st.kernelSeconds[i] * 1e3, static_cast<int64_t>(vm.device(static_cast<int>(i)).peakBytes())});
  report.bytesCopied = st.bytesCopied;
  report.copies = st.copies;
  report.copyMs = st.copySeconds * 1e3;
  report.inputBytesPlaced = st.inputBytesPlaced;
  report.graphNote = vm.graphNote(b.entry);
  {
    std::vector<std::string> slots;
    for (auto& d : exe->devices) slots.push_back(d.spelling);
    report.tracedCalls = b.trace.empty() ? 1 : 1 + b.repeat;
    addSpans(report, vm.trace(), slots);
  }
  if (!b.trace.empty()) {
    std::vector<std::string> names;
    for (size_t i = 0; i < exe->devices.size(); ++i) names.push_back(exe->devices[i].spelling + " (" + vm.device(static_cast<int>(i)).name() + ")");
    if (!writeChromeTrace(b.trace, vm.trace(), names)) {
      std::cerr << "tvms: cannot write the trace to " << b.trace << "\n";
      return 1;
    }
  }
  if (b.format == "json") printJson(std::cout, report);
  else printText(std::cout, report);
  return 0;
}

}  // namespace tvms::cli
