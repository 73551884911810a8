// The tvms.run command's arguments and the child's command line (server/run_command.h).
#include <doctest/doctest.h>

#include "server/run_command.h"

using tvms::server::json;
using tvms::server::readRunRequest;
using tvms::server::RunRequest;
using tvms::server::runCommandLine;

TEST_CASE("run command: one object or positional arguments, with their defaults") {
  auto r = readRunRequest({{"command", "tvms.run"},
                           {"arguments", json::array({{{"uri", "file:///w/m.py"}, {"function", "f"}, {"inputs", {{"x", "x.npy"}}},
                                                       {"device", {{"cuda:0", "cpu"}}}, {"params", "w.safetensors"}, {"timeoutMs", 5000}}})}});
  REQUIRE(std::holds_alternative<RunRequest>(r));
  auto& a = std::get<RunRequest>(r);
  CHECK(a.uri == "file:///w/m.py");
  CHECK(a.function == "f");
  CHECK(a.weightsFile == "w.safetensors");
  CHECK(a.timeoutMs == 5000);
  auto p = readRunRequest({{"command", "tvms.run"}, {"arguments", json::array({"file:///w/m.py", "g", {{"y", "2x3:float32"}}})}});
  REQUIRE(std::holds_alternative<RunRequest>(p));
  CHECK(std::get<RunRequest>(p).function == "g");
  CHECK(std::get<RunRequest>(p).inputs["y"] == "2x3:float32");
  CHECK(std::get<RunRequest>(p).timeoutMs == 300000);
  auto d = readRunRequest({{"command", "tvms.run"}, {"arguments", json::array({"file:///w/m.py"})}});
  REQUIRE(std::holds_alternative<RunRequest>(d));
  CHECK(std::get<RunRequest>(d).function == "main");
}

TEST_CASE("run command: what is refused, and why") {
  auto why = [](const json& params) {
    auto r = readRunRequest(params);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string("accepted");
  };
  CHECK(why({{"command", "tvms.other"}, {"arguments", json::array({"u"})}}).find("unknown command 'tvms.other'") == 0);
  CHECK(why({{"command", "tvms.run"}}).find("needs arguments") != std::string::npos);
  CHECK(why({{"command", "tvms.run"}, {"arguments", json::array({{{"uri", "u"}, {"params", 3}}})}}).find("params is the path") != std::string::npos);
  CHECK(why({{"command", "tvms.run"}, {"arguments", json::array({{{"uri", "u"}, {"inputs", "x"}}})}}).find("objects of strings") != std::string::npos);
  CHECK(why({{"command", "tvms.run"}, {"arguments", json::array({{{"uri", "u"}, {"timeoutMs", 0}}})}}).find("positive") != std::string::npos);
  CHECK(why({{"command", "tvms.run"}, {"arguments", json::array({{{"uri", "u"}, {"params", nullptr}}})}}) == "accepted");
}

TEST_CASE("run command: the child's command line, a relative weights file taken from the document's folder") {
  RunRequest r;
  r.function = "main";
  r.inputs = {{"x", "x.npy"}};
  r.device = {{"cuda:0", "cpu"}};
  r.outputDir = "/tmp/out";
  r.weightsFile = "w.npz";
  auto argv = runCommandLine("/bin/tvms", r, "/dev/stdin", "/work/models/m.py");
  CHECK(argv == std::vector<std::string>{"/bin/tvms", "run", "/dev/stdin", "--entry", "main", "--format", "json", "--progress", "--random-missing",
                                         "--input", "x=x.npy", "--device", "cuda:0=cpu", "--output", "/tmp/out", "--params", "/work/models/w.npz"});
  r.weightsFile = "/abs/w.npz";
  CHECK(runCommandLine("/bin/tvms", r, "/dev/stdin", "").back() == "/abs/w.npz");
  r.weightsFile = "rel.npz";
  CHECK(runCommandLine("/bin/tvms", r, "/dev/stdin", "").back() == "rel.npz");  // an unsaved document: as given
}
