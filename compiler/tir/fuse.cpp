#include "compiler/tir/fuse.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "compiler/tir/rewrite.h"

namespace tvms::tir {

namespace {

// The last parameter: the op builders' kernels list inputs, then their output(s).
int outputBuffer(const Kernel& k) {
  int last = -1;
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (k.buffers[b].param) last = static_cast<int>(b);
  return last;
}

bool sameExpr(const ExprP& a, const ExprP& b);

// `e` matched against `pattern`, whose variables in `free` may stand for any expression (bound in
// `binds`, consistently); every other node must be the same.
bool unify(const ExprP& pattern, const ExprP& e, const std::set<int>& free, std::map<int, ExprP>& binds) {
  if (!pattern || !e) return pattern == e;
  if (pattern->kind == Expr::Kind::Var && free.count(pattern->id)) {
    auto [it, fresh] = binds.emplace(pattern->id, e);
    return fresh || sameExpr(it->second, e);
  }
  if (pattern->kind != e->kind || pattern->type != e->type) return false;
  switch (pattern->kind) {
    case Expr::Kind::Int: return pattern->intValue == e->intValue;
    case Expr::Kind::Float: return pattern->floatValue == e->floatValue;
    case Expr::Kind::Var: return pattern->id == e->id;
    default: break;
  }
  return pattern->id == e->id && pattern->binOp == e->binOp && pattern->unOp == e->unOp && unify(pattern->a, e->a, free, binds) &&
         unify(pattern->b, e->b, free, binds) && unify(pattern->c, e->c, free, binds);
}

// Structurally equal: a match with no free variables.
bool sameExpr(const ExprP& a, const ExprP& b) {
  if (a == b) return true;
  std::map<int, ExprP> none;
  return unify(a, b, {}, none);
}

// Calls f on `e` and every node under it.
void forEachNode(const ExprP& e, const std::function<void(const ExprP&)>& f) {
  if (!e) return;
  f(e);
  forEachNode(e->a, f);
  forEachNode(e->b, f);
  forEachNode(e->c, f);
}

void forEachExpr(const std::vector<StmtP>& body, const std::function<void(const ExprP&)>& f) {
  for (auto& s : body) {
    for (const ExprP* e : {&s->extent, &s->index, &s->value, &s->cond}) forEachNode(*e, f);
    forEachExpr(s->body, f);
  }
}

void forEachStmt(const std::vector<StmtP>& body, const std::function<void(const Stmt&)>& f) {
  for (auto& s : body) {
    f(*s);
    forEachStmt(s->body, f);
  }
}

bool loads(const std::vector<StmtP>& body, int buffer) {
  bool found = false;
  forEachExpr(body, [&](const ExprP& e) { found |= e->kind == Expr::Kind::Load && e->id == buffer; });
  return found;
}

int loadCount(const ExprP& e, int buffer) {
  if (!e) return 0;
  return (e->kind == Expr::Kind::Load && e->id == buffer) + loadCount(e->a, buffer) + loadCount(e->b, buffer) + loadCount(e->c, buffer);
}

// One perfect nest of spatial loops around a single store of the output at the row-major index of
// the loops (or at the one loop's variable): out[flat(i0, .., in)] = value.
struct InjectiveForm {
  std::vector<int> loops;
  std::vector<ExprP> extents;
  ExprP index, value;
};

std::optional<InjectiveForm> injectiveForm(const Kernel& k, const std::vector<StmtP>& body, int out) {
  if (body.size() != 1) return std::nullopt;
  InjectiveForm f;
  const Stmt* s = body[0].get();
  while (s->kind == Stmt::Kind::For) {
    if (s->iter != IterType::Spatial || s->forKind != ForKind::Serial || s->keepScalar || readsLoopVariable(k, s->extent) ||
        s->body.size() != 1)
      return std::nullopt;
    f.loops.push_back(s->var);
    f.extents.push_back(s->extent);
    s = s->body[0].get();
  }
  if (f.loops.empty() || s->kind != Stmt::Kind::Store || s->buffer != out || loadCount(s->value, out)) return std::nullopt;
  std::set<int> read;
  variablesOf(s->value, read);
  for (int v : read)
    if (k.vars[static_cast<size_t>(v)].role == Variable::Role::Local) return std::nullopt;
  ExprP flat = intImm(0);
  for (size_t d = 0; d < f.loops.size(); ++d) flat = flat * f.extents[d] + varRef(k, f.loops[d]);
  bool oneLoop = f.loops.size() == 1 && s->index->kind == Expr::Kind::Var && s->index->id == f.loops[0];
  if (!oneLoop && !sameExpr(s->index, flat)) return std::nullopt;
  f.index = s->index;
  f.value = s->value;
  return f;
}

// The loop variables of `f` that give flat index `at`: matched against the store's index when `at`
// is written the same way (no arithmetic), else taken apart by div / mod, innermost fastest.
std::map<int, ExprP> indexFor(const InjectiveForm& f, const ExprP& at) {
  std::map<int, ExprP> binds;
  if (unify(f.index, at, std::set<int>(f.loops.begin(), f.loops.end()), binds) && binds.size() == f.loops.size()) return binds;
  return rowMajorIndex(f.loops, f.extents, at);
}

// A member's compute copied into the fused kernel: its variables and buffers renumbered.
struct Imported {
  std::vector<StmtP> body;
  int output = -1;  // its output's buffer in the fused kernel
};

// A CPU GEMM's compute: its output's stores marked final (the last K block) beside partial sums.
bool finalStores(const Kernel& k, int out) {
  bool found = false;
  forEachStmt(k.body, [&](const Stmt& s) { found |= s.kind == Stmt::Kind::Store && s.buffer == out && s.finalValue; });
  return found;
}

class Fuser {
 public:
  Fuser(const std::vector<FusionMember>& members, size_t groupInputs, const std::string& name) : members_(members), groupInputs_(groupInputs) {
    k_.name = name;
    k_.target = members.back().compute->target;
    k_.buffers.resize(groupInputs + 1);
    for (auto& b : k_.buffers) b.name.clear();
  }

