#pragma once
// Internal to the frontend: the CST walker that builds one Region's IR. Split over lower_module.cpp
// (module and function structure), lower_body.cpp (statements), lower_expr.cpp (expressions and op
// calls through the registry), lower_sinfo.cpp (annotations, literals, vdevices).
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "compiler/frontend/aliases.h"
#include "compiler/frontend/cst.h"
#include "compiler/frontend/frontend.h"
#include "compiler/frontend/python_value.h"
#include "compiler/op/registry.h"

namespace tvms::frontend {

class PythonEvaluator;

// Source lines of `body`, each with up to `column` leading spaces removed, trailing blank lines dropped:
// text kept verbatim (prim_func bodies, nested @R.function closures) and re-indented when printed.
std::vector<std::string> dedentedLines(std::string_view body, uint32_t column);

class Lowerer {
 public:
  Lowerer(const syntax::Document& doc, const Aliases& aliases, Region& region);

  void lowerModuleClass(TSNode decorated, TSNode classDef, ir::AttrList decoratorArgs);
  void lowerStandalone(TSNode decorated, TSNode def, const std::string& decorator, ir::AttrList decoratorArgs);
  // Re-lowers one function of an already lowered module in place.
  bool relower(TSNode decorated, size_t index);
  // Lowers `statements` of the module's class body (Document::statementsOf's nodes), each a function,
  // appending them to the region's functions and the module's; `names` are the functions they define
  // (with the region's functions, what `cls.name` resolves against). False when one is not a function.
  bool lowerMembers(const std::vector<TSNode>& statements, const std::set<std::string>& names);
  void finish();  // comments -> trivia, after everything is lowered
  // Module functions this lowering does not see but which exist (error recovery lowers functions one
  // at a time: `cls.other` must still resolve). The set is the caller's and must outlive the lowering.
  void declareGlobals(const std::set<std::string>* names) { externalGlobals_ = names; }
  // Whether `cls.name` names a function (or module binding) of the module: the names this lowering
  // declared, the caller's, and the region's and module's as they stand (scanned: `cls.name` uses are
  // few, and copying ~500 names into a set per keystroke cost more than every scan together).
  bool isGlobal(const std::string& name) const;

  // Decorator helpers shared with region discovery.
  ir::AttrList decoratorArgs(TSNode decoratorCall);

  // ---- Python values (python_eval.h): names the program binds, read where TVMScript uses them, and
  // the builder programs (builder_program.cpp), whose Python drives this lowering.
  void setPython(PythonEvaluator* python) { python_ = python; }
  // Vdevice uses made from Python objects: a builder program's module gets its vdevice list after its
  // functions are built, so their identity is settled then (resolvePythonVDevices).
  const std::vector<std::shared_ptr<ir::VDeviceRef>>& pythonVDeviceRefs() const { return pythonRefs_; }
  ir::ExprPtr lowerBuilderExpr(TSNode n) { return lowerExpr(n); }
  ir::StructInfoPtr lowerBuilderSInfo(TSNode n) { return lowerSInfo(n); }
  void enterBuilderFunction(ir::Function* fn) {
    currentFunction_ = fn;
    scopes_.assign(1, {});
    symbolic_.clear();
  }
  void defineBuilderName(TSNode n, const std::string& name, const ir::Var* v) { defineName(NameRef::Kind::Var, n, name, v); }
  void useBuilderName(TSNode n, const std::string& name, const ir::Var* v) { useName(NameRef::Kind::Var, n, name, v); }
  void noteNotChecked(TSNode n, const std::string& what) { notChecked(n, what); }

