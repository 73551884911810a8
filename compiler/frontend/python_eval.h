#pragma once
// A static evaluator over the straight-line Python of a file: module level and function bodies,
// literals, tuples/lists/dicts, names, unpacking, indexing and slicing, len, int and float arithmetic,
// f-strings, imports, calls of the file's own functions, vdevice objects with identity, numpy array
// shapes. It runs nothing: what it cannot follow (a loop, an `if` on an unknown value, a call of a
// library it does not model) becomes an Unknown value, and the construct is reported once as a TVS011
// note. TVMScript regions read captured names through it (as TVM's parser evaluates them), and the
// builder programs (builder_program.h) give meaning to the calls of TVM's Python APIs through Hooks.
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/frontend/aliases.h"
#include "compiler/frontend/cst.h"
#include "compiler/frontend/python_value.h"

namespace tvms::frontend {

// `obj.name` of an object, waiting for its call: `bb.emit`, `arr.astype`.
struct BoundMethod : PyObject {
  PyValue receiver;
  std::string name;
  std::string typeName() const override { return "method " + name; }
};

class PythonEvaluator {
 public:
  // What gives TVM's APIs their meaning. Each returns nullopt for what it does not handle.
  struct Hooks {
    virtual ~Hooks() = default;
    // A call of `callee` (a Namespace with its canonical name, or a BoundMethod of an Object).
    virtual std::optional<PyValue> call(const PyValue& callee, TSNode call) = 0;
    // Attributes and subscripts of objects have no effect (TVMScript may read them twice).
    virtual std::optional<PyValue> attribute(const PyValue& object, const std::string& name, TSNode node) = 0;
    virtual std::optional<PyValue> subscript(const PyValue& object, const PyValue& index, TSNode node) = 0;
    // `with value [as x]:` enters / leaves a frame; returns what `as` binds.
    virtual std::optional<PyValue> enter(const PyValue& value, TSNode item) = 0;
    virtual void exit(const PyValue& value, TSNode item) = 0;
    // A TVMScript definition (@I.ir_module class, @R.function, @T.prim_func) reached by the program:
    // lowered with the names visible here; returns what its name is bound to.
    virtual PyValue tvmscript(TSNode decorated) = 0;
  };

  PythonEvaluator(const syntax::Document& doc, const Aliases& aliases, Hooks& hooks);

  // Executes the module's statements, then the body of every function the program did not call (a
  // test function, run by pytest), with its parameters unknown.
  void run();

  PyValue eval(TSNode expr);
  // The value of an expression read by TVMScript: no call with an effect is made (a builder method,
  // a function of the file), so reading it twice is harmless.
  PyValue evalPure(TSNode expr);
  const PyValue* lookup(const std::string& name) const;
  // Which run of which function body is executing (0: the module's statements): builders made in one
  // test function do not collect the values another makes.
  uint64_t frameId() const { return frameIds_.empty() ? 0 : frameIds_.back(); }
  // A name the current scope binds to exactly `v` (same list or object), for messages and fixes:
  // "vdevice" for the list, "vdevice[1]" for its entry.
  std::string spellingOf(const PyValue& v) const;
  std::string canonicalName(const PyValue& namespaceValue) const;

  // TVS011 once per kind of construct: "not checked: <what>".
  void notFollowed(TSNode n, const std::string& what);
  std::vector<diag::Diagnostic>& diagnostics() { return diagnostics_; }
  const syntax::Document& document() const { return doc_; }
  std::string text(TSNode n) const { return std::string(doc_.nodeText(n)); }
  // Function arguments, evaluated: positional values and keywords (a `*xs` splat expanded).
  struct Arguments {
    std::vector<PyValue> positional;
    std::vector<TSNode> positionalNodes;
    std::vector<std::pair<std::string, PyValue>> keywords;
    std::vector<TSNode> keywordNodes;
    const PyValue* keyword(std::string_view name) const;
    // The argument at `index` or named `name`, else null.
    const PyValue* get(size_t index, std::string_view name) const;
    TSNode nodeOf(size_t index, std::string_view name) const;
  };
  Arguments arguments(TSNode argumentList);
  void bind(TSNode target, const PyValue& value);

 private:
  using Scope = std::unordered_map<std::string, PyValue>;
  void exec(TSNode block);
  void statement(TSNode stmt);
  void withStatement(TSNode stmt);
  void forgetAssignedIn(TSNode n, const std::string& why);
  PyValue evalCall(TSNode call);
  PyValue comparison(TSNode n);
  PyValue callFunction(const PyValue& fn, TSNode call, const Arguments& args);
  std::optional<PyValue> valueCall(const std::string& canonical, const Arguments& args, TSNode call);
  PyValue builtinCall(const std::string& name, const Arguments& args, TSNode call);
  PyValue attribute(const PyValue& object, const std::string& name, TSNode node);
  PyValue subscript(const PyValue& object, TSNode index, TSNode node);
  PyValue binary(const std::string& op, const PyValue& a, const PyValue& b);
  PyValue fstring(TSNode n);
  void importStatement(TSNode stmt);

  const syntax::Document& doc_;
  const Aliases& aliases_;
  Hooks& hooks_;
  Scope globals_;
  std::vector<Scope> locals_;  // one per followed function call
  std::vector<uint64_t> frameIds_;
  uint64_t nextFrameId_ = 1;
  bool pure_ = false;
  bool returned_ = false;
  PyValue returnValue_;
  int depth_ = 0, blockDepth_ = 0, bindDepth_ = 0;
  uint64_t steps_ = 0;
  std::set<uint32_t> executedFunctions_;  // start bytes of function definitions whose body ran
  std::vector<TSNode> functionDefinitions_;
  std::set<std::string> notedConstructs_;
  std::vector<diag::Diagnostic> diagnostics_;
};

// numpy's dtype names as TVM spells them ("float" is float64).
std::string numpyDType(const std::string& name);

// Converts a known Python value to an attribute value (ints, floats, strings, None, bools and
// sequences of them); nullopt for anything else.
std::optional<ir::Value> toAttributeValue(const PyValue& v);

}  // namespace tvms::frontend
