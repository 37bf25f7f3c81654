//===- ScalarConstant.h - one-element constants of the dlc graph -*- C++
//-*-===//
//
// The scalar operands the graph-level fusions recognize (GELU's sqrt(2),
// attention's scale, mask fills) arrive as one-element constant tensors.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_FUSION_SCALARCONSTANT_H
#define DLC_PASSES_FUSION_SCALARCONSTANT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

#include <optional>

namespace mlir::dlc {
/// The value of a one-element float constant (shape [] or [1, ...]).
inline std::optional<APFloat> scalarFloatConstant(Value v) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  return *attr.value_begin<APFloat>();
}

/// The value of a one-element integer constant (shape [] or [1, ...]).
inline std::optional<APInt> scalarIntConstant(Value v) {
  DenseIntElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  return *attr.value_begin<APInt>();
}
} // namespace mlir::dlc

#endif
