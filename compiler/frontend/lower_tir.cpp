// The TIR reader (lower_tir.h): a T.prim_func's CST -> tir::Kernel.
#include "compiler/frontend/lower_tir.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "compiler/frontend/cst.h"
#include "compiler/tir/compact.h"
#include "compiler/tir/rewrite.h"

namespace tvms::frontend {

namespace {

using tir::ExprP;
using tir::ScalarType;
using tir::StmtP;

// A construct the reader does not take: unwinds to readPrimFunc, which says where.
// With a code: a mistake TVM rejects too, reported by lint.
struct NotRead : std::runtime_error {
  NotRead(TSNode at, const std::string& what, std::optional<diag::Code> c = std::nullopt) : std::runtime_error(what), node(at), code(c) {}
  TSNode node;
  std::optional<diag::Code> code;
};

struct BufferInfo {
  int id = -1;
  int symbol = -1;  // its ir::TirSymbol (hover, definition)
  ScalarType type = ScalarType::F32;
  std::vector<ExprP> shape;
  std::vector<ExprP> declared;  // the shape as written, where compaction changed `shape` (TVS407 checks it)
};

const std::map<std::string, tir::UnOp>& unaryIntrinsics() {
  using U = tir::UnOp;
  static const std::map<std::string, U> m = {
      {"T.exp", U::Exp},   {"T.log", U::Log},     {"T.sqrt", U::Sqrt},   {"T.rsqrt", U::Rsqrt}, {"T.tanh", U::Tanh},
      {"T.sigmoid", U::Sigmoid}, {"T.erf", U::Erf}, {"T.floor", U::Floor}, {"T.ceil", U::Ceil}, {"T.round", U::Round},
      {"T.nearbyint", U::Round}, {"T.trunc", U::Trunc}, {"T.sin", U::Sin}, {"T.cos", U::Cos}, {"T.tan", U::Tan},
      {"T.asin", U::Asin}, {"T.acos", U::Acos}, {"T.atan", U::Atan}, {"T.sinh", U::Sinh}, {"T.cosh", U::Cosh},
      {"T.asinh", U::Asinh}, {"T.acosh", U::Acosh}, {"T.atanh", U::Atanh}, {"T.fabs", U::Abs}, {"T.abs", U::Abs}};
  return m;
}

const std::map<std::string, tir::BinOp>& binaryIntrinsics() {
  using B = tir::BinOp;
  static const std::map<std::string, B> m = {{"T.max", B::Max},           {"T.min", B::Min},           {"T.floordiv", B::FloorDiv},
                                             {"T.floormod", B::FloorMod}, {"T.truncdiv", B::Div},      {"T.truncmod", B::Mod},
                                             {"T.mod", B::Mod},           {"T.bitwise_and", B::And},   {"T.bitwise_or", B::Or},
                                             {"T.bitwise_xor", B::Xor},   {"T.shift_left", B::Shl},    {"T.shift_right", B::Shr},
                                             {"T.pow", B::Pow},           {"T.atan2", B::Atan2}};
  return m;
}

bool isInt(ScalarType t) { return !tir::isFloat(t) && t != ScalarType::Bool; }
int bits(ScalarType t) { return static_cast<int>(runtime::dtypeBytes(t)) * 8; }

class Reader {
 public:
  Reader(const syntax::Document& doc, const std::function<std::string(TSNode)>& canon, const std::function<bool(const std::string&)>& isPython,
         const PythonNumbers& pythonNumber)
      : doc_(doc), canon_(canon), isPython_(isPython), pythonNumber_(pythonNumber), kb_("") {}

  tir::Kernel read(TSNode def) {
    TSNode body = field(def, "body");
    std::vector<TSNode> stmts = namedChildren(body);
    collectSymbols(stmts);
    readParams(field(def, "parameters"), stmts);
    std::vector<StmtP> out = block(stmts);
    for (auto& s : out) kb_.add(s);
    tir::Kernel k = kb_.take();
    k.dimSources = dimSources_;
    k.signature = signature_;
    k.scheduledByAuthor = userScheduled_;
    k.workspaces = workspaces_;
    tir::orderParamsFirst(k);  // workspaces are parameters, declared among the local arrays
    return k;
  }

  std::vector<std::shared_ptr<const ir::TirSymbol>> symbols() const { return symbolList_; }
  std::vector<TirRead::Name> names() const { return names_; }
  std::vector<diag::Diagnostic> findings() const { return findings_; }

  // Compaction of local and shared arrays (tir/compact.h) takes two readings: the first records each
  // array's accesses, with their loops, and sizes nothing; the second reads with the regions found.
  using Regions = std::map<std::string, tir::CompactedRegion>;
  void recordAccesses() { recording_ = true; }
  void compactWith(Regions regions) { compacted_ = std::move(regions); }
  bool hasLocalArrays() const { return !localArrays_.empty(); }
  Regions regions() const {
    Regions out;
    for (auto& [name, shared] : localArrays_) {
      auto it = accesses_.find(name);
      if (it == accesses_.end()) continue;
      if (auto region = tir::compactRegion(it->second, loopInfo_, shared)) out[name] = *region;
    }
    return out;
  }

 private:
  std::string text(TSNode n) const { return std::string(doc_.slice(rangeOf(n))); }
  // The canonical dotted name ("T.grid"), or the text itself for a plain name (range).
  std::string name(TSNode n) const {
    std::string s = canon_(n);
    return s.empty() ? text(n) : s;
  }
  [[noreturn]] void fail(TSNode at, const std::string& what) const { throw NotRead(at, what); }
  [[noreturn]] void mistake(TSNode at, diag::Code code, const std::string& what) const { throw NotRead(at, what, code); }