  std::optional<Kernel> run(std::string* why) {
    auto fail = [&](std::string w) -> std::optional<Kernel> {
      if (why) *why = std::move(w);
      return std::nullopt;
    };
    int anchor = -1;
    for (size_t m = 0; m < members_.size(); ++m) {
      FusionPattern p = fusionPattern(*members_[m].compute);
      if (p == FusionPattern::Opaque) return fail("member " + std::to_string(m) + " (" + members_[m].compute->name + ") cannot be fused");
      if (p == FusionPattern::Anchor && anchor >= 0) return fail("a group has at most one reduction");
      if (p == FusionPattern::Anchor) anchor = static_cast<int>(m);
      imported_.push_back(import(m));
    }
    for (size_t b = 0; b <= groupInputs_; ++b)
      if (k_.buffers[b].name.empty()) return fail("group input " + std::to_string(b) + " is not read by any member");
    int root = anchor >= 0 ? anchor : static_cast<int>(members_.size()) - 1;
    std::vector<StmtP> body = imported_[static_cast<size_t>(root)].body;
    std::set<int> done{root};
    // A GEMM's partial sums go through its output between K blocks: its epilogue is folded into the
    // final stores only, and the partial sums then live in the group's output (same shape, same dtype).
    const int gemmOut = anchor >= 0 && finalStores(*members_[static_cast<size_t>(anchor)].compute, outputBuffer(*members_[static_cast<size_t>(anchor)].compute))
                            ? imported_[static_cast<size_t>(anchor)].output
                            : -1;
    if (gemmOut >= 0 && anchor != 0) return fail("a GEMM takes epilogues only (its operands stay apart)");
    if (gemmOut >= 0 && k_.buffers[groupInputs_].type != k_.buffers[static_cast<size_t>(gemmOut)].type)
      return fail("a GEMM's epilogue must keep its dtype (its partial sums go through the output)");
    finalOnly_ = gemmOut >= 0;
    // The anchor's epilogue, consumer by consumer, into its stores.
    for (int cur = root; cur != static_cast<int>(members_.size()) - 1;) {
      int next = consumerOf(cur);
      if (next < 0) return fail("the output of " + members_[static_cast<size_t>(cur)].compute->name + " is not read in the group");
      const auto& in = members_[static_cast<size_t>(next)].inputs;
      for (size_t param = 0; param < in.size(); ++param)
        if (in[param] == -cur - 1 && !readsAtOwnIndex(*members_[static_cast<size_t>(next)].compute, static_cast<int>(param)))
          return fail(members_[static_cast<size_t>(next)].compute->name + " does not read its input at its own index");
      body = fold(body, imported_[static_cast<size_t>(cur)].output, static_cast<size_t>(next));
      done.insert(next);
      cur = next;
    }
    // Every other member is injective: inlined where it is read, consumers before producers.
    for (size_t m = members_.size(); m-- > 0;) {
      if (done.count(static_cast<int>(m))) continue;
      int out = imported_[m].output;
      auto form = injectiveForm(k_, imported_[m].body, out);
      if (!form) return fail(members_[m].compute->name + " is not one loop nest storing each element once");
      body = inlineLoads(body, out, *form);
    }
    if (gemmOut >= 0 && gemmOut != static_cast<int>(groupInputs_))
      body = renumberBuffers(body, identityBut(gemmOut, static_cast<int>(groupInputs_)));
    for (size_t b = groupInputs_ + 1; b < k_.buffers.size(); ++b)
      if (intermediates_.count(static_cast<int>(b)) && (loads(body, static_cast<int>(b)) || stores(body, static_cast<int>(b))))
        return fail("an intermediate tensor is still read after fusion");
    k_.body = std::move(body);
    dropIntermediates();
    pruneDims();
    return std::move(k_);
  }

