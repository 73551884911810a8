// tvms run --params: parameters bound by name from a safetensors file (laid out here byte by byte, as
// the format says), the same numbers as the same tensors given as .npy files, and clear errors.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/device_api.h"
#include "runtime/npy.h"
#include "tests/cli/run_tvms.h"

namespace {

using tvms::test::runTvms;

std::string example(const std::string& name) { return std::string(TVMS_SOURCE_DIR) + "/examples/" + name; }

tvms::runtime::NDArray ramp(std::vector<int64_t> shape, float scale) {
  tvms::runtime::NDArray a;
  a.shape = std::move(shape);
  a.storage = std::make_shared<tvms::runtime::Storage>(tvms::runtime::makeCpuDevice(-1), -1, a.bytes());
  auto* p = static_cast<float*>(a.data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = scale * static_cast<float>(i % 7 - 3);
  return a;
}

// {"NAME": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}, ...} + the raw floats.
void writeSafetensors(const std::string& path, const std::vector<std::pair<std::string, tvms::runtime::NDArray>>& tensors) {
  std::string header = "{", data;
  for (auto& [name, a] : tensors) {
    std::string shape;
    for (auto d : a.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    header += (header.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"F32\",\"shape\":[" + shape + "],\"data_offsets\":[" +
              std::to_string(data.size()) + "," + std::to_string(data.size() + a.bytes()) + "]}";
    data.append(static_cast<const char*>(a.data()), a.bytes());
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::ofstream out(path, std::ios::binary);
  uint64_t n = header.size();
  out.write(reinterpret_cast<const char*>(&n), 8);
  out << header << data;
}

}  // namespace

TEST_CASE("cli: --params binds weights by name from a safetensors file, as the same tensors from .npy files would") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_params_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto y = ramp({128, 32}, 0.25f), z = ramp({32, 16}, 0.5f);
  std::string weights = (dir / "w.safetensors").string();
  writeSafetensors(weights, {{"y", y}, {"z", z}});
  tvms::runtime::writeNpy((dir / "y.npy").string(), y);
  tvms::runtime::writeNpy((dir / "z.npy").string(), z);

  auto fromParams = runTvms({"run", example("multi_cpu.py"), "--params", weights, "--input", "x=random:1"});
  REQUIRE(fromParams.exitCode == 0);
  auto fromNpy = runTvms({"run", example("multi_cpu.py"), "--input", "x=random:1", "--input", "y=" + (dir / "y.npy").string(), "--input",
                          "z=" + (dir / "z.npy").string()});
  REQUIRE(fromNpy.exitCode == 0);
  CHECK(fromParams.out.substr(0, fromParams.out.find('\n')) == fromNpy.out.substr(0, fromNpy.out.find('\n')));
  // Without any --input the parameters the file does not bind get random values, as always.
  CHECK(runTvms({"run", example("multi_cpu.py"), "--params", weights}).exitCode == 0);

  // A tensor naming no parameter, a wrong shape, a parameter given twice, a damaged file: each named.
  writeSafetensors((dir / "extra.safetensors").string(), {{"y", y}, {"z", z}, {"q", z}});
  auto extra = runTvms({"run", example("multi_cpu.py"), "--params", (dir / "extra.safetensors").string()});
  CHECK(extra.exitCode == 1);
  CHECK(extra.err.find("tensor 'q' names no parameter of main (its parameters: x, y, z)") != std::string::npos);
  writeSafetensors((dir / "shape.safetensors").string(), {{"y", z}});
  auto shape = runTvms({"run", example("multi_cpu.py"), "--params", (dir / "shape.safetensors").string()});
  CHECK(shape.exitCode == 1);
  CHECK(shape.err.find("tensor 'y' is of shape (32, 16); parameter 'y' of main is R.Tensor((128, 32)") != std::string::npos);
  auto twice = runTvms({"run", example("multi_cpu.py"), "--params", weights, "--input", "y=random"});
  CHECK(twice.exitCode == 2);
  CHECK(twice.err.find("'y' is given by --input and by --params") != std::string::npos);
  std::ofstream((dir / "cut.safetensors").string()) << "\x10\x00";
  auto cut = runTvms({"run", example("multi_cpu.py"), "--params", (dir / "cut.safetensors").string()});
  CHECK(cut.exitCode == 1);
  CHECK(cut.err.find("not a safetensors file") != std::string::npos);
  // The weights file is an input: no output may replace it.
  auto over = runTvms({"run", example("multi_cpu.py"), "--params", weights, "--trace", weights});
  CHECK(over.exitCode == 2);
  CHECK(std::filesystem::file_size(weights) > 128 * 32 * 4);
  std::filesystem::remove_all(dir);
}
