//===- dlc/runtime.hpp - C++ wrapper of the dlc runtime ----------*- C++
//-*-===//
//
// Header-only RAII classes over dlc_runtime.h. Errors are values, never
// exceptions: fallible calls return dlc::Status or dlc::Expected<T>.
//
//   auto model = dlc::Model::load("model.so");
//   if (!model) { std::cerr << model.status().message() << "\n"; return 1; }
//   auto ctx = model->createContext();
//   std::vector<float> x(...), y(...);
//   dlc::Status s = ctx->run({dlc::ConstBuffer(x)}, {dlc::Buffer(y)});
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_HPP
#define DLC_RUNTIME_HPP

#include "dlc_runtime.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dlc {

/// The outcome of a call: a dlc_status code and, on error, its message.
class Status {
public:
  Status() = default;
  Status(dlc_status code, std::string message)
      : code_(code), message_(std::move(message)) {}

  /// The status of a C call, with dlc_last_error() if it failed.
  static Status fromC(dlc_status code) {
    return code == DLC_OK ? Status() : Status(code, dlc_last_error());
  }

  bool ok() const { return code_ == DLC_OK; }
  explicit operator bool() const { return ok(); }
  dlc_status code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "DLC_ERROR_NOT_FOUND: cannot open model ..." or "DLC_OK".
  std::string toString() const {
    std::string s = dlc_status_name(code_);
    return ok() ? s : s + ": " + message_;
  }

private:
  dlc_status code_ = DLC_OK;
  std::string message_;
};

/// A T or the Status saying why there is none.
template <typename T> class Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Status status) : status_(std::move(status)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }

  /// The value; only valid if ok().
  T &value() { return *value_; }
  const T &value() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T &operator*() { return *value_; }

private:
  std::optional<T> value_;
  Status status_;
};

/// Read-only view of a host input buffer.
struct ConstBuffer {
  ConstBuffer(const void *data, size_t sizeBytes)
      : data(data), sizeBytes(sizeBytes) {}
  template <typename T>
  ConstBuffer(const std::vector<T> &v)
      : data(v.data()), sizeBytes(v.size() * sizeof(T)) {}
  const void *data;
  size_t sizeBytes;
};

/// Writable view of a host output buffer.
struct Buffer {
  Buffer(void *data, size_t sizeBytes) : data(data), sizeBytes(sizeBytes) {}
  template <typename T>
  Buffer(std::vector<T> &v) : data(v.data()), sizeBytes(v.size() * sizeof(T)) {}
  void *data;
  size_t sizeBytes;
};

/// One model input or output.
struct TensorInfo {
  std::string name;
  dlc_dtype dtype;
  std::vector<int64_t> shape;
  size_t sizeBytes;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  /// "float32[1,3,224,224]".
  std::string typeString() const {
    std::string s = dlc_dtype_name(dtype);
    s += '[';
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? "," : "") + std::to_string(shape[i]);
    return s + ']';
  }
};

enum class Device {
  Auto = DLC_DEVICE_AUTO,
  Cpu = DLC_DEVICE_CPU,
  Cuda = DLC_DEVICE_CUDA
};

class Context;

/// A loaded model.so. Immutable; share it (by reference) across threads.
class Model {
public:
  /// Loads `path` on `device` (the model's own target by default).
  static Expected<Model> load(const std::string &path,
                              Device device = Device::Auto, int ordinal = 0) {
    dlc_model_t handle = nullptr;
    dlc_status s =
        dlc_model_load(path.c_str(), dlc_device(device), ordinal, &handle);
    if (s != DLC_OK)
      return Status::fromC(s);
    return Model(handle);
  }

  Model(Model &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)),
        inputs_(std::move(other.inputs_)), outputs_(std::move(other.outputs_)) {
  }
  Model &operator=(Model &&other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(inputs_, other.inputs_);
    std::swap(outputs_, other.outputs_);
    return *this;
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  ~Model() { dlc_model_free(handle_); }

  const std::vector<TensorInfo> &inputs() const { return inputs_; }
  const std::vector<TensorInfo> &outputs() const { return outputs_; }

  /// DLC_TARGET_CPU or DLC_TARGET_CUDA.
  dlc_target target() const {
    int32_t t = 0;
    dlc_model_target(handle_, &t, nullptr);
    return dlc_target(t);
  }
  /// "x86-64", "sm_90".
  std::string arch() const {
    const char *a = "";
    dlc_model_target(handle_, nullptr, &a);
    return a;
  }
  uint64_t arenaSize() const {
    uint64_t n = 0;
    dlc_model_arena_size(handle_, &n);
    return n;
  }
  uint64_t weightsSize() const {
    uint64_t n = 0;
    dlc_model_weights_size(handle_, &n);
    return n;
  }
  std::string manifest() const {
    const char *m = "";
    dlc_model_manifest(handle_, &m);
    return m;
  }

  /// A new context (arena, device buffers, stream) for this model.
  Expected<Context> createContext() const;

  dlc_model_t handle() const { return handle_; }

private:
  explicit Model(dlc_model_t handle) : handle_(handle) {
    int32_t n = 0;
    dlc_model_num_inputs(handle, &n);
    for (int32_t i = 0; i < n; ++i)
      inputs_.push_back(info(dlc_model_input_info, i));
    dlc_model_num_outputs(handle, &n);
    for (int32_t i = 0; i < n; ++i)
      outputs_.push_back(info(dlc_model_output_info, i));
  }

  template <typename Query> TensorInfo info(Query query, int32_t i) const {
    dlc_tensor_info c{};
    query(handle_, i, &c);
    return TensorInfo{c.name, dlc_dtype(c.dtype),
                      std::vector<int64_t>(c.shape, c.shape + c.rank),
                      size_t(c.size_bytes)};
  }

  dlc_model_t handle_ = nullptr;
  std::vector<TensorInfo> inputs_, outputs_;
};