 private:
  Imported import(size_t m) {
    const Kernel& c = *members_[m].compute;
    std::map<int, int> vars, bufs;
    for (size_t v = 0; v < c.vars.size(); ++v) vars[static_cast<int>(v)] = importVar(c.vars[v]);
    int out = outputBuffer(c);
    int input = 0;
    Imported im;
    for (size_t b = 0; b < c.buffers.size(); ++b) {
      const Buffer& buf = c.buffers[b];
      int at;
      if (buf.param && static_cast<int>(b) != out) {
        int from = input < static_cast<int>(members_[m].inputs.size()) ? members_[m].inputs[static_cast<size_t>(input)] : 0;
        ++input;
        if (from >= 0) {
          at = from;
          if (k_.buffers[static_cast<size_t>(at)].name.empty()) k_.buffers[static_cast<size_t>(at)] = buf;
        } else {
          at = imported_.at(static_cast<size_t>(-from - 1)).output;
        }
      } else if (buf.param && m + 1 == members_.size()) {
        at = static_cast<int>(groupInputs_);
        k_.buffers[static_cast<size_t>(at)] = buf;
      } else {
        k_.buffers.push_back(buf);
        if (buf.param) {  // an intermediate: a name for messages, never a buffer of the fused kernel
          k_.buffers.back().param = false;
          intermediates_.insert(static_cast<int>(k_.buffers.size()) - 1);
        }
        at = static_cast<int>(k_.buffers.size()) - 1;
      }
      bufs[static_cast<int>(b)] = at;
      if (static_cast<int>(b) == out) im.output = at;
    }
    im.body = mapStmts(
        c.body,
        [&](const ExprP& n) -> ExprP {
          if (n->kind != Expr::Kind::Var && n->kind != Expr::Kind::Load) return n;
          auto copy = std::make_shared<Expr>(*n);
          copy->id = n->kind == Expr::Kind::Var ? vars.at(n->id) : bufs.at(n->id);
          return copy;
        },
        [&](Stmt& s) {
          if (s.var >= 0) s.var = vars.at(s.var);
          if (s.buffer >= 0) s.buffer = bufs.at(s.buffer);
        });
    return im;
  }

  // Dims are shared by name (every member reads the caller's symbolic dims); loops and locals are new.
  int importVar(const Variable& v) {
    if (v.role == Variable::Role::Dim) {
      for (size_t i = 0; i < k_.vars.size(); ++i)
        if (k_.vars[i].role == Variable::Role::Dim && k_.vars[i].name == v.name) return static_cast<int>(i);
      k_.vars.push_back({v.name, v.type, v.role, static_cast<int>(k_.dims.size())});
      k_.dims.push_back(v.name);
      return static_cast<int>(k_.vars.size()) - 1;
    }
    std::string name = v.name;
    for (int n = 1; names_.count(name); ++n) name = v.name + "_" + std::to_string(n);
    names_.insert(name);
    Variable copy = v;
    copy.name = name;
    k_.vars.push_back(copy);
    return static_cast<int>(k_.vars.size()) - 1;
  }

