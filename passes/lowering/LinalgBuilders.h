//===- LinalgBuilders.h - shared pieces of the dlc -> linalg lowering -*- C++
//-*-===//
//
// The indexing of convolutions, pooling windows and batched matmuls as one
// linalg.generic, shared by the float lowering (ConvertDlcToLinalg.cpp) and
// the integer one (ConvertQuantToLinalg.cpp), so both read padded windows
// and broadcast batch dims the same way.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_LOWERING_LINALGBUILDERS_H
#define DLC_PASSES_LOWERING_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::dlc {

inline Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

/// Reads `source[indices]` where `indices` may fall outside the tensor
/// (padding): returns `padValue` there. `mayBeOutside[i]` says which dims
/// need the check, so unpadded dims cost nothing.
Value readWithPadding(OpBuilder &b, Location loc, Value source,
                      ArrayRef<Value> indices, ArrayRef<bool> mayBeOutside,
                      Value padValue);

/// Sliding-window geometry shared by Conv and pooling (NC[D]HW).
struct Window {
  ArrayRef<int64_t> inShape, outShape, kernel, strides, pads, dilations;

  int64_t spatial() const { return kernel.size(); }

  /// Whether positions along spatial dim `i` can leave the input.
  bool mayLeave(int64_t i) const {
    int64_t last = (outShape[2 + i] - 1) * strides[i] - pads[i] +
                   (kernel[i] - 1) * dilations[i];
    return pads[i] > 0 || last >= inShape[2 + i];
  }

  bool padded() const {
    for (int64_t i = 0; i < spatial(); ++i)
      if (mayLeave(i))
        return true;
    return false;
  }

  /// Input position along spatial dim `i` for output `o` and window `r`.
  Value position(OpBuilder &b, Location loc, int64_t i, Value o, Value r) const;
};

/// A (grouped) convolution as one linalg.generic over
///   n, m, o_1..o_k (parallel), c, r_1..r_k (reduction),
/// c running over the input channels of m's group.
struct ConvIndexing {
  Window window;
  int64_t outPerGroup, inPerGroup;
  MLIRContext *ctx;

  int64_t k() const { return window.spatial(); }
  int64_t numDims() const { return 3 + 2 * k(); }
  SmallVector<utils::IteratorType> iterators() const;
  /// weight[m, c, r...]
  AffineMap weightMap() const;
  /// out[n, m, o...]
  AffineMap outputMap() const;
  /// input[n, group(m) * inPerGroup + c, o*s + r*d...]: valid only when no
  /// window leaves the input (!window.padded()).
  AffineMap inputMap() const;
  /// Inside the generic's body: the input element under the window, or
  /// `padValue` where the window leaves the input.
  Value readInput(OpBuilder &b, Location loc, Value input,
                  Value padValue) const;
};

/// The indexing map of a batched-matmul operand with numpy-broadcast batch
/// dims, in the iteration space batch..., m, n, k of an `out` result: the
/// operand's two matrix dims read `row` and `col`.
AffineMap batchedOperandMap(RankedTensorType out, Value operand, AffineExpr row,
                            AffineExpr col);

} // namespace mlir::dlc

#endif