  // A name's definition (a new symbol with what hover says of it) and its uses.
  int define(TSNode at, ir::TirSymbol::Kind kind, const std::string& detail) {
    auto sym = std::make_shared<ir::TirSymbol>();
    sym->kind = kind;
    sym->name = text(at);
    sym->detail = detail;
    symbolList_.push_back(sym);
    names_.push_back({rangeOf(at), symbolList_.size() - 1, true});
    return static_cast<int>(symbolList_.size()) - 1;
  }
  void use(TSNode at, int symbol) {
    if (symbol >= 0) names_.push_back({rangeOf(at), static_cast<size_t>(symbol), false});
  }
  std::string bufferDetail(const std::string& name, const BufferInfo& b, const std::vector<std::string>& shape, std::string_view scope,
                           const std::string& role) const {
    std::string dims;
    for (auto& d : shape) dims += (dims.empty() ? "" : ", ") + d;
    if (shape.size() == 1) dims += ",";
    return name + ": T.Buffer((" + dims + "), \"" + std::string(runtime::dtypeName(b.type)) + "\"" +
           (scope == "global" ? std::string() : ", scope=\"" + std::string(scope) + "\"") + ")  # " + role;
  }
  // The i-th named child, which the grammar promises but a broken text may lack.
  TSNode child(TSNode n, size_t i) const {
    auto kids = namedChildren(n);
    if (i >= kids.size()) fail(n, "the incomplete statement " + text(n));
    return kids[i];
  }
  // Recursion over the CST is bounded, as the frontend's is: a deeper nest is not read (no stack overflow).
  struct Depth {
    explicit Depth(Reader& r, TSNode at) : r_(r) {
      if (++r_.depth_ > kMaxDepth) r_.fail(at, "statements or expressions nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    ~Depth() { --r_.depth_; }
    Reader& r_;
  };
  static constexpr int kMaxDepth = 150;
  static constexpr int64_t kMaxAllocationBytes = 1 << 20;
  int depth_ = 0;

  ScalarType dtype(TSNode n) const {
    auto s = stringLiteral(doc_, n);
    if (!s) fail(n, "a dtype here is a string such as \"float32\"");
    auto t = tir::scalarTypeOf(*s);
    if (!t) fail(n, "dtype \"" + *s + "\" has no kernels in tvms");
    return *t;
  }

  // `n = T.int64()` / `n, c = T.int64(), T.int64()`: the function's symbolic dims, declared before use in shapes.
  void collectSymbols(const std::vector<TSNode>& stmts) {
    for (TSNode st : stmts) {
      TSNode e = isType(st, "expression_statement") && !namedChildren(st).empty() ? namedChildren(st)[0] : TSNode{};
      if (!isType(e, "assignment")) continue;
      for (auto& s : symbolicVariablesDeclared(doc_, e, canon_)) symbols_.insert(s);
    }
  }

  // Parameters in order: T.Buffer(...) directly, or a T.handle matched in the body by
  // `X = T.match_buffer(handle, shape, dtype)`. Each is a kernel buffer of its position.
  void readParams(TSNode params, const std::vector<TSNode>& stmts) {
    std::map<std::string, TSNode> matched;  // handle -> the match_buffer call
    std::map<std::string, std::string> matchedName;
    std::map<std::string, TSNode> matchedLeft;
    for (TSNode st : stmts) {
      TSNode e = isType(st, "expression_statement") && !namedChildren(st).empty() ? namedChildren(st)[0] : TSNode{};
      if (!isType(e, "assignment")) continue;
      TSNode rhs = field(e, "right");
      if (!isType(rhs, "call") || name(field(rhs, "function")) != "T.match_buffer") continue;
      auto args = namedChildren(field(rhs, "arguments"));
      if (args.empty()) fail(rhs, "T.match_buffer needs the handle");
      matched[text(args[0])] = rhs;
      matchedName[text(args[0])] = text(field(e, "left"));
      matchedLeft[text(args[0])] = field(e, "left");
    }
    std::vector<TSNode> list = namedChildren(params);
    std::vector<tir::Kernel::Param> signature(list.size());
    // Integer scalars first (`m: T.int64`): a dim each, which a buffer before them may be shaped by.
    for (size_t position = 0; position < list.size(); ++position) {
      TSNode p = list[position];
      if (!isType(p, "typed_parameter")) fail(p, "a T.prim_func parameter needs an annotation");
      TSNode type = field(p, "type");
      TSNode ann = namedChildren(type).empty() ? type : namedChildren(type)[0];
      std::string head = name(ann);
      auto t = head.rfind("T.", 0) == 0 ? tir::scalarTypeOf(head.substr(2)) : std::nullopt;
      if (!t) continue;
      std::string pname = text(child(p, 0));
      if (tir::isFloat(*t)) {  // its value's float64 bits in the dims argument
        ExprP bits = kb_.dim(pname);
        floatScalars_[pname] = {tir::cast(*t, tir::reinterpret(ScalarType::F64, bits)),
                                define(child(p, 0), ir::TirSymbol::Kind::Variable, pname + ": " + text(type) + "  # scalar parameter")};
        signature[position] = {true, static_cast<int>(dimSources_.size()), true};
        dimSources_.push_back({static_cast<int>(position), -1});
        continue;
      }
      if (!isInt(*t)) fail(p, "parameter '" + pname + "' (" + text(type) + "): a scalar parameter of this type");
      symbols_.insert(pname);
      dimSeen_.insert(pname);
      kb_.dim(pname);
      dimSymbols_[pname] = define(child(p, 0), ir::TirSymbol::Kind::Variable, pname + ": " + text(type) + "  # scalar parameter");
      signature[position] = {true, static_cast<int>(dimSources_.size())};
      dimSources_.push_back({static_cast<int>(position), -1});
    }
    for (size_t position = 0; position < list.size(); ++position) {
      if (signature[position].scalar) continue;
      TSNode p = list[position];
      std::string pname = text(child(p, 0));
      TSNode type = field(p, "type");
      TSNode ann = namedChildren(type).empty() ? type : namedChildren(type)[0];
      // T.Buffer((2, 3), "float32"), or TVM's older subscript spelling T.Buffer[(2, 3), "float32"]
      // (its shape and dtype after the subscripted name).
      bool subscript = isType(ann, "subscript");
      std::string head = name(isType(ann, "call") ? field(ann, "function") : subscript ? field(ann, "value") : ann);
      if (head == "T.Buffer" && (isType(ann, "call") || subscript)) {
        declareParam(pname, child(p, 0), subscript ? ann : field(ann, "arguments"), static_cast<int>(position), subscript ? 1 : 0);
      } else if (head == "T.handle") {
        handles_.insert(pname);
        auto it = matched.find(pname);
        if (it == matched.end()) fail(p, "handle '" + pname + "' is never matched to a buffer (T.match_buffer)");
        declareParam(matchedName[pname], matchedLeft[pname], field(it->second, "arguments"), static_cast<int>(position), 1);
      } else {
        fail(p, "parameter '" + pname + "' (" + text(type) + "): tvms compiles buffer and integer parameters");
      }
      signature[position] = {false, buffers_[head == "T.handle" ? matchedName[pname] : pname].id};
    }
    signature_ = signature;
  }

  // shape, dtype (positional from `first`, or shape= / dtype=), the rest ignored (strides: contiguous).
  // `position`: the parameter's place in the prim_func's signature (a dim its shape binds records it).
  void declareParam(const std::string& pname, TSNode nameNode, TSNode arguments, int position, size_t first = 0) {
    // Strides, offsets and the like are not read: tvms compiles contiguous buffers.
    auto args = bufferArguments(arguments, {"shape", "dtype"}, {"shape", "dtype", "strides", "elem_offset", "align", "offset_factor", "scope", "buffer_type"}, first);
    contiguousOnly(args, pname);
    TSNode shape = argument(args, "shape"), type = argument(args, "dtype");
    if (ts_node_is_null(shape)) fail(arguments, "buffer '" + pname + "' needs a shape");
    BufferInfo b;
    b.type = ts_node_is_null(type) ? ScalarType::F32 : dtype(type);
    std::vector<std::string> printed;
    int paramIndex = position;
    std::vector<TSNode> dims = isType(shape, "tuple") || isType(shape, "list") ? namedChildren(shape) : std::vector<TSNode>{shape};
    for (size_t axis = 0; axis < dims.size(); ++axis) {
      TSNode d = dims[axis];
      if (auto v = staticExtent(d)) {
        b.shape.push_back(tir::intImm(*v));
      } else if (isType(d, "identifier") && symbols_.count(text(d))) {
        std::string dim = text(d);
        if (!dimSeen_.count(dim)) {
          dimSeen_.insert(dim);
          dimSources_.push_back({paramIndex, static_cast<int>(axis)});
        }
        b.shape.push_back(kb_.dim(dim));
      } else {
        b.shape.push_back(index(d));  // an expression of dims earlier parameters bind (w - kw + 1)
      }
      printed.push_back(text(d));
    }
    b.id = kb_.param(pname, b.type, printed);
    b.symbol = define(nameNode, ir::TirSymbol::Kind::Buffer, bufferDetail(pname, b, printed, "global", "parameter"));
    buffers_[pname] = b;
  }

  // What a parameter's declaration may say of its layout beyond the shape: tvms passes every tensor
  // compact and row-major in global memory, so strides must be those (or not given), the offset 0
  // and the scope global; alignment and offset factors hold for its allocations and are not read.
  void contiguousOnly(const std::map<std::string, TSNode>& args, const std::string& pname) const {
    TSNode offset = argument(args, "elem_offset"), scope = argument(args, "scope"), strides = argument(args, "strides");
    TSNode shape = argument(args, "shape"), kind = argument(args, "buffer_type");
    if (!ts_node_is_null(offset) && staticExtent(offset) != std::optional<int64_t>(0)) fail(offset, "buffer '" + pname + "' at an element offset");
    if (!ts_node_is_null(scope) && stringLiteral(doc_, scope) != std::optional<std::string>("global")) fail(scope, "a parameter in memory scope " + text(scope));
    if (!ts_node_is_null(kind) && stringLiteral(doc_, kind) != std::optional<std::string>("default")) fail(kind, "a buffer of type " + text(kind));
    if (ts_node_is_null(strides) || ts_node_is_null(shape)) return;
    auto list = [&](TSNode t) { return isType(t, "tuple") || isType(t, "list") ? namedChildren(t) : std::vector<TSNode>{t}; };
    std::vector<TSNode> dims = list(shape), steps = list(strides);
    if (steps.empty()) return;  // strides=(): compact
    bool compact = steps.size() == dims.size();
    std::string expect = "1";
    for (size_t i = dims.size(); compact && i-- > 0;) {
      auto step = staticExtent(steps[i]);
      std::string written = step ? std::to_string(*step) : text(steps[i]);
      compact = written == expect;
      auto extent = staticExtent(dims[i]);
      if (expect == "1") expect = extent ? std::to_string(*extent) : text(dims[i]);
      else if (extent && std::all_of(expect.begin(), expect.end(), ::isdigit)) expect = std::to_string(std::stoll(expect) * *extent);
      else expect = expect + " * " + (extent ? std::to_string(*extent) : text(dims[i]));
    }
    if (!compact) fail(strides, "buffer '" + pname + "' with strides " + text(strides) + " (tvms passes compact row-major tensors)");
  }

  // 4, or T.int64(4) / T.int32(4) as TVM's printer writes shapes; nullopt for anything else.
  std::optional<int64_t> staticExtent(TSNode d) const {
    if (auto v = integerLiteral(doc_, d)) return v;
    if (!isType(d, "call")) return std::nullopt;
    std::string callee = name(field(d, "function"));
    auto args = namedChildren(field(d, "arguments"));
    if ((callee == "T.int64" || callee == "T.int32") && args.size() == 1) return integerLiteral(doc_, args[0]);
    return std::nullopt;
  }

  // ---- statements ----

  std::vector<StmtP> block(const std::vector<TSNode>& stmts) {
    std::vector<StmtP> out;
    scopes_.emplace_back();
    for (size_t i = 0; i < stmts.size(); ++i) {
      TSNode st = stmts[i];
      if (isWhere(st)) {  // T.where(cond): the rest of the block runs where cond holds
        ExprP cond = expr(child(field(child(st, 0), "arguments"), 0));
        Guarded guard(*this);
        std::vector<StmtP> rest = block(std::vector<TSNode>(stmts.begin() + i + 1, stmts.end()));
        out.push_back(tir::ifThen(cond, rest));
        break;
      }
      if (auto launch = launchOf(st)) {  // the rest of the block runs on the launched thread axis
        out.push_back(threadLaunch(*launch, std::vector<TSNode>(stmts.begin() + i + 1, stmts.end())));
        break;
      }
      statement(st, out);
    }
    scopes_.pop_back();
    return out;
  }

  // T.attr(node, key, value), TVM's AttrStmt: hints to its lowering (pragmas, storage alignment,
  // unroll limits) that do not change what the code computes, so tvms reads past them; the keys that
  // do (a thread extent, a virtual thread) TVM's printer writes as T.launch_thread, which is read.
  void attribute(TSNode call) {
    auto args = namedChildren(field(call, "arguments"));
    auto key = args.size() == 3 ? stringLiteral(doc_, args[1]) : std::nullopt;
    if (!key) fail(call, "T.attr(node, \"key\", value)");
    if (*key == "thread_extent" || *key == "virtual_thread") fail(call, "T.attr of \"" + *key + "\" (write T.launch_thread)");
  }

  // A thread launch as TVM's printer writes it: `v = T.launch_thread("threadIdx.x", n)`, or
  // `T.launch_thread(v, n)` of a `v = T.env_thread("threadIdx.x")`, each running the rest of its
  // block on that axis; `with T.launch_thread(v, n):` runs its body so (withStatement).
  struct Launch {
    TSNode var{};       // the variable's node (its definition, or its use when declared by T.env_thread)
    std::string tag;
    TSNode extent{};
    TSNode at{};
  };
  std::optional<Launch> launchOf(TSNode st) {
    if (!isType(st, "expression_statement") || namedChildren(st).empty()) return std::nullopt;
    TSNode e = namedChildren(st)[0];
    if (isType(e, "assignment")) {
      TSNode right = field(e, "right");
      if (!isType(right, "call") || name(field(right, "function")) != "T.launch_thread") return std::nullopt;
      auto args = namedChildren(field(right, "arguments"));
      if (args.size() != 2 || !stringLiteral(doc_, args[0])) fail(right, "T.launch_thread(\"thread tag\", extent)");
      return Launch{field(e, "left"), *stringLiteral(doc_, args[0]), args[1], right};
    }
    if (isType(e, "call") && name(field(e, "function")) == "T.launch_thread") return launchCall(e);
    return std::nullopt;
  }
  // T.launch_thread(v, n) of an env thread, or T.launch_thread("tag", n) whose variable is not named.
  Launch launchCall(TSNode call) {
    auto args = namedChildren(field(call, "arguments"));
    if (args.size() != 2) fail(call, "T.launch_thread(thread, extent)");
    if (auto tag = stringLiteral(doc_, args[0])) return Launch{TSNode{}, *tag, args[1], call};
    auto env = envThreads_.find(text(args[0]));
    if (env == envThreads_.end()) fail(args[0], "T.launch_thread of '" + text(args[0]) + "', which no T.env_thread declares");
    return Launch{args[0], env->second, args[1], call};
  }

  // A loop around what is read next, for compaction: its extent and whether it is a block's thread axis.
  void enterLoop(int id, ExprP extent, const std::string& tag) {
    loopStack_.push_back(id);
    loopInfo_[id] = {std::move(extent), tag.rfind("threadIdx", 0) == 0 || tag == "vthread"};
  }

  void checkThreadTag(TSNode at, const std::string& tag) const {
    static const std::set<std::string> tags = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z", "vthread"};
    if (!tags.count(tag))
      mistake(at, diag::Code::TVS403, "thread tag \"" + tag + "\" is not a CUDA thread axis (blockIdx.x/y/z, threadIdx.x/y/z, vthread)");
  }

  // `body` run once per thread of the launch's axis: a loop bound to it, as T.thread_binding writes one.
  StmtP threadLaunch(const Launch& l, const std::vector<TSNode>& body) {
    checkThreadTag(l.at, l.tag);
    userScheduled_ = true;
    ExprP extent = index(l.extent);
    std::string var = ts_node_is_null(l.var) ? l.tag : text(l.var);
    int id = kb_.loopVar(var);
    scopes_.emplace_back();
    int symbol = -1;
    if (!ts_node_is_null(l.var)) {
      auto env = envSymbols_.find(var);
      if (env != envSymbols_.end()) use(l.var, symbol = env->second);
      else symbol = define(l.var, ir::TirSymbol::Kind::Variable, var + ": thread index of T.launch_thread(\"" + l.tag + "\", " + text(l.extent) + ")");
    }
    scopes_.back()[var] = {kb_.var(id), symbol};
    enterLoop(id, extent, l.tag);
    std::vector<StmtP> inner = block(body);
    loopStack_.pop_back();
    scopes_.pop_back();
    auto loop = std::make_shared<tir::Stmt>(*tir::forLoop(id, extent, inner));
    loop->forKind = tir::ForKind::ThreadBinding;
    loop->threadTag = l.tag;
    return loop;
  }

  bool isWhere(TSNode st) const {
    if (!isType(st, "expression_statement") || namedChildren(st).empty()) return false;
    TSNode e = namedChildren(st)[0];
    return isType(e, "call") && name(field(e, "function")) == "T.where";
  }

  void statement(TSNode st, std::vector<StmtP>& out) {
    Depth d(*this, st);
    std::string type(typeOf(st));
    if (type == "expression_statement") return expressionStatement(st, out);
    if (type == "for_statement") return out.push_back(forStatement(st));
    if (type == "with_statement") return withStatement(st, out);
    if (type == "if_statement") return ifStatement(st, out);
    if (type == "while_statement") {  // serial as written: each iteration may depend on the last
      if (!namedChildren(st).empty() && !ts_node_is_null(field(st, "alternative"))) fail(st, "a while ... else");
      ExprP cond = tir::cast(ScalarType::Bool, expr(field(st, "condition")));
      Guarded guard(*this);
      return out.push_back(tir::whileLoop(cond, block(namedChildren(field(st, "body")))));
    }
    if (type == "pass_statement") return;
    fail(st, "a " + type + " in a prim_func");
  }

  void expressionStatement(TSNode st, std::vector<StmtP>& out) {
    TSNode e = child(st, 0);
    if (isType(e, "call")) {
      std::string callee = name(field(e, "function"));
      if (callee == "T.func_attr" || callee == "T.reads" || callee == "T.writes" || callee == "T.block_attr" || callee == "T.sblock_attr") return;
      if (callee == "T.evaluate") {
        auto args = namedChildren(field(e, "arguments"));
        if (args.size() == 1 && integerLiteral(doc_, args[0])) return;  // T.evaluate(0)
        if (args.size() == 1 && isType(args[0], "call") && name(field(args[0], "function")) == "T.assume") return;
        if (args.size() == 1 && isType(args[0], "call") && name(field(args[0], "function")) == "T.tvm_storage_sync") return out.push_back(tir::barrier());
        if (args.size() == 1 && isType(args[0], "call") && name(field(args[0], "function")) == "T.call_extern")
          if (auto add = atomicAdd(args[0])) return out.push_back(*add);
        fail(e, "T.evaluate of " + text(args.empty() ? e : args[0]));
      }
      if (callee == "T.tvm_storage_sync") return out.push_back(tir::barrier());
      if (callee == "T.assume") return;  // a fact for TVM's simplifier; the code is the same without it
      if (callee == "T.attr") return attribute(e);
      fail(e, "the call " + callee + " as a statement");
    }
    if (isType(e, "assignment")) return assignment(e, out);
    if (isType(e, "string")) return;  // a docstring
    fail(e, "the statement " + text(e));
  }

  void assignment(TSNode e, std::vector<StmtP>& out) {
    TSNode left = field(e, "left"), right = field(e, "right");
    if (isType(left, "subscript")) return out.push_back(storeTo(left, right));
    if (isType(left, "pattern_list") || isType(left, "tuple_pattern")) {
      if (!symbolicVariablesDeclared(doc_, e, canon_).empty()) return;  // n, c = T.int64(), T.int64(): read with the parameters
      fail(e, "a tuple assignment outside a block's T.axis.remap");
    }
    std::string var = text(left);
    if (symbols_.count(var) || buffers_.count(var)) return;  // n = T.int64(), X = T.match_buffer(...): read with the parameters
    if (isType(right, "call")) {
      std::string callee = name(field(right, "function"));
      if (callee == "T.alloc_buffer" || callee == "T.decl_buffer" || callee == "T.sblock_alloc_buffer") return allocBuffer(left, right);
      if (callee == "T.Buffer") return bufferView(left, right);
      if (callee == "T.decl_scalar") {  // tvms's printer: a mutable scalar local (a register tile's accumulator)
        auto args = namedChildren(field(right, "arguments"));
        if (args.size() != 1) fail(right, "T.decl_scalar(dtype)");
        locals_[var] = kb_.local(var, dtype(args[0]));
        localSymbols_[var] = define(left, ir::TirSymbol::Kind::Variable, var + ": " + text(args[0]) + "  # scalar local");
        return;
      }
      if (callee == "T.tvm_warp_allreduce") return out.push_back(warpReduce(var, right));
      if (callee == "T.env_thread") {
        auto args = namedChildren(field(right, "arguments"));
        auto tag = args.size() == 1 ? stringLiteral(doc_, args[0]) : std::nullopt;
        if (!tag) fail(right, "T.env_thread(\"thread tag\")");
        checkThreadTag(right, *tag);
        envThreads_[var] = *tag;
        envSymbols_[var] = define(left, ir::TirSymbol::Kind::Variable, var + " = T.env_thread(\"" + *tag + "\")  # thread index");
        return;
      }
    }
    if (ts_node_is_null(right)) fail(e, "a declaration without a value");
    if (auto it = locals_.find(var); it != locals_.end()) {
      use(left, localSymbols_[var]);
      out.push_back(tir::assign(it->second, tir::cast(kb_.kernel().vars[static_cast<size_t>(it->second)].type, expr(right))));
      return;
    }
    // A let: the name stands for the value (TIR's LetStmt binds an immutable value); `v: T.int32 = e`,
    // as TVM's printer writes one, of that dtype.
    ExprP value = expr(right);
    TSNode type = field(e, "type");
    if (!ts_node_is_null(type)) {
      TSNode ann = namedChildren(type).empty() ? type : namedChildren(type)[0];
      // `v: T.let[T.int64] = e`, as TVM's printer writes a let today: the dtype inside the brackets.
      if (isType(ann, "subscript") && name(field(ann, "value")) == "T.let" && namedChildren(ann).size() == 2) ann = namedChildren(ann)[1];
      std::string head = name(ann);
      auto t = head.rfind("T.", 0) == 0 ? tir::scalarTypeOf(head.substr(2)) : std::nullopt;
      if (!t) fail(type, "a let of type " + text(type));
      value = tir::cast(*t, value);
    }
    bindLet(left, value, text(right));
  }

  void bindLet(TSNode name, ExprP value, const std::string& written) {
    std::string var = text(name);
    scopes_.back()[var] = {std::move(value), define(name, ir::TirSymbol::Kind::Variable, var + " = " + written + "  # let")};
  }

  // The arguments of a call declaring a buffer (T.Buffer, T.match_buffer, T.alloc_buffer): `order`
  // names the positional ones from `first` on; keywords by name. A keyword outside `known` is not read.
  std::map<std::string, TSNode> bufferArguments(TSNode arguments, const std::vector<std::string>& order, const std::vector<std::string>& known,
                                                size_t first = 0) const {
    std::map<std::string, TSNode> out;
    auto args = namedChildren(arguments);
    size_t positional = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      TSNode a = args[i];
      if (isType(a, "keyword_argument")) {
        std::string key = text(field(a, "name"));
        if (std::find(known.begin(), known.end(), key) == known.end()) fail(a, "the buffer argument " + key);
        out[key] = field(a, "value");
        continue;
      }
      if (i < first) continue;
      if (positional < order.size()) out[order[positional]] = a;
      ++positional;
    }
    return out;
  }
  static TSNode argument(const std::map<std::string, TSNode>& args, const std::string& name) {
    auto it = args.find(name);
    return it == args.end() ? TSNode{} : it->second;
  }

