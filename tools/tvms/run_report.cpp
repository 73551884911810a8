#include "tools/tvms/run_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tvms::cli {

namespace {

// 1536 -> "1.5 KiB": the run report's memory figures.
std::string humanBytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}
constexpr int kHistogramBins = 20;
constexpr int64_t kPreviewMax = 32;  // preview at most 32 x 32 cells
constexpr int64_t kFirst = 4;
}  // namespace

OutputReport describeOutput(const std::string& name, const runtime::NDArray& a, const std::string& vdevice) {
  OutputReport o;
  o.name = name;
  o.shape = a.shapeText();
  o.dims = a.shape;
  o.dtype = runtime::dtypeName(a.dtype);
  o.vdevice = vdevice;
  if (!runtime::isFloatDType(a.dtype)) {
    for (int64_t i = 0; i < std::min(a.numel(), kFirst); ++i)
      o.firstIntegers.push_back(a.dtype == runtime::DType::I64 ? static_cast<const int64_t*>(a.data())[i]
                                : a.dtype == runtime::DType::I32 ? static_cast<const int32_t*>(a.data())[i]
                                : a.dtype == runtime::DType::I8  ? static_cast<const int8_t*>(a.data())[i]
                                                                 : static_cast<const uint8_t*>(a.data())[i]);
    return o;
  }
  o.numeric = true;
  int64_t n = a.numel();
  auto at = [&](int64_t i) -> double {
    switch (a.dtype) {
      case runtime::DType::F32: return static_cast<const float*>(a.data())[i];
      case runtime::DType::F16: return runtime::halfToFloat(static_cast<const uint16_t*>(a.data())[i]);
      case runtime::DType::BF16: return runtime::bf16ToFloat(static_cast<const uint16_t*>(a.data())[i]);
      case runtime::DType::F8E4M3: case runtime::DType::F8E5M2: return runtime::fp8ToFloat(static_cast<const uint8_t*>(a.data())[i], a.dtype);
      default: return static_cast<const double*>(a.data())[i];
    }
  };
  o.min = INFINITY;
  o.max = -INFINITY;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = at(i);
    o.min = std::min(o.min, v);
    o.max = std::max(o.max, v);
    sum += v;
  }
  if (n == 0) o.min = o.max = 0;
  o.mean = n ? sum / static_cast<double>(n) : 0;
  for (int64_t i = 0; i < std::min(n, kFirst); ++i) o.first.push_back(at(i));
  o.histogram.assign(kHistogramBins, 0);
  double width = o.max - o.min;
  for (int64_t i = 0; i < n; ++i) {
    double v = at(i);
    if (!std::isfinite(v)) continue;
    int bin = width > 0 ? static_cast<int>((v - o.min) / width * kHistogramBins) : 0;
    ++o.histogram[static_cast<size_t>(std::clamp(bin, 0, kHistogramBins - 1))];
  }
  // Preview: the first matrix of the last two dims (a vector is one row), averaged in blocks.
  int64_t rows = a.shape.size() >= 2 ? a.shape[a.shape.size() - 2] : 1;
  int64_t cols = a.shape.empty() ? 1 : a.shape.back();
  if (rows > 0 && cols > 0 && n > 0) {
    o.previewRows = std::min(rows, kPreviewMax);
    o.previewCols = std::min(cols, kPreviewMax);
    o.preview.assign(static_cast<size_t>(o.previewRows * o.previewCols), 0.0);
    std::vector<int64_t> count(o.preview.size(), 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        size_t cell = static_cast<size_t>((r * o.previewRows / rows) * o.previewCols + c * o.previewCols / cols);
        o.preview[cell] += at(r * cols + c);
        ++count[cell];
      }
    for (size_t i = 0; i < o.preview.size(); ++i) o.preview[i] /= static_cast<double>(std::max<int64_t>(1, count[i]));
  }
  return o;
}

