#pragma once
// Test fixtures with named positions (as rust-analyzer's `$0`): `$[name]` written just before a
// character marks that character's offset and is removed from the text, so a test asks for
// `m["s_def"]` instead of finding a substring and adding to it. A fixture with no markers is its text.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tvms::test {

struct Marked {
  std::string text;
  std::map<std::string, uint32_t> positions;
  uint32_t operator[](const std::string& name) const {
    auto it = positions.find(name);
    REQUIRE_MESSAGE(it != positions.end(), "no marker $[" << name << "] in the fixture");
    return it->second;
  }
};

inline Marked marked(std::string_view source) {
  Marked m;
  for (size_t i = 0; i < source.size();) {
    if (source.compare(i, 2, "$[") == 0) {
      size_t end = source.find(']', i + 2);
      REQUIRE_MESSAGE(end != std::string_view::npos, "an unclosed $[ marker at byte " << i);
      std::string name(source.substr(i + 2, end - i - 2));
      REQUIRE_MESSAGE(!m.positions.count(name), "the marker $[" << name << "] twice");
      m.positions[name] = static_cast<uint32_t>(m.text.size());
      i = end + 1;
      continue;
    }
    m.text += source[i++];
  }
  return m;
}

}  // namespace tvms::test
