#pragma once
// Literal values: op attributes, dict entries of I.module_attrs / R.func_attr, target configs.
// A Value is what a Python literal in TVMScript denotes, plus the few TVMScript objects that appear
// in attribute position (a vdevice, a device, a struct info, a symbolic expression).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tvms::ir {

struct StructInfo;
struct PrimExpr;
struct VDeviceRef;
using StructInfoPtr = std::shared_ptr<const StructInfo>;
using PrimExprPtr = std::shared_ptr<const PrimExpr>;

// A runtime device as written in R.hint_on_device: R.cpu(), R.cuda(1), R.device(2, 0), tvm.cuda(0).
struct DeviceHint {
  int deviceType = 1;  // DLPack code: cpu 1, cuda 2, opencl 4, vulkan 7, metal 8, rocm 10, webgpu 15, hexagon 16
  int index = 0;
  bool operator==(const DeviceHint&) const = default;
};

struct Value {
  enum class Kind { None, Bool, Int, Float, String, List, Dict, VDevice, Device, StructInfo, Prim, Opaque };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;        // String: the string; Opaque: the source text, kept verbatim
  bool isTuple = false;    // List: written with parentheses
  std::vector<Value> items;                          // List
  std::vector<std::pair<std::string, Value>> dict;   // Dict, string keys in written order
  std::shared_ptr<const VDeviceRef> vdevice;         // VDevice
  DeviceHint device;                                 // Device
  StructInfoPtr sinfo;                               // StructInfo
  PrimExprPtr prim;                                  // Prim

  // The special members and the helpers are defined after the class: instantiating std::pair<std::string,
  // Value> asks whether Value is default-constructible, which with implicit members would need the
  // destructor of `dict`, which needs that pair complete (a cycle clang rejects with libstdc++).
  Value();
  ~Value();
  Value(const Value&);
  Value(Value&&) noexcept;
  Value& operator=(const Value&);
  Value& operator=(Value&&) noexcept;
  static Value none();
  static Value ofBool(bool b);
  static Value ofInt(int64_t i);
  static Value ofFloat(double d);
  static Value ofString(std::string s);
  static Value ofOpaque(std::string s);
  static Value ofList(std::vector<Value> items, bool tuple = false);
  static Value ofDevice(DeviceHint d);
  static Value ofSInfo(StructInfoPtr s);
  static Value ofPrim(PrimExprPtr p);
  static Value ofVDevice(std::shared_ptr<const VDeviceRef> r);
  const Value* find(std::string_view key) const;
};

inline Value::Value() = default;
inline Value::~Value() = default;
inline Value::Value(const Value&) = default;
inline Value::Value(Value&&) noexcept = default;
inline Value& Value::operator=(const Value&) = default;
inline Value& Value::operator=(Value&&) noexcept = default;
inline Value Value::none() { return {}; }
inline Value Value::ofBool(bool b) { Value v; v.kind = Kind::Bool; v.boolean = b; return v; }
inline Value Value::ofInt(int64_t i) { Value v; v.kind = Kind::Int; v.integer = i; return v; }
inline Value Value::ofFloat(double d) { Value v; v.kind = Kind::Float; v.real = d; return v; }
inline Value Value::ofString(std::string s) { Value v; v.kind = Kind::String; v.text = std::move(s); return v; }
inline Value Value::ofOpaque(std::string s) { Value v; v.kind = Kind::Opaque; v.text = std::move(s); return v; }
inline Value Value::ofList(std::vector<Value> items, bool tuple) {
  Value v; v.kind = Kind::List; v.items = std::move(items); v.isTuple = tuple; return v;
}
inline Value Value::ofDevice(DeviceHint d) { Value v; v.kind = Kind::Device; v.device = d; return v; }
inline Value Value::ofSInfo(StructInfoPtr s) { Value v; v.kind = Kind::StructInfo; v.sinfo = std::move(s); return v; }
inline Value Value::ofPrim(PrimExprPtr p) { Value v; v.kind = Kind::Prim; v.prim = std::move(p); return v; }
inline Value Value::ofVDevice(std::shared_ptr<const VDeviceRef> r) { Value v; v.kind = Kind::VDevice; v.vdevice = std::move(r); return v; }
inline const Value* Value::find(std::string_view key) const {
  for (auto& [k, v] : dict) if (k == key) return &v;
  return nullptr;
}

using AttrList = std::vector<std::pair<std::string, Value>>;

}  // namespace tvms::ir
