// tvms graph FILE [--function NAME] [--after Normalize|RealizeVDevice] [-o OUT.dot|OUT.svg]: a
// function's dataflow as a Graphviz graph, each value coloured by the vdevice it lives on (after
// RealizeVDevice by default: where things run), each copy between vdevices labelled with its bytes.
// SVG is drawn by Graphviz's `dot` (Debian's graphviz package); DOT needs nothing.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "compiler/analysis/lint.h"
#include "compiler/ir/printer.h"
#include "compiler/op/registry.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/rewriter.h"
#include "runtime/dtype.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/file_module.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

namespace {

constexpr const char* kUsage =
    "usage: tvms graph FILE [--function NAME] [--after Normalize|RealizeVDevice] [-o OUT.dot|OUT.svg]\n"
    "       a function's dataflow (default main), coloured by vdevice, copies labelled with their bytes;\n"
    "       DOT on stdout without -o; SVG through Graphviz's dot\n";

// Colours for the vdevice entries in list order (ColorBrewer Set2), then grey for "no vdevice".
const char* const kPalette[] = {"#66c2a5", "#fc8d62", "#8da0cb", "#e78ac3", "#a6d854", "#ffd92f", "#e5c494", "#b3b3b3"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

// Bytes of a tensor with a static shape and a known dtype, else -1.
int64_t staticBytes(const ir::StructInfo* s) {
  if (!s || s->kind != ir::StructInfo::Kind::Tensor || !s->shape) return -1;
  auto dt = runtime::dtypeFromName(s->dtype);
  if (!dt) return -1;
  int64_t n = 1;
  for (auto& d : *s->shape) {
    if (d->kind != ir::PrimExpr::Kind::Int) return -1;
    n *= d->value;
  }
  return n * static_cast<int64_t>(runtime::dtypeBytes(*dt));
}

std::string graphOf(const ir::IRModule& m, const ir::Function& f) {
  std::ostringstream g;
  g << "digraph \"" << escape(f.name) << "\" {\n  rankdir=TB;\n  node [shape=box, style=\"filled,rounded\", fontname=\"Helvetica\"];\n"
    << "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  auto colour = [&](const ir::StructInfo* s) -> std::string {
    const ir::VDevice* v = ir::placedOn(s);
    int i = v ? m.indexOf(v) : -1;
    return i >= 0 && i < 7 ? kPalette[i] : kPalette[7];
  };
  std::map<const ir::Var*, std::string> ids;
  int next = 0;
  auto node = [&](const ir::Var* v, const std::string& label) {
    std::string id = "n" + std::to_string(next++);
    ids[v] = id;
    const ir::StructInfo* s = v->annotation.get();
    g << "  " << id << " [label=\"" << escape(label + "\n" + (s ? ir::printStructInfo(v->annotation, m) : std::string("?")))
      << "\", fillcolor=\"" << colour(s) << "\"];\n";
  };
  for (auto& p : f.params) node(p.get(), p->name);
  std::vector<const ir::SeqExpr*> seqs{f.body.get()};
  for (size_t k = 0; k < seqs.size(); ++k) {
    const ir::SeqExpr* seq = seqs[k];
    if (!seq) continue;
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) {
        if (b->vars.empty()) continue;
        std::string op;
        if (auto* c = ir::as<ir::Call>(b->value)) op = c->op.rfind("relax.", 0) == 0 ? "R." + c->op.substr(6) : c->op;
        else if (auto* i = ir::as<ir::If>(b->value)) {
          op = "if";
          seqs.push_back(i->thenBranch.get());
          seqs.push_back(i->elseBranch.get());
        }
        const ir::Var* out = b->vars[0].get();
        node(out, out->name + (op.empty() ? "" : " = " + op));
        bool copy = false;
        if (auto* c = ir::as<ir::Call>(b->value)) copy = c->def == &op::builtin::toVDevice();
        transform::forEachVarUse(b->value, [&](const ir::Var* used) {
          auto it = ids.find(used);
          if (it == ids.end()) return;
          g << "  " << it->second << " -> " << ids[out];
          if (copy) {
            int64_t bytes = staticBytes(used->annotation.get());
            g << " [style=dashed, penwidth=2, label=\"copy" << (bytes >= 0 ? " " + std::to_string(bytes) + " bytes" : "") << "\"]";
          }
          g << ";\n";
        });
      }
    if (k == 0 && seq->body) {
      g << "  ret [label=\"return\", shape=oval, fillcolor=\"white\"];\n";
      transform::forEachVarUse(seq->body, [&](const ir::Var* used) {
        if (auto it = ids.find(used); it != ids.end()) g << "  " << it->second << " -> ret;\n";
      });
    }
  }
  // The legend: one box per vdevice entry in its colour.
  g << "  subgraph cluster_legend {\n    label=\"vdevices\"; fontname=\"Helvetica\";\n";
  for (size_t i = 0; i < m.vdevices.size(); ++i) {
    int k = m.kindIndexOf(m.vdevices[i].get());
    g << "    legend" << i << " [label=\"" << escape(m.vdevices[i]->target.kind + ":" + std::to_string(k)) << "\", fillcolor=\""
      << (i < 7 ? kPalette[i] : kPalette[7]) << "\"];\n";
  }
  g << "    legend_none [label=\"no vdevice\", fillcolor=\"" << kPalette[7] << "\"];\n  }\n}\n";
  return g.str();
}

}  // namespace

