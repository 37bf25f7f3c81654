//===- ConstantValues.cpp - reading constant tensors' values -----*- C++
//-*-===//

#include "dialects/dlc/ConstantValues.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

std::optional<std::pair<Attribute, RankedTensorType>>
mlir::dlc::constantTensor(Value v) {
  Attribute a;
  if (!v || !matchPattern(v, m_Constant(&a)))
    return std::nullopt;
  auto typed = dyn_cast<TypedAttr>(a);
  auto type = typed ? dyn_cast<RankedTensorType>(typed.getType()) : nullptr;
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return std::make_pair(a, type);
}

std::optional<ArrayRef<char>> mlir::dlc::resourceData(Attribute a) {
  auto r = dyn_cast<DenseResourceElementsAttr>(a);
  if (!r)
    return std::nullopt;
  AsmResourceBlob *blob = r.getRawHandle().getBlob();
  if (!blob)
    return std::nullopt;
  return blob->getData();
}

std::optional<SmallVector<float>> mlir::dlc::constFloats(Value v) {
  auto constant = constantTensor(v);
  if (!constant || !constant->second.getElementType().isF32())
    return std::nullopt;
  auto [a, type] = *constant;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(a))
    return SmallVector<float>(dense.getValues<float>());
  if (std::optional<ArrayRef<char>> data = resourceData(a)) {
    int64_t n = type.getNumElements();
    if ((int64_t)data->size() != n * 4)
      return std::nullopt;
    SmallVector<float> out(n);
    std::memcpy(out.data(), data->data(), n * 4);
    return out;
  }
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> mlir::dlc::constInts(Value v) {
  auto constant = constantTensor(v);
  if (!constant)
    return std::nullopt;
  auto [a, type] = *constant;
  auto elt = dyn_cast<IntegerType>(type.getElementType());
  if (!elt ||
      (elt.getWidth() != 8 && elt.getWidth() != 16 && elt.getWidth() != 32))
    return std::nullopt;
  bool isUnsigned = elt.isUnsigned();
  SmallVector<int64_t> out;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(a)) {
    for (const APInt &x : dense.getValues<APInt>())
      out.push_back(isUnsigned ? (int64_t)x.getZExtValue() : x.getSExtValue());
    return out;
  }
  if (std::optional<ArrayRef<char>> data = resourceData(a)) {
    int64_t n = type.getNumElements(), bytes = elt.getWidth() / 8;
    if ((int64_t)data->size() != n * bytes)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      const char *p = data->data() + i * bytes;
      if (bytes == 4) {
        int32_t x;
        std::memcpy(&x, p, 4);
        out.push_back(x);
      } else if (bytes == 2) {
        uint16_t x;
        std::memcpy(&x, p, 2);
        out.push_back(isUnsigned ? (int64_t)x : (int64_t)(int16_t)x);
      } else {
        out.push_back(isUnsigned ? (int64_t)(uint8_t)*p : (int64_t)(int8_t)*p);
      }
    }
    return out;
  }
  return std::nullopt;
}