void addSpans(RunReport& r, const std::vector<runtime::TraceSpan>& spans, const std::vector<std::string>& slotNames) {
  std::map<std::pair<int, std::string>, size_t> index;
  for (auto& s : spans) {
    int toSlot = s.category == "copy" && s.destination >= 0 ? s.destination : s.slot;
    std::string to = toSlot >= 0 && static_cast<size_t>(toSlot) < slotNames.size() ? slotNames[static_cast<size_t>(toSlot)] : "?";
    if (s.category == "copy") {
      std::string from = s.name.rfind("copy from ", 0) == 0 ? s.name.substr(10) : s.name;
      r.copyList.push_back({from, to, s.bytes, s.durationUs / 1e3});
      r.copyMsTraced += s.durationUs / 1e3;
      continue;
    }
    auto [it, fresh] = index.try_emplace({s.slot, s.name}, r.kernels.size());
    if (fresh) r.kernels.push_back({s.slot, s.name, 0, 0});
    r.kernels[it->second].calls += 1;
    r.kernels[it->second].ms += s.durationUs / 1e3;
  }
  std::stable_sort(r.kernels.begin(), r.kernels.end(), [](auto& a, auto& b) { return a.ms > b.ms; });
  // How much of each copy ran while its device also ran a kernel (the copy engines at work beside
  // the compute stream, whose kernels never overlap each other): kernel spans per device by start.
  std::map<int, std::vector<std::pair<double, double>>> busy;
  for (auto& s : spans)
    if (s.category != "copy") busy[s.slot].push_back({s.startUs, s.startUs + s.durationUs});
  for (auto& [slot, intervals] : busy) std::sort(intervals.begin(), intervals.end());
  for (auto& s : spans) {
    if (s.category != "copy" || !busy.count(s.slot)) continue;
    const auto& intervals = busy[s.slot];
    double begin = s.startUs, end = s.startUs + s.durationUs;
    // The first kernel that ends after the copy begins: kernels start and end in order on their stream.
    auto it = std::lower_bound(intervals.begin(), intervals.end(), begin, [](const std::pair<double, double>& k, double t) { return k.second <= t; });
    for (; it != intervals.end() && it->first < end; ++it) r.copyMsOverlapped += (std::min(end, it->second) - std::max(begin, it->first)) / 1e3;
  }
}

void printText(std::ostream& os, const RunReport& r) {
  for (auto& o : r.outputs) {
    os << o.name << ": shape " << o.shape << ", " << o.dtype << ", on \"" << o.vdevice << "\"";
    if (o.numeric) {
      std::ostringstream s;
      s.precision(6);
      s << ": min " << o.min << ", max " << o.max << ", mean " << o.mean << ", first [";
      for (size_t i = 0; i < o.first.size(); ++i) s << (i ? ", " : "") << o.first[i];
      int64_t n = 1;
      for (auto d : o.dims) n *= d;
      s << (n > static_cast<int64_t>(o.first.size()) ? ", ...]" : "]");
      os << s.str();
    }
    if (!o.firstIntegers.empty()) {
      os << ": first [";
      for (size_t i = 0; i < o.firstIntegers.size(); ++i) os << (i ? ", " : "") << o.firstIntegers[i];
      int64_t n = 1;
      for (auto d : o.dims) n *= d;
      os << (n > static_cast<int64_t>(o.firstIntegers.size()) ? ", ...]" : "]");
    }
    os << "\n";
  }
  std::ostringstream t;
  t << std::fixed << std::setprecision(3) << "compile " << r.compileMs << " ms";
  if (r.kernelModulesCached + r.kernelModulesCompiled > 0) {  // compiled from source here (not a loaded .tvmx)
    t << " (codegen " << r.codegenMs << " ms";
    if (r.kernelModulesCached) t << ", " << r.kernelModulesCached << " kernel module" << (r.kernelModulesCached == 1 ? "" : "s") << " from the cache";
    if (r.kernelModulesCompiled) t << ", " << r.kernelModulesCompiled << " compiled";
    t << ")";
  }
  t << ", run " << r.runMs << " ms\n";
  for (auto& d : r.devices)
    t << "device " << d.index << " \"" << d.vdevice << "\" (" << d.device << "): " << d.kernels << " kernels, " << d.ms
      << " ms, peak memory " << humanBytes(d.peakBytes) << "\n";
  t << "copied between devices: " << r.bytesCopied << " bytes in " << r.copies << " copies, " << r.copyMs
    << " ms (inputs placed: " << r.inputBytesPlaced << " bytes)\n";
  // The heaviest kernels and the copies, each with its device and time (all of them in --format json).
  constexpr size_t kShown = 8;
  if (!r.kernels.empty()) {
    t << "kernels by time" << (r.tracedCalls > 1 ? " over " + std::to_string(r.tracedCalls) + " calls" : "") << ":\n";
    for (size_t i = 0; i < r.kernels.size() && i < kShown; ++i) {
      auto& k = r.kernels[i];
      std::string where = k.device >= 0 && static_cast<size_t>(k.device) < r.devices.size() ? r.devices[static_cast<size_t>(k.device)].vdevice : "?";
      t << "  " << k.name << " on \"" << where << "\": " << k.calls << (k.calls == 1 ? " call, " : " calls, ") << k.ms << " ms\n";
    }
    if (r.kernels.size() > kShown) t << "  ... and " << (r.kernels.size() - kShown) << " more\n";
  }
  for (size_t i = 0; i < r.copyList.size() && i < kShown; ++i) {
    auto& c = r.copyList[i];
    t << "  copy " << c.from << " -> \"" << c.to << "\": " << c.bytes << " bytes, " << c.ms << " ms\n";
  }
  if (r.copyList.size() > kShown) t << "  ... and " << (r.copyList.size() - kShown) << " more copies\n";
  if (r.copyMsOverlapped > 0)
    t << "copies overlapped with kernels on their device: " << r.copyMsOverlapped << " of " << r.copyMsTraced << " ms\n";
  if (!r.graphNote.empty()) t << "cuda graph: " << r.graphNote << "\n";
  if (r.repeat)
    t << "repeated " << r.repeat << " times: p50 " << r.p50Ms << " ms, p90 " << r.p90Ms << " ms, min " << r.minMs
      << " ms per call (device times above are per call; inputs placed on their devices once before them: "
      << r.inputBytesPlacedOnce << " bytes)\n";
  os << t.str();
}

