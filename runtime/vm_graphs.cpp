// CUDA graphs in the VM: which functions can be recorded, and recording and replaying them
// (runtime/graph_capture.h says what a replay keeps true).
#include <functional>
#include <stdexcept>

#include "runtime/graph_capture.h"
#include "runtime/vm.h"

namespace tvms::runtime {

std::string captureBlocker(const VMFunction& f, int* slot) {
  *slot = -1;
  std::string blocker;
  auto on = [&](int64_t s) {
    if (*slot < 0) *slot = static_cast<int>(s);
    else if (s != *slot && blocker.empty()) blocker = "its work runs on two devices (slots " + std::to_string(*slot) + " and " + std::to_string(s) + ")";
  };
  std::function<void(const ParamSpec&)> param = [&](const ParamSpec& p) {
    for (auto& field : p.fields) param(field);
    if (p.tensor && !p.tuple && !p.prim && p.slot >= 0) on(p.slot);
  };
  for (auto& p : f.params) param(p);
  bool launches = false;
  for (auto& in : f.code) {
    const auto& a = in.args;
    switch (in.op) {
      case Opcode::CallKernel: case Opcode::CallLibrary: launches = true; on(a[1]); break;
      case Opcode::LoadConst: on(a[1]); break;
      case Opcode::AllocStorage: on(a[0]); break;
      case Opcode::ToDevice: return "it copies between devices (R.to_vdevice)";
      case Opcode::ShapeToTensor: case Opcode::TensorToShape: return "its shapes depend on tensor values read on the host";
      case Opcode::IfNot: case Opcode::Goto: return "it branches (R.If)";
      case Opcode::Print: return "it prints (R.print)";
      case Opcode::Assert: return "it checks values on the host (R.assert_op)";
      case Opcode::CallFunc: case Opcode::MakeClosure: case Opcode::InvokeClosure: return "it calls another function of the module";
      default: break;
    }
  }
  if (!blocker.empty()) return blocker;
  if (!launches) return "it runs no kernel";
  return "";
}

std::string recordingCost(int64_t calls, int64_t resultBytes) {
  constexpr double kSavedPerCall = 4e-6;       // seconds of launch + dispatch + events per kernel call
  constexpr double kCopyBytesPerSecond = 1e12; // a device-to-device copy (read and write) on a current GPU
  double saved = kSavedPerCall * static_cast<double>(calls), spent = static_cast<double>(resultBytes) / kCopyBytesPerSecond;
  if (saved > spent) return "";
  return "replaying " + std::to_string(calls) + " kernel and library call" + (calls == 1 ? "" : "s") + " would save less than copying its " +
         std::to_string(resultBytes >> 20) + " MiB of results out of the graph costs (--cuda-graph=on records it anyway)";
}

namespace {

// The tensors and integers of `v`, tuples flattened in order.
void leavesOf(const Value& v, std::vector<const Value*>& out) {
  if (auto* t = std::get_if<std::shared_ptr<TupleValue>>(&v)) {
    if (*t)
      for (auto& field : (*t)->fields) leavesOf(field, out);
    return;
  }
  out.push_back(&v);
}

// What a recording depends on besides addresses: each tensor's dtype, device and shape, each integer.
std::vector<int64_t> shapesKey(const std::vector<const Value*>& leaves) {
  std::vector<int64_t> key;
  for (const Value* v : leaves) {
    if (auto* t = std::get_if<NDArray>(v)) {
      key.insert(key.end(), {1, static_cast<int64_t>(t->dtype), t->slot(), static_cast<int64_t>(t->shape.size())});
      key.insert(key.end(), t->shape.begin(), t->shape.end());
    } else if (auto* i = std::get_if<int64_t>(v)) {
      key.insert(key.end(), {2, *i});
    } else if (auto* s = std::get_if<ShapeValue>(v)) {
      key.insert(key.end(), {3, static_cast<int64_t>(s->dims.size())});
      key.insert(key.end(), s->dims.begin(), s->dims.end());
    } else {
      key.insert(key.end(), {4, static_cast<int64_t>(v->index())});
    }
  }
  return key;
}

// `v` with leaf k replaced by a tensor on staging[k] where that is set (tuples rebuilt).
Value withStaging(const Value& v, size_t& leaf, const std::vector<std::shared_ptr<Storage>>& staging) {
  if (auto* t = std::get_if<std::shared_ptr<TupleValue>>(&v); t && *t) {
    auto copy = std::make_shared<TupleValue>();
    for (auto& field : (*t)->fields) copy->fields.push_back(withStaging(field, leaf, staging));
    return copy;
  }
  const std::shared_ptr<Storage>& own = staging.at(leaf++);
  if (!own) return v;
  NDArray staged = std::get<NDArray>(v);
  staged.storage = own;
  staged.offset = 0;
  return staged;
}

}  // namespace

std::string VirtualMachine::graphNote(const std::string& function) const {
  const VMFunction* f = exe_.function(function);
  auto it = f ? graphs_.find(f) : graphs_.end();
  if (it == graphs_.end()) return "";
  // In auto mode a function of a device that records nothing (a CPU) has nothing worth saying.
  if (graphMode_ == GraphMode::Auto && !it->second->deviceRecords) return "";
  return it->second->note;
}

bool VirtualMachine::mayRecord(const std::string& function) const {
  const VMFunction* f = exe_.function(function);
  auto it = f ? graphs_.find(f) : graphs_.end();
  return graphMode_ != GraphMode::Off && it != graphs_.end() && it->second->analysed && it->second->blocker.empty();
}

std::optional<Value> VirtualMachine::invokeRecorded(const VMFunction& f, std::vector<Value>& inputs) {
  auto& slotGraphs = graphs_[&f];
  if (!slotGraphs) slotGraphs = std::make_unique<FunctionGraphs>();
  FunctionGraphs& g = *slotGraphs;
  if (!g.analysed) {
    g.analysed = true;
    g.blocker = captureBlocker(f, &g.slot);
    bool canRecord = false;
    for (auto& d : devices_) canRecord |= d->canCapture();
    g.deviceRecords = g.slot >= 0 ? devices_.at(static_cast<size_t>(g.slot))->canCapture() : canRecord;
    if (g.blocker.empty() && !g.deviceRecords)
      g.blocker = "its device (" + devices_[static_cast<size_t>(g.slot)]->name() + ") does not record work for replay";
    if (!g.blocker.empty()) g.note = "not recorded: " + g.blocker;
  }
  if (!g.blocker.empty()) return std::nullopt;
  // Where bindArguments would put them: each tensor on its parameter's device.
  for (size_t i = 0; i < inputs.size(); ++i) place(f.params[i], inputs[i], &stats_.inputBytesPlaced);
  std::vector<const Value*> leaves;
  for (auto& v : inputs) leavesOf(v, leaves);
  for (const Value* v : leaves)
    if (auto* t = std::get_if<NDArray>(v); t && t->slot() != g.slot) return std::nullopt;  // a tensor elsewhere: bindArguments says so
  std::vector<int64_t> key = shapesKey(leaves);
  auto found = g.byShapes.find(key);
  if (found == g.byShapes.end()) {
    if (g.byShapes.size() >= kMaxRecordingsPerFunction) {
      g.note = "recorded for " + std::to_string(kMaxRecordingsPerFunction) + " sets of input shapes; further ones run kernel by kernel";
      return std::nullopt;
    }
    found = g.byShapes.emplace(key, FunctionGraphs::PerShapes{}).first;
  }
  FunctionGraphs::PerShapes& shapes = found->second;
  if (!shapes.failed.empty()) return std::nullopt;
  // The first call for these shapes runs unrecorded: it loads constants and kernels and sets up the
  // libraries' plans, none of which may happen while a device records. A traced call is never
  // recorded (its spans are the kernels').
  if (tracing_ || shapes.calls == 0) {
    ++shapes.calls;
    if (tracing_ && !shapes.recorded) g.note = "not recorded while traced (a traced call's spans are its kernels)";
    return std::nullopt;
  }
  if (shapes.recorded) {
    // An input recorded at its own address that now comes at another: stage it, record again.
    bool moved = false;
    for (size_t k = 0; k < leaves.size(); ++k) {
      auto* t = std::get_if<NDArray>(leaves[k]);
      if (t && !shapes.recorded->staging[k] && t->data() != shapes.recorded->addresses[k]) {
        shapes.staged.insert(k);
        moved = true;
      }
    }
    if (moved) shapes.recorded.reset();
  }
  if (!shapes.recorded && !record(f, g.slot, shapes, inputs, leaves)) {
    g.note = "not recorded: " + shapes.failed;
    return std::nullopt;
  }
  ++g.replays;
  RecordedCall& call = *shapes.recorded;
  g.note = "recorded: " + std::to_string(call.kernels) + " kernel and library calls in one CUDA graph of " + std::to_string(call.work->nodes()) +
           " nodes (" + std::to_string(g.byShapes.size()) + " set" + (g.byShapes.size() == 1 ? "" : "s") + " of input shapes, " +
           std::to_string(shapes.staged.size()) + " input" + (shapes.staged.size() == 1 ? "" : "s") + " copied in per call), replayed " +
           std::to_string(g.replays) + " time" + (g.replays == 1 ? "" : "s");
  return replay(call, leaves, g.slot);
}

bool VirtualMachine::record(const VMFunction& f, int slot, FunctionGraphs::PerShapes& shapes, const std::vector<Value>& inputs,
                            const std::vector<const Value*>& leaves) {
  DeviceAPI& device = *devices_.at(static_cast<size_t>(slot));
  auto call = std::make_unique<RecordedCall>();
  call->addresses.resize(leaves.size(), nullptr);
  call->staging.resize(leaves.size());
  for (size_t k = 0; k < leaves.size(); ++k) {
    auto* t = std::get_if<NDArray>(leaves[k]);
    if (!t) continue;
    if (shapes.staged.count(k)) {
      // The recording's own buffer, allocated before recording starts (a staged input is copied into
      // it ahead of each replay, outside the graph).
      call->staging[k] = std::make_shared<Storage>(devices_[static_cast<size_t>(slot)], slot, t->bytes());
      call->addresses[k] = call->staging[k]->data;
    } else {
      call->kept.push_back(t->storage);
      call->addresses[k] = t->data();
    }
  }
  std::vector<Value> recordedInputs;
  size_t leaf = 0;
  for (auto& v : inputs) recordedInputs.push_back(withStaging(v, leaf, call->staging));
  int64_t callsBefore = stats_.kernelCalls[static_cast<size_t>(slot)];
  int64_t instructionsBefore = stats_.instructions;
  try {
    device.beginCapture();
  } catch (const std::exception& e) {  // the device will not record now: the call runs unrecorded
    shapes.failed = e.what();
    return false;
  }
  recording_ = true;
  Value out;
  std::exception_ptr error;
  try {
    out = run(f, std::move(recordedInputs));
  } catch (...) {
    error = std::current_exception();
  }
  recording_ = false;
  std::unique_ptr<CapturedWork> work = device.endCapture();
  // Nothing ran: the counts are the replays'.
  call->kernels = stats_.kernelCalls[static_cast<size_t>(slot)] - callsBefore;
  stats_.kernelCalls[static_cast<size_t>(slot)] = callsBefore;
  stats_.instructions = instructionsBefore;
  if (!work->ok()) {  // the device could not record what the function does: it runs unrecorded
    out = Value{};     // its tensors are in the recording's memory: dropped before the recording is
    shapes.failed = work->why();
    return false;
  }
  if (error) {  // the function's own error (a dim check): as a plain run reports it
    out = Value{};
    work.reset();
    std::rethrow_exception(error);
  }
  if (graphMode_ == GraphMode::Auto) {
    std::vector<const Value*> results;
    leavesOf(out, results);
    int64_t bytes = 0;
    for (const Value* r : results)
      if (auto* t = std::get_if<NDArray>(r)) bytes += static_cast<int64_t>(t->bytes());
    if (std::string why = recordingCost(call->kernels, bytes); !why.empty()) {
      out = Value{};  // in the recording's memory: dropped before it
      shapes.failed = why;
      return false;
    }
  }
  call->output = std::make_shared<Value>(std::move(out));
  call->work = std::move(work);
  shapes.recorded = std::move(call);
  ++stats_.graphRecordings;
  return true;
}

Value VirtualMachine::replay(RecordedCall& call, const std::vector<const Value*>& leaves, int slot) {
  DeviceAPI& device = *devices_.at(static_cast<size_t>(slot));
  for (size_t k = 0; k < leaves.size(); ++k)
    if (call.staging[k]) {
      const NDArray& t = std::get<NDArray>(*leaves[k]);
      device.copyWithin(call.staging[k]->data, t.data(), t.bytes());
    }
  Event begin = kernelTiming_ ? device.recordEvent() : nullptr;
  call.work->launch();
  if (begin) {
    static const std::string label = "CUDA graph";
    timings_.push_back({slot, begin, device.recordEvent(), &label, "graph", 0});
  }
  stats_.kernelCalls[static_cast<size_t>(slot)] += call.kernels;
  ++stats_.graphReplays;
  return copyOut(*static_cast<const Value*>(call.output.get()), slot);
}

// The result with each tensor copied out of the recording's memory (the next replay writes there).
Value VirtualMachine::copyOut(const Value& v, int slot) {
  if (auto* t = std::get_if<std::shared_ptr<TupleValue>>(&v); t && *t) {
    auto copy = std::make_shared<TupleValue>();
    for (auto& field : (*t)->fields) copy->fields.push_back(copyOut(field, slot));
    return copy;
  }
  auto* t = std::get_if<NDArray>(&v);
  if (!t) return v;
  NDArray out;
  out.dtype = t->dtype;
  out.shape = t->shape;
  out.storage = std::make_shared<Storage>(devices_.at(static_cast<size_t>(slot)), slot, t->bytes());
  devices_[static_cast<size_t>(slot)]->copyWithin(out.data(), t->data(), t->bytes());
  return out;
}

}  // namespace tvms::runtime