 private:
  friend struct BodyBuilder;
  // ---- module and functions (lower_module.cpp)
  struct FunctionNode {
    TSNode decorated, def;
    std::string kind;  // "R.function" / "T.prim_func"
    ir::AttrList args;
    TSNode decoratorExpr;  // the decorator's expression (a call when it has arguments)
  };
  std::optional<FunctionNode> functionNode(TSNode stmt);
  std::optional<FunctionNode> tvmscriptDecorator(TSNode stmt);
  ir::ModuleFunction lowerFunctionNode(const FunctionNode& f);
  ir::FunctionPtr lowerRelaxFunction(const FunctionNode& f);
  ir::PrimFuncPtr lowerPrimFunc(const FunctionNode& f);
  std::optional<ir::TirParam> lowerPrimFuncParam(TSNode p);
  void recordPrimFuncOutline(const std::vector<TSNode>& stmts, ir::PrimFunc& pf);
  void readPrimFuncBody(const FunctionNode& f, ir::PrimFunc& pf);
  void lowerModuleStatement(TSNode stmt);
  void reportSyntaxErrors(TSNode scope, ByteRange where);
  std::string brokenFunctionName(ByteRange range);

  // ---- statements (lower_body.cpp)
  ir::SeqExprPtr lowerBody(TSNode block, ir::Function& fn);
  void lowerParameters(TSNode params, ir::Function& fn);

  // ---- expressions (lower_expr.cpp)
  ir::ExprPtr lowerExpr(TSNode n);
  ir::ExprPtr lowerLenient(TSNode n);  // arguments of unmodelled ops: anything, opaque when not Relax
  ir::ExprPtr lowerCall(TSNode n);
  std::optional<ir::ExprPtr> lowerValueConstructor(const std::string& name, TSNode n, TSNode args);
  ir::ExprPtr lowerOpCall(const op::OpDef& def, TSNode call, TSNode args);
  ir::ExprPtr lowerUnmodelledCall(const std::string& opName, TSNode args);
  ir::ExprPtr lowerLinear(TSNode call, TSNode args);
  ir::ExprPtr lowerOperator(TSNode n);
  ir::ExprPtr argumentForKind(const op::Param& p, TSNode arg);
  std::optional<ir::Value> symbolicIntValue(TSNode arg, bool list);
  std::optional<ir::Value> attributeForKind(const op::Param& p, TSNode arg, const op::OpDef& def);
  ir::ExprPtr useOfName(TSNode ident);
  ir::ExprPtr opaque(TSNode n);

  // ---- annotations, literals, vdevices (lower_sinfo.cpp)
  ir::StructInfoPtr lowerSInfo(TSNode n);
  ir::StructInfoPtr lowerTensorSInfo(TSNode args);
  // The arguments of a call matched to its parameters `names` (positional, then keywords), null where
  // absent; unknown keywords and extra arguments are TVS005 naming `callName`.
  std::vector<TSNode> matchArguments(TSNode args, const std::vector<std::string>& names, const std::string& callName);
  std::optional<std::vector<ir::PrimExprPtr>> lowerShapeDims(TSNode n);
  std::optional<std::vector<ir::PrimExprPtr>> lowerBufferShape(TSNode n);
  ir::PrimExprPtr lowerDim(TSNode n);
  ir::PrimExprPtr parseDimString(std::string_view text, ByteRange where);
  std::optional<ir::Value> literal(TSNode n);
  ir::Value literalOrOpaque(TSNode n);
  std::shared_ptr<ir::VDevice> lowerVDeviceDecl(TSNode call);
  std::shared_ptr<const ir::VDeviceRef> lowerVDeviceUse(TSNode n);
  std::optional<ir::DeviceHint> lowerDevice(TSNode n);

