//===- ConstantValues.h - reading constant tensors' values -------*- C++
//-*-===//
//
/// \file
/// The values of constant tensors as the importer builds them: inline dense
/// attributes or resource blobs (weights). Shared by the importer and the
/// passes.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_DIALECTS_DLC_CONSTANTVALUES_H
#define DLC_DIALECTS_DLC_CONSTANTVALUES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace mlir::dlc {

/// The constant value of `v` and its static tensor type, if it has them.
std::optional<std::pair<Attribute, RankedTensorType>> constantTensor(Value v);

/// The raw data of a resource-blob constant, if `a` is one.
std::optional<llvm::ArrayRef<char>> resourceData(Attribute a);

/// The values of a constant f32 tensor (inline or a resource blob).
std::optional<llvm::SmallVector<float>> constFloats(Value v);

/// The values of a constant i8/ui8/i16/ui16/i32 tensor (inline or a
/// resource blob), sign- or zero-extended by its element type.
std::optional<llvm::SmallVector<int64_t>> constInts(Value v);

} // namespace mlir::dlc

#endif