/// Runs a model; one inference at a time (use one Context per thread). May
/// outlive its Model.
class Context {
public:
  Context(Context &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  Context &operator=(Context &&other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() { dlc_context_free(handle_); }

  /// Runs once, synchronously. Buffers are in the model's input/output
  /// order and must have exactly the tensors' sizes.
  Status run(const std::vector<ConstBuffer> &inputs,
             const std::vector<Buffer> &outputs) {
    Buffers b(inputs, outputs);
    return Status::fromC(dlc_context_run(handle_, b.in.data(), b.inSizes.data(),
                                         int(b.in.size()), b.out.data(),
                                         b.outSizes.data(), int(b.out.size())));
  }

  /// Runs once step by step (no CUDA graph) and returns each step's time in
  /// ms, in plan order (see dlc_context_profile; names from
  /// dlc_model_step_name).
  Expected<std::vector<double>> profile(const std::vector<ConstBuffer> &inputs,
                                        const std::vector<Buffer> &outputs) {
    Buffers b(inputs, outputs);
    int32_t steps = 0;
    if (dlc_status s = dlc_context_num_steps(handle_, &steps); s != DLC_OK)
      return Status::fromC(s);
    std::vector<double> ms(size_t(steps), 0.0);
    dlc_status s = dlc_context_profile(
        handle_, b.in.data(), b.inSizes.data(), int(b.in.size()), b.out.data(),
        b.outSizes.data(), int(b.out.size()), ms.data(), steps);
    if (s != DLC_OK)
      return Status::fromC(s);
    return ms;
  }

  /// Runs on the inputs already in the context's device buffers and leaves
  /// the outputs there (CUDA only; see dlc_context_run_resident).
  Status runResident() {
    return Status::fromC(dlc_context_run_resident(handle_));
  }

  /// The device address of the context's buffer for input or output
  /// #index (CUDA only; see dlc_context_device_buffer).
  Expected<void *> deviceBuffer(bool output, int32_t index) const {
    void *p = nullptr;
    dlc_status s = dlc_context_device_buffer(handle_, output, index, &p);
    if (s != DLC_OK)
      return Status::fromC(s);
    return p;
  }

  /// Device memory held by this context (arena + device I/O buffers).
  uint64_t deviceMemoryBytes() const {
    uint64_t n = 0;
    dlc_context_device_memory_bytes(handle_, &n);
    return n;
  }

  /// Launches of the context's graph that overlap the kernel before them
  /// (see dlc_context_overlapped_launches).
  int32_t overlappedLaunches() const {
    int32_t n = 0;
    dlc_context_overlapped_launches(handle_, &n);
    return n;
  }

  dlc_context_t handle() const { return handle_; }

private:
  friend class Model;
  explicit Context(dlc_context_t handle) : handle_(handle) {}
  /// The C API's view of buffer lists: pointers and sizes side by side.
  struct Buffers {
    Buffers(const std::vector<ConstBuffer> &inputs,
            const std::vector<Buffer> &outputs) {
      for (const ConstBuffer &b : inputs) {
        in.push_back(b.data);
        inSizes.push_back(b.sizeBytes);
      }
      for (const Buffer &b : outputs) {
        out.push_back(b.data);
        outSizes.push_back(b.sizeBytes);
      }
    }
    std::vector<const void *> in;
    std::vector<size_t> inSizes;
    std::vector<void *> out;
    std::vector<size_t> outSizes;
  };
  dlc_context_t handle_ = nullptr;
};

inline Expected<Context> Model::createContext() const {
  dlc_context_t handle = nullptr;
  dlc_status s = dlc_context_create(handle_, &handle);
  if (s != DLC_OK)
    return Status::fromC(s);
  return Context(handle);
}

} // namespace dlc

#endif // DLC_RUNTIME_HPP