  void allocBuffer(TSNode left, TSNode call) {
    std::string var = text(left);
    auto args = bufferArguments(field(call, "arguments"), {"shape", "dtype", "scope"}, {"shape", "dtype", "scope", "align", "offset_factor"});
    TSNode shape = argument(args, "shape"), type = argument(args, "dtype"), scope = argument(args, "scope");
    if (ts_node_is_null(shape)) fail(call, "buffer '" + var + "' needs a shape");
    BufferInfo b;
    b.type = ts_node_is_null(type) ? ScalarType::F32 : dtype(type);
    std::vector<std::string> printed;
    std::vector<ExprP> extents = shapeOf(shape, printed);
    std::string scopeName = ts_node_is_null(scope) ? "global" : stringLiteral(doc_, scope).value_or("");
    if (scopeName == "global") return workspace(left, shape, extents, printed, b);
    if (scopeName != "shared" && scopeName != "shared.dyn" && scopeName != "local") fail(scope, "a buffer in memory scope \"" + scopeName + "\"");
    localArrays_[var] = scopeName != "local";
    if (auto region = compacted_.find(var); region != compacted_.end()) {  // the region its accesses touch
      b.declared = extents;
      extents.clear();
      for (int64_t e : region->second.extent) extents.push_back(tir::intImm(e));
    }
    int64_t size = 1;
    for (auto& e : extents) {
      if (e->kind != tir::Expr::Kind::Int || e->intValue < 0) fail(shape, "a " + scopeName + " buffer's shape is integers");
      b.shape.push_back(e);
      if (__builtin_mul_overflow(size, e->intValue, &size)) fail(shape, "an allocation of more elements than 64 bits count");
    }
    if (recording_) size = 1;  // sized by the second reading
    // Local and shared arrays live in a thread's frame or a block's shared memory: a larger one would
    // overflow them at run time (global allocations are workspaces, below).
    if (size > kMaxAllocationBytes / static_cast<int64_t>(runtime::dtypeBytes(b.type)))
      fail(call, "a " + scopeName + " T.alloc_buffer of " + std::to_string(size) + " elements (over " + std::to_string(kMaxAllocationBytes >> 20) +
                     " MiB of a thread's stack or a block's shared memory)");
    tir::MemoryScope s = scopeName == "local" ? tir::MemoryScope::Local : tir::MemoryScope::Shared;
    b.id = kb_.localArray(var, b.type, size, s);
    b.symbol = define(left, ir::TirSymbol::Kind::Buffer, bufferDetail(var, b, printed, scopeName, "allocated"));
    buffers_[var] = b;
  }

