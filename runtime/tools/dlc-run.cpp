//===- dlc-run.cpp - Run a compiled model on tensor files -----------------===//
//
//   dlc-run MODEL.so [--input NAME=FILE | FILE]... [--output-dir DIR]
//           [--device cpu|cuda|auto] [--device-id N] [--print]
//
// Inputs are .npy or ONNX TensorProto .pb files. Writes DIR/<output>.npy for
// each output; prints the outputs with --print or when no directory is
// given. Exit status 0 on success, 1 on any error (message on stderr).
//
//===----------------------------------------------------------------------===//

#include "dlc/runtime.hpp"
#include "tensor_io.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

const char kUsage[] =
    "usage: dlc-run MODEL.so [--input NAME=FILE | FILE]... [--output-dir DIR]\n"
    "               [--device cpu|cuda|auto] [--device-id N] [--print]\n"
    "\n"
    "Runs a model compiled by dlc once. Inputs are .npy or ONNX TensorProto\n"
    ".pb files; one given without NAME= binds to the next unnamed input in\n"
    "the model's order. Writes DIR/<output name>.npy per output ('/' and ':'\n"
    "in names become '_'); --print (the default without --output-dir) prints\n"
    "each output's shape and first values.\n";

int fail(const std::string &message) {
  std::cerr << "dlc-run: error: " << message << "\n";
  return 1;
}

bool parseDevice(const std::string &s, dlc::Device *out) {
  if (s == "cpu")
    *out = dlc::Device::Cpu;
  else if (s == "cuda" || s == "gpu")
    *out = dlc::Device::Cuda;
  else if (s == "auto")
    *out = dlc::Device::Auto;
  else
    return false;
  return true;
}

std::string sanitize(std::string name) {
  for (char &c : name)
    if (c == '/' || c == ':' || c == '\\')
      c = '_';
  return name;
}

struct InputArg {
  std::string text; ///< NAME=FILE or FILE, as given
};

} // namespace