  // ---- shared
  std::string canonicalName(TSNode n);  // canonical dotted name of an attribute chain / identifier
  std::string dottedNameOf(TSNode n);   // dottedName(doc_, n), from the same one-node memo
  void report(diag::Code code, ByteRange range, std::string message);
  void reportUnsupported(TSNode n, const std::string& what);
  void notChecked(TSNode n, const std::string& what);  // TVS011, once per construct
  // A Python name of the enclosing scope used in TVMScript (`dtype`, `shape`): TVM evaluates it; tvms
  // marks the function unchecked (TVS011). True when `n` is, or holds, such a name.
  bool capturedPython(TSNode n);
  // The value of a Python expression TVMScript reads (`shape`, `vdevice[1]`, `n * 2`), when the
  // evaluator knows it and no TVMScript name shadows it.
  std::optional<PyValue> pythonValue(TSNode n);
  std::optional<std::string> stringValue(TSNode n);  // a string literal, or a Python string value
  std::shared_ptr<const ir::VDeviceRef> pythonVDeviceUse(const PyValue& v, TSNode n);
 public:
  void declarePythonVDevices(const PyValue& list, TSNode where);
 private:
  void operandAt(const void* parent, size_t index, TSNode n) {
    region_.map.operands.set({parent, static_cast<uint32_t>(index)}, rangeOf(n));
  }
  void anchor(const void* key, TSNode n) { anchor(key, rangeOf(n)); }
  void anchor(const void* key, ByteRange r) {
    if (forEditors_) anchors_.push_back({key, r});
  }
  void anchorDecorators(const void* key, TSNode decorated);
  void lowerMember(const FunctionNode& f, const std::string& name);
  void lowerBrokenMember(const syntax::Document::BrokenIsland& b);
  void reportBrokenIsland(const syntax::Document::BrokenIsland& b);
  std::map<size_t, std::optional<syntax::Document::BrokenIsland>> misindentedFunctions(const std::vector<TSNode>& statements);
  void defineName(NameRef::Kind k, TSNode n, const std::string& name, const void* target);
  void useName(NameRef::Kind k, TSNode n, const std::string& name, const void* target);
  std::string text(TSNode n) const { return std::string(doc_.nodeText(n)); }

  struct DepthGuard {
    Lowerer& l;
    explicit DepthGuard(Lowerer& x) : l(x) { ++l.depth_; }
    ~DepthGuard() { --l.depth_; }
  };
  static constexpr int kMaxDepth = 150;

  const syntax::Document& doc_;
  // Whether to keep what only editors and the formatter read (name references, comment anchors): not
  // for a document read by function, which a one-shot lint reads once (a fifth of its memory).
  const bool forEditors_;
  const Aliases& aliases_;
  Region& region_;
  ir::IRModule& mod_;
  std::set<std::string> globalNames_;
  const std::set<std::string>* externalGlobals_ = nullptr;
  // The last node whose names were asked for, and its dotted and canonical names: a statement's
  // callee is asked for by the statement's checks and again by the call's lowering (a third of a
  // lowering's name work). Keyed by the node's tree, subtree and bytes, so a freed tree's node at a
  // reused address never matches another function's, and good for the aliases' version below (they
  // do not change while a class is lowered; the version says so if they ever do).
  struct NamesOfNode {
    const void* tree = nullptr;
    const void* id = nullptr;
    uint32_t begin = 0, end = 0;
    std::string dotted, canonical;
  } lastNames_;
  const NamesOfNode& namesOf(TSNode n);
  // Aliases::canonical's answers by dotted name (each rewrites its prefix through ~30 long spellings),
  // for the aliases' version they were given for.
  std::unordered_map<std::string, std::string> canonicalOf_;
  uint64_t canonicalVersion_ = 0;
  std::string className_;
  bool globalInfosSeen_ = false, attrsSeen_ = false;
  ByteRange globalInfosRange_, attrsRange_;

  // per function
  std::vector<std::unordered_map<std::string, ir::VarPtr>> scopes_;
  std::unordered_map<std::string, ByteRange> expiredDataflow_;  // name -> its dataflow block
  std::set<std::string> symbolic_;
  std::set<std::string> moduleAliases_;  // `cls = Module` binds cls to the module
  ir::Function* currentFunction_ = nullptr;
  bool isModuleName(const std::string& head) const {
    return !mod_.standalone && (head == "cls" || head == className_ || moduleAliases_.count(head));
  }
  bool inSignature_ = false;
  int depth_ = 0;

  struct Anchor {
    const void* key;
    ByteRange range;
  };
  std::vector<Anchor> anchors_;
  std::vector<ByteRange> verbatim_;
  std::set<std::string> notedConstructs_;
  PythonEvaluator* python_ = nullptr;
  std::vector<std::shared_ptr<ir::VDeviceRef>> pythonRefs_;
};

}  // namespace tvms::frontend