  int consumerOf(int m) const {
    for (size_t c = 0; c < members_.size(); ++c)
      for (int from : members_[c].inputs)
        if (from == -m - 1) return static_cast<int>(c);
    return -1;
  }
  static bool stores(const std::vector<StmtP>& body, int buffer) {
    bool found = false;
    forEachStmt(body, [&](const Stmt& s) { found |= s.kind == Stmt::Kind::Store && s.buffer == buffer; });
    return found;
  }

  // Each store of `from` in `body` stores member `consumer`'s value for that element into its output
  // instead; a value the consumer reads twice (SiLU's x * sigmoid(x)) is computed once into a temporary.
  std::vector<StmtP> fold(const std::vector<StmtP>& body, int from, size_t consumer) {
    const Imported& c = imported_[consumer];
    auto form = injectiveForm(k_, c.body, c.output);
    std::vector<StmtP> out;
    for (auto& s : body) {
      if (s->kind != Stmt::Kind::Store || s->buffer != from || (finalOnly_ && !s->finalValue)) {
        auto copy = std::make_shared<Stmt>(*s);
        copy->body = fold(s->body, from, consumer);
        out.push_back(copy);
        continue;
      }
      ExprP value = s->value;
      bool simple = value->kind == Expr::Kind::Load || value->kind == Expr::Kind::Var || value->kind == Expr::Kind::Int ||
                    value->kind == Expr::Kind::Float;
      if (loadCount(form->value, from) > 1 && !simple) {
        k_.vars.push_back({"t" + std::to_string(k_.vars.size()), value->type, Variable::Role::Local, -1, true});
        int t = static_cast<int>(k_.vars.size()) - 1;
        out.push_back(assign(t, value));
        value = varRef(k_, t);
      }
      ExprP g = substitute(form->value, indexFor(*form, s->index));
      g = mapExpr(g, [&](const ExprP& n) { return n->kind == Expr::Kind::Load && n->id == from ? value : n; });
      auto folded = std::make_shared<Stmt>(*store(c.output, s->index, g));
      folded->finalValue = s->finalValue;
      out.push_back(folded);
    }
    return out;
  }

  // Every buffer to itself but `from`, which becomes `to`.
  std::map<int, int> identityBut(int from, int to) const {
    std::map<int, int> m;
    for (size_t b = 0; b < k_.buffers.size(); ++b) m[static_cast<int>(b)] = static_cast<int>(b);
    m[from] = to;
    return m;
  }

  static std::vector<StmtP> inlineLoads(const std::vector<StmtP>& body, int buffer, const InjectiveForm& f) {
    return mapStmts(body, [&](const ExprP& n) {
      return n->kind == Expr::Kind::Load && n->id == buffer ? substitute(f.value, indexFor(f, n->a)) : n;
    });
  }

  // The intermediates' buffer slots go; the local arrays after them move down.
  void dropIntermediates() {
    std::map<int, int> renumber;
    std::vector<Buffer> kept;
    for (size_t b = 0; b < k_.buffers.size(); ++b) {
      if (intermediates_.count(static_cast<int>(b))) continue;
      renumber[static_cast<int>(b)] = static_cast<int>(kept.size());
      kept.push_back(k_.buffers[b]);
    }
    k_.buffers = std::move(kept);
    k_.body = renumberBuffers(k_.body, renumber);
  }
  static std::vector<StmtP> renumberBuffers(const std::vector<StmtP>& body, const std::map<int, int>& to) {
    return mapStmts(
        body,
        [&](const ExprP& n) -> ExprP {
          if (n->kind != Expr::Kind::Load || to.at(n->id) == n->id) return n;
          auto copy = std::make_shared<Expr>(*n);
          copy->id = to.at(n->id);
          return copy;
        },
        [&](Stmt& s) {
          if (s.buffer >= 0) s.buffer = to.at(s.buffer);
        });
  }

