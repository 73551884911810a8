#pragma once
// A diagnostic as every stage reports it: a catalogue code, a severity, a byte range in the document,
// a message, related locations and fixes (text edits).
#include <string>
#include <vector>

#include "compiler/diagnostics/codes.h"
#include "compiler/syntax/position.h"

namespace tvms::diag {

using syntax::ByteRange;

enum class Severity { Error, Warning, Info };
std::string_view severityName(Severity s);

struct Related {
  ByteRange range;
  std::string message;
};

struct TextEdit {
  ByteRange range;
  std::string newText;
};

struct Fix {
  std::string title;
  std::vector<TextEdit> edits;
  bool safe = true;  // applied by `tvms lint --fix`
  // Written for text that is the program's Python (a builder program, a vdevice list made in Python):
  // only such fixes are offered there, TVMScript edits would not fit.
  bool python = false;
};

struct Diagnostic {
  Code code = Code::TVS001;
  Severity severity = Severity::Error;
  ByteRange range;
  std::string message;
  std::vector<Related> related;
  std::vector<Fix> fixes;
};

// A diagnostic with the code's default severity from the catalogue.
Diagnostic make(Code code, ByteRange range, std::string message);

}  // namespace tvms::diag