  // A shape as written: a tuple or list of extents, one extent alone, or another buffer's `X.shape`
  // (as TVM's FuseTIR writes an intermediate's); `printed` gets each extent's text.
  std::vector<ExprP> shapeOf(TSNode shape, std::vector<std::string>& printed) {
    std::vector<ExprP> out;
    if (isType(shape, "attribute") && text(field(shape, "attribute")) == "shape") {
      const BufferInfo& of = bufferOf(field(shape, "object"));
      for (size_t i = 0; i < of.shape.size(); ++i) {
        out.push_back(of.shape[i]);
        printed.push_back(text(shape) + "[" + std::to_string(i) + "]");
      }
      return out;
    }
    std::vector<TSNode> dims = isType(shape, "tuple") || isType(shape, "list") ? namedChildren(shape) : std::vector<TSNode>{shape};
    for (TSNode d : dims) {
      out.push_back(index(d));
      printed.push_back(text(d));
    }
    return out;
  }

  // A global-scope allocation: a workspace the VM allocates for each call (Kernel::workspaces), its
  // size an expression of the parameters' dims, known before the kernel runs.
  void workspace(TSNode left, TSNode shape, const std::vector<ExprP>& extents, const std::vector<std::string>& printed, BufferInfo& b) {
    std::string var = text(left);
    ExprP elements = tir::intImm(1);
    int64_t staticSize = 1;
    for (const ExprP& extent : extents) {
      readsOnlyDims(extent, shape);
      if (extent->kind == tir::Expr::Kind::Int) {
        if (extent->intValue < 0) fail(shape, "a buffer of negative extent in " + text(shape));
        if (__builtin_mul_overflow(staticSize, extent->intValue, &staticSize)) fail(shape, "an allocation of more elements than 64 bits count");
      }
      b.shape.push_back(extent);
      elements = elements->kind == tir::Expr::Kind::Int && elements->intValue == 1 ? extent : elements * extent;
    }
    b.id = kb_.param(var, b.type, printed);
    workspaces_.push_back({b.id, elements});
    b.symbol = define(left, ir::TirSymbol::Kind::Buffer, bufferDetail(var, b, printed, "global", "allocated (a workspace of the call)"));
    buffers_[var] = b;
  }

  // A workspace's extent is computed before the kernel runs: of dims and constants only.
  void readsOnlyDims(const ExprP& e, TSNode at) const {
    if (!e) return;
    if (e->kind == tir::Expr::Kind::Load) fail(at, "a global allocation whose size reads a buffer");
    if (e->kind == tir::Expr::Kind::Var && kb_.kernel().vars[static_cast<size_t>(e->id)].role != tir::Variable::Role::Dim)
      fail(at, "a global allocation whose size depends on '" + kb_.kernel().vars[static_cast<size_t>(e->id)].name + "' (only the parameters' dims size one)");
    readsOnlyDims(e->a, at);
    readsOnlyDims(e->b, at);
    readsOnlyDims(e->c, at);
  }

  // X = T.Buffer(shape, dtype, data=Y.data): another view of Y's data (TVM's flattened buffers).
  void bufferView(TSNode left, TSNode call) {
    std::string var = text(left);
    auto args = bufferArguments(field(call, "arguments"), {"shape", "dtype"}, {"shape", "dtype", "data"});
    TSNode shape = argument(args, "shape"), type = argument(args, "dtype"), data = argument(args, "data");
    if (ts_node_is_null(shape)) fail(call, "buffer '" + var + "' needs a shape");
    if (!isType(data, "attribute") || text(field(data, "attribute")) != "data") fail(call, "a T.Buffer in a body that is not a view (data=X.data) of a buffer");
    const BufferInfo& of = bufferOf(field(data, "object"));
    BufferInfo view;
    view.id = of.id;
    view.type = ts_node_is_null(type) ? of.type : dtype(type);
    if (view.type != of.type) fail(call, "a view of another dtype than its buffer's");
    std::vector<TSNode> dims = isType(shape, "tuple") || isType(shape, "list") ? namedChildren(shape) : std::vector<TSNode>{shape};
    std::vector<std::string> printed;
    for (TSNode d : dims) {
      view.shape.push_back(index(d));
      printed.push_back(text(d));
    }
    view.symbol = define(left, ir::TirSymbol::Kind::Buffer, bufferDetail(var, view, printed, "global", "view of " + text(field(data, "object"))));
    buffers_[var] = view;
  }

  // x = T.tvm_warp_allreduce(x, "+"): every lane's x combined across the warp (tvms's printer).
  StmtP warpReduce(const std::string& var, TSNode call) {
    auto args = namedChildren(field(call, "arguments"));
    auto local = locals_.find(var);
    auto op = args.size() == 2 ? stringLiteral(doc_, args[1]) : std::nullopt;
    if (local == locals_.end() || !op || text(args[0]) != var) fail(call, "T.tvm_warp_allreduce(x, op) of a declared scalar");
    static const std::map<std::string, tir::BinOp> ops = {{"+", tir::BinOp::Add}, {"*", tir::BinOp::Mul}, {"max", tir::BinOp::Max}, {"min", tir::BinOp::Min}};
    auto it = ops.find(*op);
    if (it == ops.end()) fail(call, "a warp reduction by " + *op);
    return tir::warpReduce(local->second, it->second);
  }

  // T.call_extern(dtype, "atomicAdd", T.address_of(B[i]), v): B[i] += v atomically (tvms's printer
  // writes a multi-block reduction's adds so, as TVM writes CUDA's atomicAdd); nothing for another extern.
  std::optional<StmtP> atomicAdd(TSNode call) {
    auto args = namedChildren(field(call, "arguments"));
    if (args.size() != 4 || text(args[1]) != "\"atomicAdd\"" || !isType(args[2], "call") || name(field(args[2], "function")) != "T.address_of")
      return std::nullopt;
    auto target = namedChildren(field(args[2], "arguments"));
    if (target.size() != 1 || !isType(target[0], "subscript")) fail(args[2], "T.address_of(buffer[index])");
    auto s = std::make_shared<tir::Stmt>(*storeTo(target[0], args[3]));
    s->atomicAdd = true;
    return s;
  }

  // buffer[index] = value. A store of vectors (indices of T.ramp, values of T.broadcast, as TVM's
  // vectorizer writes them) is a vectorized loop over its lanes.
  StmtP storeTo(TSNode target, TSNode value) {
    const BufferInfo& b = bufferOf(field(target, "value"));
    lanes_ = {};
    inStore_ = true;
    ExprP v = expr(value);
    ExprP at = flatIndex(b, target);
    inStore_ = false;
    if (tir::isFloat(v->type) && isInt(b.type))
      findings_.push_back(diag::make(diag::Code::TVS406, rangeOf(target),
                                     "a " + std::string(runtime::dtypeName(v->type)) + " value stored into '" + text(field(target, "value")) + "' of " +
                                         std::string(runtime::dtypeName(b.type)) + ": TVM casts it, and may lose precision"));
    stores_.push_back({target, text(field(target, "value")), b.id, at});
    StmtP s = tir::store(b.id, at, tir::cast(b.type, v));
    if (lanes_.var < 0) return s;
    auto loop = std::make_shared<tir::Stmt>(*tir::forLoop(lanes_.var, tir::intImm(lanes_.count), {s}, true));
    loop->forKind = tir::ForKind::Vectorized;
    return loop;
  }

