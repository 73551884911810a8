#pragma once
// A library call's attributes as OffloadLibraries writes them into the function's name,
// "tvms.cudnn.conv2d?layout=NHWC&stride=1,1": read back by the runtime's library functions.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tvms::runtime {

// "name?a=1&b=x,y" -> {a: "1", b: "x,y"}.
inline std::map<std::string, std::string> parseLibraryQuery(const std::string& name) {
  std::map<std::string, std::string> out;
  size_t q = name.find('?');
  for (size_t at = q == std::string::npos ? name.size() : q + 1; at < name.size();) {
    size_t amp = name.find('&', at), eq = name.find('=', at);
    if (amp == std::string::npos) amp = name.size();
    if (eq < amp) out[name.substr(at, eq - at)] = name.substr(eq + 1, amp - eq - 1);
    at = amp + 1;
  }
  return out;
}

// {1, -2, 3} -> "1,-2,3".
inline std::string formatLibraryInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// "1,-2,3" -> {1, -2, 3}; std::invalid_argument on anything else.
inline std::vector<int64_t> parseLibraryInts(const std::string& s) {
  std::vector<int64_t> v;
  for (size_t at = 0; at < s.size();) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    v.push_back(std::stoll(s.substr(at, comma - at)));
    at = comma + 1;
  }
  return v;
}

}  // namespace tvms::runtime
