//===- ReducePrecision.cpp - fp16/bf16 GEMM and convolution operands -----===//
//
// --precision=fp16|bf16: Conv, ConvTranspose, Gemm and MatMul take 16-bit
// float operands (weights converted once, here) and produce a 16-bit result;
// their lowering accumulates in f32. Every other op keeps computing in f32,
// so reductions, normalizations and softmax never see half precision.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>

namespace mlir::dlc {
#define GEN_PASS_DEF_REDUCEPRECISIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
bool isReducible(Operation *op) {
  if (!isa<ConvOp, ConvTransposeOp, GemmOp, MatMulOp>(op))
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && type.getElementType().isF32();
}

/// A constant holding `values` rounded to nearest even in `type`.
Attribute halfConstant(ArrayRef<float> values, RankedTensorType type,
                       StringRef blobName) {
  auto half = cast<FloatType>(type.getElementType());
  SmallVector<uint16_t> bits;
  bits.reserve(values.size());
  for (float v : values) {
    bool lost;
    APFloat x(v);
    x.convert(half.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    bits.push_back(x.bitcastToAPInt().getZExtValue());
  }
  ArrayRef<char> raw(reinterpret_cast<const char *>(bits.data()),
                     bits.size() * sizeof(uint16_t));
  return makeWeightAttr(type, raw, blobName);
}

/// An f32 attention result that only `v`'s one reader takes (through
/// reshapes), stored in `half` instead: the kernel rounds when it stores,
/// exactly as the cast it replaces would, and that cast never runs. BERT's
/// attention output feeds only the output projection.
bool narrowAttentionResult(Value v, FloatType half) {
  SmallVector<Value> chain;
  for (Value x = v;;) {
    if (!x.hasOneUse())
      return false;
    chain.push_back(x);
    Operation *def = x.getDefiningOp();
    if (isa_and_nonnull<AttentionOp>(def))
      break;
    auto reshape = dyn_cast_or_null<ReshapeOp>(def);
    if (!reshape)
      return false;
    x = reshape.getInput();
  }
  if (!cast<RankedTensorType>(chain.back().getType()).getElementType().isF32())
    return false;
  for (Value x : chain)
    x.setType(cast<RankedTensorType>(x.getType()).clone(half));
  return true;
}

struct ReducePrecisionPass
    : dlc::impl::ReducePrecisionPassBase<ReducePrecisionPass> {
  using ReducePrecisionPassBase::ReducePrecisionPassBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    FloatType half;
    if (precision == "fp16")
      half = Float16Type::get(ctx);
    else if (precision == "bf16")
      half = BFloat16Type::get(ctx);
    else {
      getOperation().emitError("dlc-reduce-precision: unknown precision '")
          << precision << "' (expected fp16 or bf16)";
      return signalPassFailure();
    }

    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isReducible(op))
        ops.push_back(op);
    });
    // Each weight is converted once, however many ops read it.
    DenseMap<Value, Value> converted;
    unsigned blobs = 0;
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto toHalf = [&](Value v) -> Value {
        auto type = cast<RankedTensorType>(v.getType());
        auto halfType = type.clone(half);
        // A half value widened for this op: use it as is (exact).
        if (auto widened = v.getDefiningOp<CastOp>();
            widened && widened.getInput().getType() == halfType)
          return widened.getInput();
        if (Value c = converted.lookup(v))
          return c;
        Value r;
        if (std::optional<SmallVector<float>> values = constFloats(v)) {
          OpBuilder cb(ctx);
          cb.setInsertionPointAfterValue(v);
          std::string name = ("dlc_" + precision + "_" + Twine(blobs++)).str();
          r = cb.create<arith::ConstantOp>(
              v.getLoc(),
              cast<TypedAttr>(halfConstant(*values, halfType, name)));
        } else if (narrowAttentionResult(v, half)) {
          r = v;
        } else {
          r = b.create<CastOp>(loc, halfType, v);
        }
        converted[v] = r;
        return r;
      };
      for (OpOperand &operand : op->getOpOperands())
        operand.set(toHalf(operand.get()));
      Value result = op->getResult(0);
      auto f32Type = cast<RankedTensorType>(result.getType());
      result.setType(f32Type.clone(half));
      b.setInsertionPointAfter(op);
      auto widen = b.create<CastOp>(loc, f32Type, result);
      result.replaceAllUsesExcept(widen, widen);
    }
  }
};
} // namespace