void printJson(std::ostream& os, const RunReport& r) {
  using nlohmann::json;
  json outs = json::array();
  for (auto& o : r.outputs) {
    json j = {{"name", o.name}, {"shape", o.dims}, {"dtype", o.dtype}, {"vdevice", o.vdevice}};
    if (o.numeric) {
      j["min"] = o.min;
      j["max"] = o.max;
      j["mean"] = o.mean;
      j["first"] = o.first;
      j["histogram"] = o.histogram;
      // The bins' edges: bin i counts [edges[i], edges[i + 1]) (the last one includes max).
      std::vector<double> edges;
      for (size_t i = 0; i <= o.histogram.size(); ++i)
        edges.push_back(o.min + (o.max - o.min) * static_cast<double>(i) / static_cast<double>(std::max<size_t>(1, o.histogram.size())));
      j["histogramEdges"] = edges;
      j["preview"] = {{"rows", o.previewRows}, {"cols", o.previewCols}, {"values", o.preview}};
    }
    if (!o.npyPath.empty()) j["npy"] = o.npyPath;
    outs.push_back(std::move(j));
  }
  json devs = json::array();
  for (auto& d : r.devices) devs.push_back({{"index", d.index}, {"vdevice", d.vdevice}, {"device", d.device}, {"kernels", d.kernels}, {"ms", d.ms}, {"peakBytes", d.peakBytes}});
  json kernels = json::array(), copies = json::array();
  for (auto& k : r.kernels) kernels.push_back({{"device", k.device}, {"name", k.name}, {"calls", k.calls}, {"ms", k.ms}});
  for (auto& c : r.copyList) copies.push_back({{"from", c.from}, {"to", c.to}, {"bytes", c.bytes}, {"ms", c.ms}});
  std::ostringstream text;
  printText(text, r);
  // NaN and infinities are not JSON: a kernel that produced them still reports (as null).
  json out = {{"entry", r.entry}, {"outputs", outs}, {"devices", devs}, {"compileMs", r.compileMs}, {"runMs", r.runMs},
              {"codegenMs", r.codegenMs}, {"kernelCache", {{"hits", r.kernelModulesCached}, {"compiled", r.kernelModulesCompiled}}},
              {"bytesCopied", r.bytesCopied}, {"copies", r.copies}, {"copyMs", r.copyMs}, {"inputBytesPlaced", r.inputBytesPlaced},
              {"kernels", kernels}, {"copyList", copies}, {"tracedCalls", r.tracedCalls}, {"cudaGraph", r.graphNote},
              {"copyOverlap", {{"overlappedMs", r.copyMsOverlapped}, {"copyMs", r.copyMsTraced}}}, {"text", text.str()}};
  if (r.repeat) out["repeat"] = {{"calls", r.repeat}, {"p50Ms", r.p50Ms}, {"p90Ms", r.p90Ms}, {"minMs", r.minMs}, {"inputBytesPlacedOnce", r.inputBytesPlacedOnce}};
  os << out.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

bool writeChromeTrace(const std::string& path, const std::vector<runtime::TraceSpan>& spans, const std::vector<std::string>& deviceNames) {
  using nlohmann::json;
  json events = json::array();
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 0}, {"args", {{"name", "tvms run"}}}});
  for (size_t i = 0; i < deviceNames.size(); ++i)
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 0}, {"tid", i}, {"args", {{"name", "device " + std::to_string(i) + ": " + deviceNames[i]}}}});
  for (auto& s : spans) {
    json e = {{"ph", "X"}, {"name", s.name}, {"cat", s.category}, {"pid", 0}, {"tid", s.slot}, {"ts", s.startUs}, {"dur", s.durationUs}};
    if (s.bytes) e["args"] = {{"bytes", s.bytes}, {"GB/s", s.durationUs > 0 ? static_cast<double>(s.bytes) / s.durationUs / 1e3 : 0.0}};
    events.push_back(std::move(e));
  }
  std::ofstream out(path);
  out << json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump(1) << "\n";
  return static_cast<bool>(out);
}

}  // namespace tvms::cli