  // The lane of the store being read, for T.ramp / T.broadcast of `count` lanes.
  ExprP lane(TSNode at, TSNode count) {
    auto n = staticExtent(count);
    if (!inStore_) fail(at, "a vector expression outside a buffer store");
    if (!n || *n < 1) fail(count, "a vector of " + text(count) + " lanes");
    if (lanes_.var >= 0 && lanes_.count != *n) fail(at, "vectors of " + std::to_string(lanes_.count) + " and " + std::to_string(*n) + " lanes in one store");
    if (lanes_.var < 0) lanes_ = {kb_.loopVar("lane"), *n};
    return kb_.var(lanes_.var);
  }

  // The buffer `n` names (a use of it).
  const BufferInfo& bufferOf(TSNode n) {
    auto it = buffers_.find(text(n));
    if (it == buffers_.end()) fail(n, "'" + text(n) + "' is not a buffer of this prim_func");
    use(n, it->second.symbol);
    return it->second;
  }

  // A[i, j] -> the row-major flat index over A's shape.
  ExprP flatIndex(const BufferInfo& b, TSNode subscript) {
    std::vector<TSNode> idx;
    for (TSNode c : namedChildren(subscript))
      if (!ts_node_eq(c, field(subscript, "value"))) idx.push_back(c);
    if (idx.size() == 1 && (isType(idx[0], "tuple") || isType(idx[0], "expression_list"))) idx = namedChildren(idx[0]);
    if (idx.size() != b.shape.size())
      mistake(subscript, diag::Code::TVS402,
              "buffer '" + text(field(subscript, "value")) + "' has " + std::to_string(b.shape.size()) + " dimension" +
                  (b.shape.size() == 1 ? "" : "s") + ", indexed with " + std::to_string(idx.size()));
    std::vector<ExprP> at;
    for (size_t i = 0; i < idx.size(); ++i) {
      if (isType(idx[i], "slice")) fail(idx[i], "a slice of a buffer");
      at.push_back(tir::cast(ScalarType::I64, expr(idx[i])));
    }
    std::string name = text(field(subscript, "value"));
    checkInBounds(name, b, at, idx);
    if (recording_ && localArrays_.count(name)) accesses_[name].push_back({at, loopStack_});
    if (auto region = compacted_.find(name); region != compacted_.end())
      for (size_t i = 0; i < at.size(); ++i) at[i] = at[i] - region->second.offset[i];
    ExprP flat = tir::intImm(0);
    for (size_t i = 0; i < at.size(); ++i) flat = flat * b.shape[i] + at[i];
    return flat;
  }

  // TVS407: an unguarded access whose index its loops take outside a static extent of the buffer.
  void checkInBounds(const std::string& name, const BufferInfo& b, const std::vector<ExprP>& at, const std::vector<TSNode>& written) {
    if (guarded_ > 0) return;
    std::map<int, int64_t> extents;
    for (int id : loopStack_) {
      auto it = loopInfo_.find(id);
      if (it != loopInfo_.end() && it->second.extent && it->second.extent->kind == tir::Expr::Kind::Int) extents[id] = it->second.extent->intValue;
    }
    const std::vector<ExprP>& shape = b.declared.empty() ? b.shape : b.declared;
    for (size_t i = 0; i < at.size() && i < shape.size(); ++i) {
      if (shape[i]->kind != tir::Expr::Kind::Int) continue;
      auto range = tir::valueRange(at[i], extents);
      int64_t n = shape[i]->intValue;
      if (!range || (range->first >= 0 && range->second < n)) continue;
      findings_.push_back(diag::make(diag::Code::TVS407, rangeOf(written[i]),
                                     "this index of '" + name + "' ranges over [" + std::to_string(range->first) + ", " + std::to_string(range->second) +
                                         "] on an axis of extent " + std::to_string(n)));
    }
  }

  // What is read inside it runs only where a condition holds (a branch, T.where, the value operands
  // of T.if_then_else): TVS407 does not judge its indices by the loops alone.
  struct Guarded {
    explicit Guarded(Reader& r) : r_(r) { ++r_.guarded_; }
    ~Guarded() { --r_.guarded_; }
    Reader& r_;
  };

  // for i in T.grid(a, b) / range(n) / range(lo, hi) / T.serial / T.parallel / T.vectorized /
  // T.unroll / T.thread_binding(n, thread="threadIdx.x").
  StmtP forStatement(TSNode st) {
    TSNode left = field(st, "left"), right = field(st, "right");
    std::vector<std::string> vars;
    std::vector<TSNode> varNodes = isType(left, "identifier") ? std::vector<TSNode>{left} : namedChildren(left);
    for (TSNode v : varNodes) vars.push_back(text(v));
    if (!isType(right, "call")) fail(right, "a loop over " + text(right));
    std::string callee = name(field(right, "function"));
    std::vector<TSNode> positional;
    std::string thread;
    bool keepScalar = false;
    for (TSNode a : namedChildren(field(right, "arguments"))) {
      if (isType(a, "keyword_argument")) {
        std::string key = text(field(a, "name"));
        if (key == "thread") thread = stringLiteral(doc_, field(a, "value")).value_or("");
        else if (key == "annotations") keepScalar = text(field(a, "value")).find("\"tvms.keep_scalar\": True") != std::string::npos;
        else fail(a, "loop argument " + key);
        continue;
      }
      positional.push_back(a);
    }
    std::vector<std::pair<ExprP, ExprP>> ranges;  // (start, extent) per variable
    tir::ForKind kind = tir::ForKind::Serial;
    std::string tupleVar;  // `for iters in T.grid(m, n)`: one name for the tuple of the loop variables
    if (callee == "T.grid") {
      std::vector<ExprP> extents;
      for (TSNode a : positional) {
        if (isType(a, "list_splat")) {  // T.grid(*X.shape)
          std::vector<std::string> printed;
          for (auto& e : shapeOf(child(a, 0), printed)) extents.push_back(e);
        } else {
          extents.push_back(index(a));
        }
      }
      if (vars.size() == 1 && extents.size() > 1) {
        tupleVar = vars[0];
        vars.clear();
        for (size_t i = 0; i < extents.size(); ++i) vars.push_back(tupleVar + "_" + std::to_string(i));
        varNodes.assign(extents.size(), varNodes[0]);
      }
      if (extents.size() != vars.size()) fail(right, "T.grid's extents and the loop variables differ in number");
      for (auto& e : extents) ranges.push_back({tir::intImm(0), e});
    } else {
      static const std::map<std::string, tir::ForKind> kinds = {{"range", tir::ForKind::Serial},          {"T.serial", tir::ForKind::Serial},
                                                               {"T.parallel", tir::ForKind::Parallel},    {"T.vectorized", tir::ForKind::Vectorized},
                                                               {"T.unroll", tir::ForKind::Unrolled},     {"T.thread_binding", tir::ForKind::ThreadBinding}};
      auto k = kinds.find(callee);
      if (k == kinds.end()) fail(right, "a loop over " + callee);
      if (vars.size() != 1) fail(left, "one loop variable over " + callee);
      kind = k->second;
      if (kind == tir::ForKind::ThreadBinding && !positional.empty() && isType(positional.back(), "string")) {
        thread = stringLiteral(doc_, positional.back()).value_or("");
        positional.pop_back();
      }
      if (positional.empty() || positional.size() > 2) fail(right, callee + " takes an extent or a start and an end");
      ExprP lo = positional.size() == 2 ? index(positional[0]) : tir::intImm(0);
      ExprP hi = index(positional.back());
      ranges.push_back({lo, positional.size() == 2 ? hi - lo : hi});
      if (kind == tir::ForKind::ThreadBinding) {
        checkThreadTag(right, thread);
        userScheduled_ = true;
      }
      if (kind != tir::ForKind::Serial) userScheduled_ = true;
    }
    scopes_.emplace_back();
    std::vector<int> ids;
    std::vector<ExprP> values;
    for (size_t i = 0; i < vars.size(); ++i) {
      int id = kb_.loopVar(vars[i]);
      ids.push_back(id);
      ExprP value = ranges[i].first->kind == tir::Expr::Kind::Int && ranges[i].first->intValue == 0 ? kb_.var(id) : ranges[i].first + kb_.var(id);
      values.push_back(value);
      if (tupleVar.empty())
        scopes_.back()[vars[i]] = {value, define(varNodes[i], ir::TirSymbol::Kind::Variable, vars[i] + ": loop variable of `for ... in " + text(right) + "`")};
    }
    if (!tupleVar.empty())
      tupleVars_[tupleVar] = {values, define(left, ir::TirSymbol::Kind::Variable, tupleVar + ": the loop variables of `for ... in " + text(right) + "`")};
    for (size_t i = 0; i < ids.size(); ++i) enterLoop(ids[i], ranges[i].second, kind == tir::ForKind::ThreadBinding ? thread : "");
    std::vector<StmtP> body = block(namedChildren(field(st, "body")));
    loopStack_.resize(loopStack_.size() - ids.size());
    scopes_.pop_back();
    if (!tupleVar.empty()) tupleVars_.erase(tupleVar);
    for (size_t i = vars.size(); i-- > 0;) {
      int id = ids[i];
      // Spatial: a block's spatial axes read it and no reduce axis does (the schedule may then run
      // its iterations in parallel). A loop outside blocks stays serial: nothing says it may not.
      bool spatial = spatialUse_.count(id) && !reductionUse_.count(id);
      auto loop = std::make_shared<tir::Stmt>(*tir::forLoop(id, ranges[i].second, body, spatial));
      if (i + 1 == vars.size() || callee != "T.grid") {
        loop->forKind = kind;
        loop->threadTag = thread;
        loop->keepScalar = keepScalar;  // tvms's printer: a register tile's reduction loop
      }
      body = {loop};
    }
    return body[0];
  }

