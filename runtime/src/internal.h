//===- internal.h - Shared pieces of libdlcrt --------------------*- C++
//-*-===//
//
// Not installed: the types behind the opaque C handles and the interface
// each device (host, CUDA) implements.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_INTERNAL_H
#define DLC_RUNTIME_INTERNAL_H

#include "dlc_runtime.h"

#include <memory>
#include <sstream>
#include <string>
#include <utility>

namespace dlc {

/// A status code plus message; the runtime's internal error currency.
struct Error {
  dlc_status code = DLC_OK;
  std::string message;

  bool ok() const { return code == DLC_OK; }
  static Error success() { return {}; }
};

/// Concatenates anything streamable into a string.
template <typename... Args> std::string cat(Args &&...args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

template <typename... Args> Error makeError(dlc_status code, Args &&...args) {
  return Error{code, cat(std::forward<Args>(args)...)};
}

/// "float32[1,3,224,224]".
std::string describeTensor(int32_t dtype, int32_t rank, const int64_t *shape);
inline std::string describeTensor(const dlc_tensor_desc &t) {
  return describeTensor(t.dtype, t.rank, t.shape);
}

const char *targetName(int32_t target);

/// Per-inference state on one device.
class DeviceContext {
public:
  virtual ~DeviceContext() = default;
  /// Runs the plan; buffers were validated by the caller.
  virtual Error run(const void *const *inputs, void *const *outputs) = 0;
  /// Runs the plan like run() one step at a time, without the CUDA graph,
  /// and writes each step's time in milliseconds to stepMs[step] (device
  /// time between events on CUDA, wall time on the host).
  virtual Error profile(const void *const *inputs, void *const *outputs,
                        double *stepMs) = 0;
  /// Runs on the context's own device buffers (CUDA only).
  virtual Error runResident() { return noDeviceBuffers(); }
  /// The device address of input or output #index (validated by the
  /// caller); CUDA only.
  virtual Error deviceBuffer(bool /*output*/, int32_t /*index*/,
                             uint64_t * /*address*/) {
    return noDeviceBuffers();
  }
  virtual uint64_t deviceMemoryBytes() const = 0;
  /// Launches of the captured graph that overlap their predecessor (CUDA).
  virtual int32_t overlappedLaunches() const { return 0; }

private:
  static Error noDeviceBuffers() {
    return makeError(DLC_ERROR_INVALID_ARGUMENT,
                     "host contexts have no device buffers; run them on the "
                     "caller's buffers with dlc_context_run");
  }
};

/// The device half of a loaded model (weights, modules).
class DeviceModel {
public:
  virtual ~DeviceModel() = default;
  virtual Error createContext(std::unique_ptr<DeviceContext> *out) const = 0;
};

/// A model.so mapped into the process with its validated descriptor.
class LoadedModel {
public:
  ~LoadedModel();

  std::string path;
  void *handle = nullptr;
  const dlc_model_desc *desc = nullptr;
  std::unique_ptr<DeviceModel> device;
};

/// dlopens `path`, finds and validates the descriptor, loads it on `device`.
Error loadModel(const char *path, dlc_device device, int ordinal,
                std::shared_ptr<LoadedModel> *out);

/// Checks every count, pointer and range of the descriptor so that the
/// executors can trust it.
Error validateDescriptor(const dlc_model_desc &desc);

Error createHostModel(const dlc_model_desc &desc,
                      std::unique_ptr<DeviceModel> *out);
Error createCudaModel(const dlc_model_desc &desc, int ordinal,
                      std::unique_ptr<DeviceModel> *out);

/// Bytes of one encoded tensor map (CUtensorMap).
constexpr uint64_t kTensorMapBytes = 128;

/// The CUtensorMapDataType of elements of `dtype`, or -1 when TMA cannot
/// move them.
int tensorMapDataType(int32_t dtype);

/// Address of a buffer reference, given the bases of the six buffer kinds
/// (`tensorMaps`: the context's encoded maps, back to back; host contexts
/// have none). Base is a host byte pointer or a device address; the ref was
/// validated.
template <typename Base>
Base resolveRef(const dlc_buffer_ref &ref, Base arena, Base weights,
                const Base *inputs, const Base *outputs, Base status,
                Base tensorMaps) {
  Base base = arena;
  switch (ref.kind) {
  case DLC_BUFFER_STATUS:
    base = status;
    break;
  case DLC_BUFFER_TENSOR_MAP:
    base = tensorMaps + kTensorMapBytes * uint64_t(ref.index);
    break;
  case DLC_BUFFER_WEIGHT:
    base = weights;
    break;
  case DLC_BUFFER_INPUT:
    base = inputs[ref.index];
    break;
  case DLC_BUFFER_OUTPUT:
    base = outputs[ref.index];
    break;
  default:
    break;
  }
  return base + ref.offset;
}

/// The error of a run whose status word reads `status` (0: none).
Error checkStatus(const dlc_model_desc &desc, int32_t status);

} // namespace dlc

#endif // DLC_RUNTIME_INTERNAL_H