  // Only the dims the fused body reads are passed (an inlined producer's loop extents are gone).
  void pruneDims() {
    std::set<int> used;
    forEachExpr(k_.body, [&](const ExprP& e) {
      if (e->kind == Expr::Kind::Var) used.insert(e->id);
    });
    k_.dims.clear();
    for (size_t v = 0; v < k_.vars.size(); ++v) {
      Variable& var = k_.vars[v];
      if (var.role != Variable::Role::Dim) continue;
      var.dimIndex = used.count(static_cast<int>(v)) ? static_cast<int>(k_.dims.size()) : -1;
      if (var.dimIndex >= 0) k_.dims.push_back(var.name);
    }
  }

  const std::vector<FusionMember>& members_;
  size_t groupInputs_;
  Kernel k_;
  std::vector<Imported> imported_;
  std::set<int> intermediates_;
  std::set<std::string> names_;
  bool finalOnly_ = false;  // the anchor is a GEMM: epilogues fold into its final stores alone
};

}  // namespace

FusionPattern fusionPattern(const Kernel& k) {
  int out = outputBuffer(k);
  if (out < 0 || !k.signature.empty() || k.scheduledByAuthor || !k.workspaces.empty()) return FusionPattern::Opaque;
  if (finalStores(k, out)) return FusionPattern::Anchor;  // takes elementwise epilogues at its final stores only
  for (auto& b : k.buffers)
    if (!b.param) return FusionPattern::Opaque;  // packed panels, shared memory: a tiled schedule's compute
  bool opaque = false;
  forEachStmt(k.body, [&](const Stmt& s) {
    opaque |= s.kind == Stmt::Kind::Barrier || s.kind == Stmt::Kind::WarpReduce;
    opaque |= s.kind == Stmt::Kind::For && (s.forKind != ForKind::Serial || s.keepScalar);
    opaque |= s.kind == Stmt::Kind::Store && s.buffer != out;  // several outputs
  });
  if (opaque || loads(k.body, out)) return FusionPattern::Opaque;
  return injectiveForm(k, k.body, out) ? FusionPattern::Injective : FusionPattern::Anchor;
}

bool readsAtOwnIndex(const Kernel& consumer, int param) {
  int out = outputBuffer(consumer);
  auto form = injectiveForm(consumer, consumer.body, out);
  if (!form || param < 0 || static_cast<size_t>(param) >= consumer.buffers.size() || consumer.buffers[static_cast<size_t>(param)].shape != consumer.buffers[static_cast<size_t>(out)].shape)
    return false;
  bool own = loadCount(form->value, param) > 0;
  forEachNode(form->value, [&](const ExprP& e) { own &= !(e->kind == Expr::Kind::Load && e->id == param && !sameExpr(e->a, form->index)); });
  return own;
}

double readsPerElement(const Kernel& k, int param) {
  double reads = 0;
  bool symbolic = false;
  std::function<void(const std::vector<StmtP>&, double)> visit = [&](const std::vector<StmtP>& body, double trips) {
    for (auto& s : body) {
      double inner = trips;
      if (s->kind == Stmt::Kind::For) {
        if (s->extent->kind == Expr::Kind::Int) inner *= static_cast<double>(s->extent->intValue);
        else symbolic = true;
      }
      for (const ExprP* e : {&s->index, &s->value, &s->cond}) reads += trips * loadCount(*e, param);
      visit(s->body, inner);
    }
  };
  visit(k.body, 1);
  double elements = 1;
  for (auto& d : k.buffers.at(static_cast<size_t>(param)).shape) {
    char* end = nullptr;
    double v = std::strtod(d.c_str(), &end);
    if (end == d.c_str() || *end) symbolic = true;
    elements *= v;
  }
  return symbolic || elements <= 0 ? 1 : reads / elements;
}

std::optional<Kernel> fuseKernels(const std::vector<FusionMember>& members, size_t groupInputs, const std::string& name, std::string* why) {
  if (members.empty()) {
    if (why) *why = "an empty group";
    return std::nullopt;
  }
  return Fuser(members, groupInputs, name).run(why);
}

}  // namespace tvms::tir