  void withStatement(TSNode st, std::vector<StmtP>& out) {
    auto items = namedChildren(child(st, 0));  // the with_clause's with_items
    if (items.size() != 1) fail(st, "a with of several items");
    TSNode item = items[0];
    TSNode value = field(item, "value");
    if (ts_node_is_null(value)) value = namedChildren(item).empty() ? item : namedChildren(item)[0];
    if (isType(value, "as_pattern")) fail(value, "a with ... as ... in a prim_func");
    std::string callee = isType(value, "call") ? name(field(value, "function")) : "";
    if (callee == "T.block" || callee == "T.sblock") return blockStatement(st, out);
    if (callee == "T.launch_thread") return out.push_back(threadLaunch(launchCall(value), namedChildren(field(st, "body"))));
    if (callee == "T.attr") {  // with T.attr(node, key, value): the body as written
      attribute(value);
      std::vector<StmtP> body = block(namedChildren(field(st, "body")));
      out.insert(out.end(), body.begin(), body.end());
      return;
    }
    if (callee == "T.let") {  // with T.let(x, value): the body sees x as value
      auto args = namedChildren(field(value, "arguments"));
      if (args.size() != 2 || !isType(args[0], "identifier")) fail(value, "T.let(variable, value)");
      scopes_.emplace_back();
      bindLet(args[0], expr(args[1]), text(args[1]));
      std::vector<StmtP> body = block(namedChildren(field(st, "body")));
      scopes_.pop_back();
      out.insert(out.end(), body.begin(), body.end());
      return;
    }
    if (callee == "T.init") fail(st, "T.init outside a block");
    fail(st, "with " + text(value));
  }

  // A block: its axes (T.axis.spatial / reduce / remap) bound to their values, T.init run when every
  // reduce axis is at its start, the rest of its body.
  void blockStatement(TSNode st, std::vector<StmtP>& out) {
    std::vector<TSNode> stmts = namedChildren(field(st, "body"));
    scopes_.emplace_back();
    std::vector<ExprP> reduceAxes;
    std::vector<TSNode> rest;
    TSNode init{};
    std::optional<std::set<std::string>> writes;  // the buffers T.writes lists, when it lists any
    size_t firstAxis = spatialAxes_.size(), firstStore = stores_.size();
    std::set<std::string> allocatedBefore;
    for (auto& [bufferName, info] : buffers_) allocatedBefore.insert(bufferName);
    for (TSNode s : stmts) {
      if (auto listed = writesOf(s)) {
        if (!listed->empty()) writes = *listed;
        continue;
      }
      if (axisDefinition(s, reduceAxes)) continue;
      if (isType(s, "with_statement")) {
        TSNode item = child(child(s, 0), 0);
        TSNode v = field(item, "value");
        if (ts_node_is_null(v)) v = namedChildren(item).empty() ? item : namedChildren(item)[0];
        if (isType(v, "call") && name(field(v, "function")) == "T.init") {
          init = s;
          continue;
        }
      }
      rest.push_back(s);
    }
    std::vector<StmtP> initBody, body;
    if (!ts_node_is_null(init)) initBody = block(namedChildren(field(init, "body")));
    std::vector<StmtP> main = block(rest);
    scopes_.pop_back();
    // Axes declared spatial that its stores show to be reductions (TVS405) start its T.init too.
    for (auto& a : checkBlockStores(firstAxis, firstStore, writes, allocatedBefore)) reduceAxes.push_back(a);
    spatialAxes_.resize(firstAxis);
    if (!ts_node_is_null(init)) {
      if (reduceAxes.empty()) {
        body.insert(body.end(), initBody.begin(), initBody.end());
      } else {
        ExprP first;
        for (auto& a : reduceAxes) {
          ExprP atStart = tir::binary(tir::BinOp::Eq, a, tir::intImm(0));
          first = first ? tir::binary(tir::BinOp::And, first, atStart) : atStart;
        }
        body.push_back(tir::ifThen(first, initBody));
      }
    }
    body.insert(body.end(), main.begin(), main.end());
    out.push_back(tir::seq(body));
  }

  // T.writes(C[vi, vj], D[vi]) / T.writes([C[vi, vj]]) / T.writes(): the names of the buffers written.
  std::optional<std::set<std::string>> writesOf(TSNode s) const {
    if (!isType(s, "expression_statement") || namedChildren(s).empty()) return std::nullopt;
    TSNode e = namedChildren(s)[0];
    if (!isType(e, "call") || name(field(e, "function")) != "T.writes") return std::nullopt;
    std::set<std::string> out;
    std::function<void(TSNode)> add = [&](TSNode a) {
      if (isType(a, "list") || isType(a, "tuple")) {
        for (TSNode x : namedChildren(a)) add(x);
      } else {
        out.insert(text(isType(a, "subscript") ? field(a, "value") : a));
      }
    };
    for (TSNode a : namedChildren(field(e, "arguments"))) add(a);
    return out;
  }

  // The stores a block made (from `firstStore` on, nested blocks' included) against its signature:
  // each to a buffer its T.writes lists (TVS404), and each spatial axis of the block indexing its
  // stores to the buffers it writes (TVS405: an axis that does not is a reduction, run serially; its
  // value is returned, for the block's T.init).
  std::vector<ExprP> checkBlockStores(size_t firstAxis, size_t firstStore, const std::optional<std::set<std::string>>& writes,
                        const std::set<std::string>& allocatedBefore) {
    std::vector<const StoreSite*> written;
    std::vector<ExprP> reductions;
    for (size_t i = firstStore; i < stores_.size(); ++i) {
      const StoreSite& site = stores_[i];
      if (!allocatedBefore.count(site.buffer)) continue;  // a buffer the block allocates itself
      if (kb_.kernel().buffers[static_cast<size_t>(site.bufferId)].scope != tir::MemoryScope::Global) continue;
      if (writes && !writes->count(site.buffer))
        findings_.push_back(diag::make(diag::Code::TVS404, rangeOf(site.target),
                                       "the block stores to '" + site.buffer + "', which its T.writes does not list"));
      written.push_back(&site);
    }
    for (size_t a = firstAxis; a < spatialAxes_.size(); ++a) {
      const SpatialAxis& axis = spatialAxes_[a];
      if (axis.loops.empty()) continue;
      for (const StoreSite* site : written) {
        std::set<int> read;
        tir::variablesOf(site->index, read);
        bool indexed = std::any_of(axis.loops.begin(), axis.loops.end(), [&](int id) { return read.count(id); });
        if (indexed) continue;
        findings_.push_back(diag::make(diag::Code::TVS405, rangeOf(axis.node),
                                       "spatial axis '" + text(axis.node) + "' does not index the store to '" + site->buffer +
                                           "': its iterations write the same elements; declare it T.axis.reduce"));
        for (int id : axis.loops) reductionUse_.insert(id);  // run serially: it is a reduction
        reductions.push_back(axis.value);
        break;
      }
    }
    return reductions;
  }

  // vi = T.axis.spatial(extent, value) / T.axis.reduce(...) / vi, vj = T.axis.remap("SR", [i, j]).
  bool axisDefinition(TSNode s, std::vector<ExprP>& reduceAxes) {
    if (!isType(s, "expression_statement") || namedChildren(s).empty()) return false;
    TSNode e = namedChildren(s)[0];
    if (!isType(e, "assignment")) return false;
    TSNode right = field(e, "right");
    if (!isType(right, "call")) return false;
    std::string callee = name(field(right, "function"));
    auto args = namedChildren(field(right, "arguments"));
    if (callee == "T.axis.remap") {
      auto kinds = args.size() == 2 ? stringLiteral(doc_, args[0]) : std::nullopt;
      auto names = namedChildren(field(e, "left"));
      std::vector<ExprP> values;
      std::vector<std::string> written;
      if (args.size() == 2 && isType(args[1], "identifier") && tupleVars_.count(text(args[1]))) {  // T.axis.remap("SS", iters)
        auto& tuple = tupleVars_[text(args[1])];
        use(args[1], tuple.symbol);
        for (size_t i = 0; i < tuple.values.size(); ++i) {
          values.push_back(tuple.values[i]);
          written.push_back(text(args[1]) + "[" + std::to_string(i) + "]");
        }
      } else if (args.size() == 2) {
        for (TSNode v : namedChildren(args[1])) {
          values.push_back(index(v));
          written.push_back(text(v));
        }
      }
      if (!kinds || kinds->size() != names.size() || values.size() != names.size()) fail(e, "T.axis.remap(kinds, [loop variables]) with one kind per axis");
      for (size_t i = 0; i < names.size(); ++i) bindAxis(names[i], (*kinds)[i] == 'R', values[i], written[i], reduceAxes);
      return true;
    }
    bool spatial = callee == "T.axis.spatial" || callee == "T.axis.S";
    bool reduce = callee == "T.axis.reduce" || callee == "T.axis.R";
    if (!spatial && !reduce) return false;
    if (args.size() != 2) fail(e, callee + "(extent, value)");
    bindAxis(field(e, "left"), reduce, index(args[1]), text(args[1]), reduceAxes);
    return true;
  }

  void bindAxis(TSNode axisNode, bool reduce, ExprP v, const std::string& written, std::vector<ExprP>& reduceAxes) {
    std::string axis = text(axisNode);
    std::set<int> loops;
    usedLoops(v, loops);
    for (int id : loops) (reduce ? reductionUse_ : spatialUse_).insert(id);
    if (!reduce) {
      std::set<int> loopVars;
      for (int id : loops)
        if (kb_.kernel().vars[static_cast<size_t>(id)].role == tir::Variable::Role::Loop) loopVars.insert(id);
      spatialAxes_.push_back({axisNode, loopVars, v});
    }
    scopes_.back()[axis] = {v, define(axisNode, ir::TirSymbol::Kind::Variable,
                                      axis + " = T.axis." + (reduce ? "reduce" : "spatial") + "(..., " + written + ")  # block axis")};
    if (reduce) reduceAxes.push_back(v);
  }