int runGraph(const Args& args) {
  std::string path, function = "main", after = "RealizeVDevice", out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if ((a == "-o" || a == "--function" || a == "--after") && i + 1 < args.size()) {
      (a == "-o" ? out : a == "--function" ? function : after) = args[++i];
    } else if (a.starts_with("-")) {
      std::cerr << "tvms graph: unknown option '" << a << "'\n" << kUsage;
      return 2;
    } else if (path.empty()) {
      path = a;
    } else {
      std::cerr << kUsage;
      return 2;
    }
  }
  if (path.empty() || (after != "Normalize" && after != "RealizeVDevice")) {
    std::cerr << kUsage;
    return 2;
  }
  if (!out.empty() && outputIsAnInput("-o", out, {path})) return 2;
  auto src = readSource(path);
  if (!src) return 2;
  syntax::Document doc(src->text);
  auto lint = analysis::lintDocument(doc);
  if (int errors = printErrors(lint, path, doc)) {
    std::cerr << "tvms graph: " << path << ": " << errors << " error(s); fix them first\n";
    return 1;
  }
  const ir::IRModule* module = moduleToBuild(lint.file);
  if (!module) {
    std::cerr << "tvms graph: " << path << ": no TVMScript module\n";
    return 1;
  }
  ir::IRModule shown = transform::normalize(*module);
  if (after == "RealizeVDevice") shown = transform::realizeVDevice(shown);
  const ir::ModuleFunction* f = shown.function(function);
  if (!f || !f->relax) {
    std::cerr << "tvms graph: " << path << ": no Relax function '" << function << "'\n";
    return 1;
  }
  std::string dot = graphOf(shown, *f->relax);
  if (out.empty()) {
    std::cout << dot;
    return 0;
  }
  bool svg = out.size() > 4 && out.substr(out.size() - 4) == ".svg";
  if (!svg) return writeFile(out, dot) ? 0 : 2;
  // dot reads a temporary of our own (never a name beside the output that a user file may have) and
  // is started without a shell, so no path is ever read as shell text.
  std::string dotFile = (std::filesystem::temp_directory_path() / "tvms-graph-XXXXXX").string();
  int fd = ::mkstemp(dotFile.data());
  if (fd < 0 || ::write(fd, dot.data(), dot.size()) != static_cast<ssize_t>(dot.size())) {
    if (fd >= 0) ::close(fd), std::remove(dotFile.c_str());
    std::cerr << "tvms graph: cannot write a temporary file for dot\n";
    return 2;
  }
  ::close(fd);
  const char* argv[] = {"dot", "-Tsvg", dotFile.c_str(), "-o", out.c_str(), nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, "dot", nullptr, nullptr, const_cast<char* const*>(argv), environ);
  if (rc == 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  std::remove(dotFile.c_str());
  if (rc != 0) {
    std::cerr << "tvms graph: drawing the SVG needs Graphviz's dot (apt install graphviz); write -o "
              << out.substr(0, out.size() - 4) << ".dot instead\n";
    return 2;
  }
  return 0;
}

}  // namespace tvms::cli