int main(int argc, char **argv) {
  std::string modelPath, outputDir;
  dlc::Device device = dlc::Device::Auto;
  int deviceId = 0;
  bool print = false;
  std::vector<InputArg> inputArgs;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      std::string prefix = std::string(flag) + "=";
      if (arg.compare(0, prefix.size(), prefix) == 0)
        return argv[i] + prefix.size();
      if (arg == flag && i + 1 < argc)
        return argv[++i];
      return nullptr;
    };
    auto isFlag = [&](const char *flag) {
      return arg == flag || arg.compare(0, std::strlen(flag) + 1,
                                        std::string(flag) + "=") == 0;
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--print") {
      print = true;
    } else if (isFlag("--input") || isFlag("-i")) {
      const char *v = value(arg[1] == 'i' ? "-i" : "--input");
      if (!v)
        return fail("--input needs NAME=FILE or FILE");
      inputArgs.push_back({v});
    } else if (isFlag("--output-dir") || isFlag("-o")) {
      const char *v = value(arg[1] == 'o' ? "-o" : "--output-dir");
      if (!v)
        return fail("--output-dir needs a directory");
      outputDir = v;
    } else if (isFlag("--device")) {
      const char *v = value("--device");
      if (!v || !parseDevice(v, &device))
        return fail("--device must be cpu, cuda or auto");
    } else if (isFlag("--device-id")) {
      const char *v = value("--device-id");
      char *end = nullptr;
      if (!v || (deviceId = int(std::strtol(v, &end, 10)), *end) ||
          deviceId < 0)
        return fail("--device-id needs a non-negative integer");
    } else if (arg.size() > 1 && arg[0] == '-') {
      return fail("unknown option '" + arg + "' (see --help)");
    } else if (modelPath.empty()) {
      modelPath = arg;
    } else {
      inputArgs.push_back({arg});
    }
  }
  if (modelPath.empty()) {
    std::cerr << kUsage;
    return 1;
  }

  dlc::Expected<dlc::Model> model =
      dlc::Model::load(modelPath, device, deviceId);
  if (!model)
    return fail(model.status().message());
  const std::vector<dlc::TensorInfo> &inputs = model->inputs();

  // Bind named inputs first, then positional ones to the remaining slots.
  std::vector<std::string> files(inputs.size());
  std::vector<bool> bound(inputs.size(), false);
  std::vector<std::string> positional;
  for (const InputArg &a : inputArgs) {
    size_t eq = a.text.find('=');
    int32_t index = -1;
    // A path may contain '=': it is a name only if the model has that input.
    if (eq != std::string::npos &&
        dlc_model_find_input(model->handle(), a.text.substr(0, eq).c_str(),
                             &index) == DLC_OK) {
      if (bound[index])
        return fail("input '" + inputs[index].name + "' given twice");
      files[index] = a.text.substr(eq + 1);
      bound[index] = true;
    } else if (struct stat st;
               eq != std::string::npos && stat(a.text.c_str(), &st) != 0) {
      // NAME=FILE with an unknown NAME: list the real names.
      dlc_model_find_input(model->handle(), a.text.substr(0, eq).c_str(),
                           &index);
      return fail(dlc_last_error());
    } else {
      positional.push_back(a.text);
    }
  }
  size_t next = 0;
  for (const std::string &file : positional) {
    while (next < inputs.size() && bound[next])
      ++next;
    if (next == inputs.size())
      return fail("too many inputs: the model takes " +
                  std::to_string(inputs.size()) + ", extra file '" + file +
                  "'");
    files[next] = file;
    bound[next] = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!bound[i])
      return fail("missing input '" + inputs[i].name + "' (" +
                  inputs[i].typeString() + "); pass --input " + inputs[i].name +
                  "=FILE");

  std::vector<dlc::io::Tensor> tensors(inputs.size());
  std::vector<dlc::ConstBuffer> inBufs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string error;
    if (!dlc::io::readTensorFile(files[i], &tensors[i], &error))
      return fail("input '" + inputs[i].name + "': " + error);
    const dlc::io::Tensor &t = tensors[i];
    if (dlc_model_check_input(model->handle(), int32_t(i), t.dtype,
                              int32_t(t.shape.size()),
                              t.shape.data()) != DLC_OK)
      return fail(std::string(dlc_last_error()) + " from '" + files[i] + "'");
    inBufs.emplace_back(t.data.data(), t.data.size());
  }

  std::vector<dlc::io::Tensor> outputs;
  std::vector<dlc::Buffer> outBufs;
  for (const dlc::TensorInfo &info : model->outputs()) {
    dlc::io::Tensor t;
    t.name = info.name;
    t.dtype = info.dtype;
    t.shape = info.shape;
    t.data.resize(info.sizeBytes);
    outputs.push_back(std::move(t));
  }
  for (dlc::io::Tensor &t : outputs)
    outBufs.emplace_back(t.data.data(), t.data.size());

  dlc::Expected<dlc::Context> ctx = model->createContext();
  if (!ctx)
    return fail(ctx.status().message());
  if (dlc::Status s = ctx->run(inBufs, outBufs); !s)
    return fail(s.message());

  if (!outputDir.empty()) {
    if (mkdir(outputDir.c_str(), 0777) != 0 && errno != EEXIST)
      return fail("cannot create '" + outputDir + "': " + std::strerror(errno));
    for (const dlc::io::Tensor &t : outputs) {
      std::string path = outputDir + "/" + sanitize(t.name) + ".npy";
      std::string error;
      if (!dlc::io::writeNpy(path, t, &error))
        return fail(error);
    }
  }
  if (print || outputDir.empty())
    for (const dlc::io::Tensor &t : outputs)
      std::cout << t.name << ": " << dlc::io::describe(t.dtype, t.shape) << " "
                << dlc::io::formatValues(t, 16) << "\n";
  return 0;
}