  void usedLoops(const ExprP& e, std::set<int>& out) const {
    if (!e) return;
    if (e->kind == tir::Expr::Kind::Var) out.insert(e->id);
    usedLoops(e->a, out);
    usedLoops(e->b, out);
    usedLoops(e->c, out);
  }

  // if / elif / else. Without an else the condition guards the body; otherwise each condition is
  // computed once into a local (a branch may change what the next condition reads) and the rest of
  // the chain runs where it is false.
  void ifStatement(TSNode st, std::vector<StmtP>& out) {
    std::vector<std::pair<TSNode, TSNode>> clauses{{field(st, "condition"), field(st, "consequence")}};
    TSNode otherwise{};
    for (TSNode c : namedChildren(st)) {
      if (isType(c, "elif_clause")) clauses.push_back({field(c, "condition"), field(c, "consequence")});
      if (isType(c, "else_clause")) otherwise = field(c, "body");
    }
    if (clauses.size() == 1 && ts_node_is_null(otherwise)) {
      ExprP cond = expr(clauses[0].first);
      Guarded guard(*this);
      return out.push_back(tir::ifThen(tir::cast(ScalarType::Bool, cond), block(namedChildren(clauses[0].second))));
    }
    std::vector<StmtP> chain = ifChain(clauses, 0, otherwise);
    out.insert(out.end(), chain.begin(), chain.end());
  }

  std::vector<StmtP> ifChain(const std::vector<std::pair<TSNode, TSNode>>& clauses, size_t i, TSNode otherwise) {
    if (i == clauses.size()) return ts_node_is_null(otherwise) ? std::vector<StmtP>{} : block(namedChildren(otherwise));
    std::vector<StmtP> out;
    int flag = kb_.local("cond", ScalarType::Bool);
    out.push_back(tir::assign(flag, tir::cast(ScalarType::Bool, expr(clauses[i].first))));
    Guarded guard(*this);
    out.push_back(tir::ifThen(kb_.var(flag), block(namedChildren(clauses[i].second))));
    std::vector<StmtP> rest = ifChain(clauses, i + 1, otherwise);
    if (!rest.empty()) out.push_back(tir::ifThen(tir::unary(tir::UnOp::Not, kb_.var(flag)), rest));
    return out;
  }

  // ---- expressions ----

  ExprP index(TSNode n) { return tir::cast(ScalarType::I64, expr(n)); }

  ExprP lookup(TSNode n) {
    std::string s = text(n);
    if (auto it = locals_.find(s); it != locals_.end()) {
      use(n, localSymbols_[s]);
      return kb_.var(it->second);
    }
    for (size_t i = scopes_.size(); i-- > 0;)
      if (auto it = scopes_[i].find(s); it != scopes_[i].end()) {
        use(n, it->second.symbol);
        return it->second.value;
      }
    if (auto it = floatScalars_.find(s); it != floatScalars_.end()) {
      use(n, it->second.symbol);
      return it->second.value;
    }
    if (symbols_.count(s) && dimSeen_.count(s)) {
      if (auto d = dimSymbols_.find(s); d != dimSymbols_.end()) use(n, d->second);
      return kb_.dim(s);
    }
    if (s == "True" || s == "False") return tir::floatImm(s == "True" ? 1 : 0, ScalarType::Bool);
    // A name of the file's Python (a constant of the enclosing scope): its value, when it is a number.
    if (pythonNumber_)
      if (auto v = pythonNumber_(s)) return v->integer ? tir::intImm(v->intValue) : tir::floatImm(v->floatValue, ScalarType::F32);
    if (isPython_(s) || handles_.count(s) || buffers_.count(s)) fail(n, "the value of '" + s + "' here");
    if (symbols_.count(s)) fail(n, "the symbolic variable '" + s + "', which no parameter's shape binds (a scalar parameter)");
    mistake(n, diag::Code::TVS401, "undefined name '" + s + "'");
  }

  // Two operands of one type, as TIR's arithmetic needs: a literal takes the other side's type, an
  // integer meets a float as that float, two widths meet at the wider.
  static std::pair<ExprP, ExprP> unify(ExprP a, ExprP b) {
    if (a->type == b->type) return {a, b};
    bool aLit = a->kind == tir::Expr::Kind::Int || a->kind == tir::Expr::Kind::Float;
    bool bLit = b->kind == tir::Expr::Kind::Int || b->kind == tir::Expr::Kind::Float;
    ScalarType t;
    if (aLit && !bLit) t = b->type;
    else if (bLit && !aLit) t = a->type;
    else if (tir::isFloat(a->type) != tir::isFloat(b->type)) t = tir::isFloat(a->type) ? a->type : b->type;
    else t = bits(a->type) >= bits(b->type) ? a->type : b->type;
    return {tir::cast(t, a), tir::cast(t, b)};
  }

  static ExprP arith(tir::BinOp op, ExprP a, ExprP b) {
    auto [x, y] = unify(std::move(a), std::move(b));
    return tir::binary(op, x, y);
  }

  ExprP expr(TSNode n) {
    Depth depth(*this, n);
    std::string type(typeOf(n));
    if (type == "integer") {
      auto v = integerLiteral(doc_, n);
      if (!v) fail(n, "the integer " + text(n));
      return tir::intImm(*v);
    }
    if (type == "float") {
      auto v = floatLiteral(doc_, n);
      if (!v) fail(n, "the number " + text(n));
      return tir::floatImm(*v, ScalarType::F32);
    }
    if (type == "true" || type == "false") return tir::floatImm(type == "true" ? 1 : 0, ScalarType::Bool);
    if (type == "identifier") return lookup(n);
    if (type == "parenthesized_expression") return expr(child(n, 0));
    if (type == "subscript" && isType(field(n, "value"), "attribute")) return bufferAttribute(n);
    if (type == "subscript") {
      const BufferInfo& b = bufferOf(field(n, "value"));
      return kb_.load(b.id, flatIndex(b, n));
    }
    if (type == "binary_operator") return binaryOperator(n);
    if (type == "unary_operator") {
      std::string op = text(n).substr(0, 1);
      // -9223372036854775808 (INT64_MIN, as the printer writes it): its digits alone overflow
      if (op == "-" && text(n) == "-9223372036854775808") return tir::intImm(INT64_MIN);
      ExprP a = expr(field(n, "argument"));
      if (op == "-") return a->kind == tir::Expr::Kind::Int ? tir::floatImm(-static_cast<double>(a->intValue), a->type) : tir::unary(tir::UnOp::Neg, a);
      if (op == "+") return a;
      if (op == "~") return tir::unary(tir::UnOp::Not, a);
      fail(n, "the operator " + op);
    }
    if (type == "not_operator") return tir::unary(tir::UnOp::Not, tir::cast(ScalarType::Bool, expr(field(n, "argument"))));
    if (type == "boolean_operator") {
      std::string op = text(field(n, "operator"));
      ExprP left = tir::cast(ScalarType::Bool, expr(field(n, "left")));
      Guarded guard(*this);
      return tir::binary(op == "and" ? tir::BinOp::And : tir::BinOp::Or, left, tir::cast(ScalarType::Bool, expr(field(n, "right"))));
    }
    if (type == "comparison_operator") return comparison(n);
    if (type == "conditional_expression") {
      auto kids = namedChildren(n);  // a if c else b
      if (kids.size() != 3) fail(n, "the expression " + text(n));
      ExprP cond = tir::cast(ScalarType::Bool, expr(kids[1]));
      Guarded guard(*this);
      auto [a, b] = unify(expr(kids[0]), expr(kids[2]));
      return tir::select(cond, a, b);
    }
    if (type == "call") return call(n);
    fail(n, "the expression " + text(n));
  }

  // A.shape[i]: the extent of a buffer's axis i.
  ExprP bufferAttribute(TSNode n) {
    TSNode attr = field(n, "value");
    std::string what = text(field(attr, "attribute"));
    if (what != "shape") fail(n, "the buffer attribute " + what);
    const BufferInfo& b = bufferOf(field(attr, "object"));
    auto idx = namedChildren(n);
    auto i = idx.size() == 2 ? staticExtent(idx[1]) : std::nullopt;
    if (!i || *i < 0 || static_cast<size_t>(*i) >= b.shape.size()) fail(n, "the axis of " + text(n));
    return b.shape[static_cast<size_t>(*i)];
  }

  ExprP binaryOperator(TSNode n) {
    std::string op = text(field(n, "operator"));
    ExprP a = expr(field(n, "left")), b = expr(field(n, "right"));
    using B = tir::BinOp;
    static const std::map<std::string, B> ops = {{"+", B::Add}, {"-", B::Sub}, {"*", B::Mul}, {"/", B::Div}, {"//", B::FloorDiv},
                                                 {"%", B::FloorMod}, {"**", B::Pow}, {"<<", B::Shl}, {">>", B::Shr},
                                                 {"&", B::And}, {"|", B::Or}, {"^", B::Xor}};
    auto it = ops.find(op);
    if (it == ops.end()) fail(n, "the operator " + op);
    return arith(it->second, a, b);
  }

  ExprP comparison(TSNode n) {
    auto kids = namedChildren(n);
    if (kids.size() != 2) fail(n, "a chained comparison");
    std::string op;
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
      TSNode c = ts_node_child(n, i);
      if (!ts_node_is_named(c)) op += (op.empty() ? "" : " ") + text(c);
    }
    using B = tir::BinOp;
    static const std::map<std::string, B> ops = {{"<", B::Lt}, {"<=", B::Le}, {">", B::Gt}, {">=", B::Ge}, {"==", B::Eq}, {"!=", B::Ne}};
    auto it = ops.find(op);
    if (it == ops.end()) fail(n, "the comparison " + op);
    return arith(it->second, expr(kids[0]), expr(kids[1]));
  }

