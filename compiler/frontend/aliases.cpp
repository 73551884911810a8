#include "compiler/frontend/aliases.h"

namespace tvms::frontend {

std::string normalizeTvmPath(std::string p) {
  struct Rule { const char* from; const char* to; };
  static const Rule rules[] = {
      {"tvm.script.parser.ir_module", "I.ir_module"}, {"tvm.script.ir_module", "I.ir_module"},
      {"tvm.script.parser.relax", "R"},               {"tvm.script.parser.tirx", "T"},
      {"tvm.script.parser.tir", "T"},                 {"tvm.script.parser.ir", "I"},
      {"tvm.script.relax", "R"},                      {"tvm.script.tirx", "T"},
      {"tvm.script.tir", "T"},                        {"tvm.script.ir", "I"},
      {"tvm.relax.script.ir_builder", "R"},  // the builder API's own module: R.emit, R.arg_, and the ops
      // The Python API's spellings of the same ops and values (`relax.op.add(x, y)`, `relax.const(1.0)`).
      {"tvm.relax.op", "R"},                          {"tvm.relax.const", "R.const"},
      {"tvm.relax.ExternFunc", "R.ExternFunc"},       {"tvm.relax.ShapeExpr", "R.ShapeExpr"},
      {"tvm.relax.TupleGetItem", "R.TupleGetItem"},   {"tvm.relax.Tuple", "R.tuple"},
      // The struct info classes of the Python API, as R.Tensor(shape, dtype, vdevice, ndim) and friends.
      // (TVM's newer names for them are the *Type classes.)
      {"tvm.relax.TensorStructInfo", "R.Tensor"},     {"tvm.relax.ShapeStructInfo", "R.Shape"},
      {"tvm.relax.ObjectStructInfo", "R.Object"},     {"tvm.relax.PrimStructInfo", "R.Prim"},
      {"tvm.relax.TupleStructInfo", "R.Tuple"},       {"tvm.relax.TensorType", "R.Tensor"},
      {"tvm.relax.ShapeType", "R.Shape"},             {"tvm.relax.ObjectType", "R.Object"},
      {"tvm.relax.TupleType", "R.Tuple"},
      // relax.call_tir and friends, re-exported at the top of tvm.relax
      {"tvm.relax.call_tir", "R.call_tir"},           {"tvm.relax.call_tir_inplace", "R.call_tir_inplace"},
      {"tvm.relax.call_dps_packed", "R.call_dps_packed"}, {"tvm.relax.call_pure_packed", "R.call_pure_packed"},
  };
  for (auto& r : rules) {
    std::string_view from = r.from;
    if (p.rfind(from, 0) == 0 && (p.size() == from.size() || p[from.size()] == '.'))
      return std::string(r.to) + p.substr(from.size());
  }
  return p;
}

void Aliases::addImport(const syntax::Document& doc, TSNode stmt) {
  ++version_;
  std::string_view type = typeOf(stmt);
  if (type == "future_import_statement") {
    for (TSNode c : namedChildren(stmt))
      if (doc.nodeText(c) == "annotations") {
        futureAnnotations_ = true;
        futureRange_ = rangeOf(stmt);
      }
    return;
  }
  auto addName = [&](TSNode item, const std::string& prefix) {
    // item: dotted_name or aliased_import
    if (isType(item, "aliased_import")) {
      std::string name = dottedName(doc, field(item, "name"));
      if (name.empty()) name = std::string(doc.nodeText(field(item, "name")));
      std::string alias(doc.nodeText(field(item, "alias")));
      map_[alias] = normalizeTvmPath(prefix.empty() ? name : prefix + "." + name);
    } else {
      std::string name(doc.nodeText(item));
      if (prefix.empty()) {
        // `import tvm.script` binds `tvm`
        std::string head = name.substr(0, name.find('.'));
        map_[head] = head;
      } else {
        map_[name] = normalizeTvmPath(prefix + "." + name);
      }
    }
  };
  if (type == "import_statement") {
    for (TSNode c : namedChildren(stmt)) {
      TSNode bound = isType(c, "aliased_import") ? field(c, "alias") : c;
      std::string b(doc.nodeText(bound));
      pythonNames_.insert(b.substr(0, b.find('.')));
      std::string text(doc.nodeText(isType(c, "aliased_import") ? field(c, "name") : c));
      if (text == "tvm" || text.rfind("tvm.", 0) == 0) addName(c, "");
    }
  } else if (type == "import_from_statement") {
    TSNode module = field(stmt, "module_name");
    std::string from(doc.nodeText(module));
    if (from != "tvm" && from.rfind("tvm.", 0) != 0) {
      // Names imported from elsewhere shadow the conventional R / I / T.
      for (TSNode c : namedChildren(stmt)) {
        if (ts_node_eq(c, module)) continue;
        TSNode bound = isType(c, "aliased_import") ? field(c, "alias") : c;
        map_[std::string(doc.nodeText(bound))] = "";
      }
      return;
    }
    for (TSNode c : namedChildren(stmt)) {
      if (ts_node_eq(c, module)) continue;
      addName(c, from);
    }
  }
}

void Aliases::noteUse(const std::string& head, ByteRange where) const {
  if (!implicit_.count(head)) implicit_[head] = where;
}

std::string Aliases::canonical(const std::string& dotted) const {
  if (dotted.empty()) return "";
  size_t dot = dotted.find('.');
  std::string head = dotted.substr(0, dot);
  std::string rest = dot == std::string::npos ? "" : dotted.substr(dot);
  auto it = map_.find(head);
  if (it != map_.end()) {
    if (it->second.empty()) return "";  // bound by a non-tvm import
    std::string full = normalizeTvmPath(it->second + rest);
    return full;
  }
  if (head == "R" || head == "I" || head == "T") return dotted;  // conventional meaning (TVS010 by caller)
  return "";
}

}  // namespace tvms::frontend