  ExprP call(TSNode n) {
    std::string callee = name(field(n, "function"));
    std::vector<TSNode> args;
    std::map<std::string, TSNode> kw;
    for (TSNode a : namedChildren(field(n, "arguments"))) {
      if (isType(a, "keyword_argument")) kw[text(field(a, "name"))] = field(a, "value");
      else args.push_back(a);
    }
    auto need = [&](size_t count) {
      if (args.size() != count) fail(n, callee + " takes " + std::to_string(count) + " argument" + (count == 1 ? "" : "s"));
    };
    if (auto u = unaryIntrinsics().find(callee); u != unaryIntrinsics().end()) {
      need(1);
      ExprP a = expr(args[0]);
      if (u->second != tir::UnOp::Abs && !tir::isFloat(a->type)) a = tir::cast(ScalarType::F32, a);
      return tir::unary(u->second, a);
    }
    if (auto b = binaryIntrinsics().find(callee); b != binaryIntrinsics().end()) {
      need(2);
      return arith(b->second, expr(args[0]), expr(args[1]));
    }
    if (callee == "T.if_then_else" || callee == "T.Select") {
      need(3);
      ExprP cond = tir::cast(ScalarType::Bool, expr(args[0]));
      Guarded guard(*this);
      auto [a, b] = unify(expr(args[1]), expr(args[2]));
      return tir::select(cond, a, b);
    }
    if (callee == "T.bitwise_not") {
      need(1);
      return tir::unary(tir::UnOp::Not, expr(args[0]));
    }
    if (callee == "T.reinterpret") {  // T.reinterpret(dtype, value): its bits as dtype
      need(2);
      ScalarType t = dtype(args[0]);
      ExprP v = expr(args[1]);
      bool half = t == ScalarType::F16 || t == ScalarType::BF16 || v->type == ScalarType::F16 || v->type == ScalarType::BF16;
      if (half || t == ScalarType::Bool || v->type == ScalarType::Bool || runtime::dtypeBytes(t) != runtime::dtypeBytes(v->type))
        fail(n, "T.reinterpret of a " + std::string(runtime::dtypeName(v->type)) + " as " + std::string(runtime::dtypeName(t)));
      return tir::reinterpret(t, v);
    }
    if (callee == "T.Cast") {
      need(2);
      return tir::cast(dtype(args[0]), expr(args[1]));
    }
    if (callee == "T.cast") {
      if (args.size() == 1 && kw.count("dtype")) return tir::cast(dtype(kw["dtype"]), expr(args[0]));
      need(2);
      return tir::cast(dtype(args[1]), expr(args[0]));
    }
    if (callee == "T.ramp") {  // T.ramp(base, stride, lanes): base + stride * lane
      need(3);
      ExprP l = lane(n, args[2]);
      return arith(tir::BinOp::Add, expr(args[0]), arith(tir::BinOp::Mul, expr(args[1]), l));
    }
    if (callee == "T.broadcast" || callee == "T.Broadcast") {  // the same value in every lane
      need(2);
      lane(n, args[1]);
      return expr(args[0]);
    }
    if (callee == "T.max_value" || callee == "T.min_value") {
      need(1);
      ScalarType t = dtype(args[0]);
      return extreme(t, callee == "T.max_value");
    }
    // T.float32(0), T.int64(1), T.bool(True): a value of that type.
    if (callee.rfind("T.", 0) == 0)
      if (auto t = tir::scalarTypeOf(callee.substr(2))) {
        need(1);
        if (auto s = stringLiteral(doc_, args[0])) {  // T.float32("inf"), as TVM prints infinities
          if (*s == "inf" || *s == "-inf" || *s == "nan")
            return tir::floatImm(*s == "nan" ? std::nan("") : *s == "inf" ? HUGE_VAL : -HUGE_VAL, *t);
          fail(args[0], "the value \"" + *s + "\"");
        }
        ExprP v = expr(args[0]);
        if (v->kind == tir::Expr::Kind::Int) return tir::floatImm(static_cast<double>(v->intValue), *t);
        if (v->kind == tir::Expr::Kind::Float) return tir::floatImm(v->floatValue, *t);
        return tir::cast(*t, v);
      }
    fail(n, "the call " + callee + " in a prim_func expression");
  }

  static ExprP extreme(ScalarType t, bool max) {
    if (tir::isFloat(t)) {
      double v = t == ScalarType::F64 ? std::numeric_limits<double>::max()
                 : t == ScalarType::F16 ? 65504.0
                 : t == ScalarType::BF16 ? 3.3895313892515355e38
                                         : std::numeric_limits<float>::max();
      return tir::floatImm(max ? v : -v, t);
    }
    if (t == ScalarType::Bool) return tir::floatImm(max ? 1 : 0, t);
    int b = bits(t);
    bool isUnsigned = runtime::dtypeName(t).starts_with("uint");
    double hi = isUnsigned ? std::ldexp(1.0, b) - 1 : std::ldexp(1.0, b - 1) - 1;
    double lo = isUnsigned ? 0 : -std::ldexp(1.0, b - 1);
    return tir::floatImm(max ? hi : lo, t);
  }

  const syntax::Document& doc_;
  const std::function<std::string(TSNode)>& canon_;
  const std::function<bool(const std::string&)>& isPython_;
  const PythonNumbers& pythonNumber_;
  tir::KernelBuilder kb_;
  std::set<std::string> handles_;
  std::map<std::string, int> locals_;  // T.decl_scalar locals: assignments to them are stores
  std::map<std::string, BufferInfo> buffers_;
  struct Bound {
    ExprP value;
    int symbol = -1;
  };
  std::vector<std::map<std::string, Bound>> scopes_;
  struct TupleBound {
    std::vector<ExprP> values;
    int symbol = -1;
  };
  std::map<std::string, TupleBound> tupleVars_;  // `for iters in T.grid(...)`: the loop variables by position
  std::map<std::string, Bound> floatScalars_;    // float scalar parameters: their value read from the dims
  std::map<std::string, int> localSymbols_, dimSymbols_, envSymbols_;
  std::map<std::string, std::string> envThreads_;  // T.env_thread variables and their tags
  std::vector<std::shared_ptr<const ir::TirSymbol>> symbolList_;
  std::vector<TirRead::Name> names_;
  std::set<std::string> symbols_, dimSeen_;
  std::vector<std::pair<int, int>> dimSources_;
  std::set<int> spatialUse_, reductionUse_;
  std::vector<tir::Kernel::Param> signature_;
  std::vector<tir::Kernel::Workspace> workspaces_;
  // Stores as read (their buffer and flat index) and the spatial axes of the blocks being read: what
  // a block's checks compare.
  struct StoreSite {
    TSNode target;
    std::string buffer;
    int bufferId = -1;
    ExprP index;
  };
  std::vector<StoreSite> stores_;
  struct SpatialAxis {
    TSNode node;
    std::set<int> loops;  // the loop variables its value reads
    ExprP value;
  };
  std::vector<SpatialAxis> spatialAxes_;
  std::vector<diag::Diagnostic> findings_;
  // Compaction (Regions): local and shared arrays (true: shared), their accesses, the loops.
  bool recording_ = false;
  int guarded_ = 0;  // depth of conditions around what is being read (Guarded)
  Regions compacted_;
  std::map<std::string, bool> localArrays_;
  std::map<std::string, std::vector<tir::BufferAccess>> accesses_;
  std::map<int, tir::LoopInfo> loopInfo_;
  std::vector<int> loopStack_;
  struct Lanes {
    int var = -1;  // the vector store's lane variable, made by its first T.ramp / T.broadcast
    int64_t count = 0;
  } lanes_;
  bool inStore_ = false;
  bool userScheduled_ = false;  // a loop's kind was written (T.parallel, T.thread_binding, ...)
};

}  // namespace

std::vector<std::string> symbolicVariablesDeclared(const syntax::Document& doc, TSNode assignment,
                                                   const std::function<std::string(TSNode)>& canonicalName) {
  TSNode left = field(assignment, "left"), right = field(assignment, "right");
  std::vector<TSNode> names = isType(left, "identifier") ? std::vector<TSNode>{left} : namedChildren(left);
  std::vector<TSNode> values = isType(right, "expression_list") ? namedChildren(right) : std::vector<TSNode>{right};
  if (names.empty() || names.size() != values.size()) return {};
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!isType(names[i], "identifier") || !isType(values[i], "call") || !namedChildren(field(values[i], "arguments")).empty()) return {};
    std::string callee = canonicalName(field(values[i], "function"));
    if (callee.rfind("T.int", 0) != 0 && callee.rfind("T.uint", 0) != 0 && callee != "T.var") return {};
    out.emplace_back(doc.slice(rangeOf(names[i])));
  }
  return out;
}

TirRead readPrimFunc(const syntax::Document& doc, TSNode def, const std::function<std::string(TSNode)>& canonicalName,
                     const std::function<bool(const std::string&)>& isPythonName, const PythonNumbers& pythonNumber) {
  auto reading = [&](Reader& reader, TirRead& r) {
    try {
      r.kernel = std::make_shared<tir::Kernel>(reader.read(def));
      r.diagnostics = reader.findings();
    } catch (const NotRead& e) {
      uint32_t line = doc.lines().lineOf(ts_node_start_byte(e.node)) + 1;
      r.diagnostics = reader.findings();
      if (e.code) {
        r.diagnostics.push_back(diag::make(*e.code, rangeOf(e.node), e.what()));
        r.error = "line " + std::to_string(line) + ": " + e.what();
      } else {
        r.error = "line " + std::to_string(line) + ": tvms does not compile " + e.what() + " yet";
        r.unreadAt = rangeOf(e.node);
      }
    }
    // The names found so far, whether or not the whole body was read.
    r.symbols = reader.symbols();
    r.names = reader.names();
  };
  TirRead first;
  Reader recorder(doc, canonicalName, isPythonName, pythonNumber);
  recorder.recordAccesses();
  reading(recorder, first);
  if (!first.kernel || !recorder.hasLocalArrays()) return first;
  // Local or shared arrays: read again with each compacted to the region its accesses touch.
  TirRead r;
  Reader reader(doc, canonicalName, isPythonName, pythonNumber);
  reader.compactWith(recorder.regions());
  reading(reader, r);
  return r;
}

}  // namespace tvms::frontend
