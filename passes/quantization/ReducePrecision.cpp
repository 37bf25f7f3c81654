//===- ReducePrecision.cpp - fp16/bf16 GEMM and convolution operands -----===//
//
// --precision=fp16|bf16: Conv, ConvTranspose, Gemm and MatMul take 16-bit
// float operands (weights converted once, here) and produce a 16-bit result;
// their lowering accumulates in f32. Every other op keeps computing in f32,
// so reductions, normalizations and softmax never see half precision;
// attention reads its q, k and v in 16 bits (its lowering computes in f32),
// and at fp16 a value a GEMM reads rounded is stored rounded for its f32
// readers too (residual streams).
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>
#include <functional>

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

/// `v` rounded to nearest even in `half` through APFloat (exact, slow).
uint16_t roundWithAPFloat(float v, FloatType half) {
  bool lost;
  APFloat x(v);
  x.convert(half.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return x.bitcastToAPInt().getZExtValue();
}

/// `v` rounded to nearest even in f16 or bf16, bit-identical to APFloat's
/// conversion (NaNs take that path): bert_base's 110M weights took 5 s
/// through APFloat. f16 is F. Giesen's float_to_half_fast3_rtne: subnormal
/// results come from an f32 addition that rounds the mantissa in place,
/// normal ones from adding the rounding bias to the bits (a carry into the
/// exponent rounds up to the next binade, or to infinity).
uint16_t roundToHalf(float v, FloatType half) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  uint32_t sign = u & 0x80000000u, a = u ^ sign;
  if (a > 0x7f800000u)
    return roundWithAPFloat(v, half);
  if (half.isBF16())
    return (u + 0x7fffu + ((u >> 16) & 1)) >> 16; // inf stays inf
  uint32_t o;
  if (a >= (127u + 16) << 23) { // >= 65536: infinity
    o = 0x7c00;
  } else if (a < 113u << 23) { // below 2^-14: subnormal or zero
    const uint32_t magicBits = ((127u - 15) + (23 - 10) + 1) << 23;
    float magic, f;
    std::memcpy(&magic, &magicBits, 4);
    std::memcpy(&f, &a, 4);
    f += magic;
    uint32_t r;
    std::memcpy(&r, &f, 4);
    o = r - magicBits;
  } else {
    o = (a + ((15u - 127) << 23) + 0xfff + ((a >> 13) & 1)) >> 13;
  }
  return o | (sign >> 16);
}

/// A constant holding `values` rounded to nearest even in `type`.
Attribute halfConstant(ArrayRef<float> values, RankedTensorType type,
                       StringRef blobName) {
  auto half = cast<FloatType>(type.getElementType());
  SmallVector<uint16_t> bits;
  bits.reserve(values.size());
  for (float v : values)
    bits.push_back(roundToHalf(v, half));
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
    narrowAttentionInputs(half);
    if (half.isF16()) {
      roundNormalizationInputs(half);
      narrowGemmInputs(half);
      narrowQuantizedAttentionResults(half);
    }
    roundBeforeMonotonicOps(half);
  }

  /// Rounding commutes with Relu and MaxPool (it is monotonic: the max of
  /// rounded values is the rounded max), so a rounding of their result
  /// moves ahead of them, up to a half value widened for them, which it
  /// then cancels: ResNet's stem (a half conv, widened, Relu, MaxPool,
  /// rounded for layer1) runs Relu and MaxPool on the conv's half result,
  /// and the 112x112x64 tensor between the conv and the pooling kernels is
  /// stored in 2 bytes an element instead of 4. Exactly the same values.
  void roundBeforeMonotonicOps(FloatType half) {
    SmallVector<CastOp> casts;
    getOperation().walk([&](CastOp c) {
      auto in = cast<RankedTensorType>(c.getInput().getType());
      if (in.getElementType().isF32() &&
          cast<RankedTensorType>(c.getType()).getElementType() == half)
        casts.push_back(c);
    });
    for (CastOp c : casts) {
      Operation *def = c.getInput().getDefiningOp();
      if (!isa_and_nonnull<ReluOp, MaxPoolOp>(def) || !def->hasOneUse())
        continue;
      // The chain of such ops down from the first one's input.
      SmallVector<Operation *> chain{def};
      while (true) {
        Operation *up = chain.back()->getOperand(0).getDefiningOp();
        if (!isa_and_nonnull<ReluOp, MaxPoolOp>(up) || !up->hasOneUse())
          break;
        chain.push_back(up);
      }
      Value x = chain.back()->getOperand(0);
      OpBuilder b(chain.back());
      auto halfOf = [&](Value v) {
        return cast<RankedTensorType>(v.getType()).clone(half);
      };
      auto widened = x.getDefiningOp<CastOp>();
      if (widened && widened.getInput().getType() == halfOf(x))
        x = widened.getInput();
      else
        x = b.create<CastOp>(c.getLoc(), halfOf(x), x);
      for (Operation *op : llvm::reverse(chain)) {
        op->setOperand(0, x);
        op->getResult(0).setType(halfOf(op->getResult(0)));
        x = op->getResult(0);
      }
      c.replaceAllUsesWith(x);
      c.erase();
      if (widened && widened->use_empty())
        widened.erase();
    }
  }

  /// At f16 a LayerNorm reads its input rounded to f16, as `model.half()`
  /// holds it (BERT's GEMM + bias + residual sums, GPT-2's residual
  /// stream): a rounding after the input's definition that
  /// narrowGemmInputs then makes every reader take, widened, so the
  /// producer stores 2 bytes an element instead of 4 and the LayerNorm,
  /// which still normalizes in f32, reads half the bytes.
  void roundNormalizationInputs(FloatType half) {
    getOperation().walk([&](LayerNormOp op) {
      Value x = op.getInput();
      auto type = cast<RankedTensorType>(x.getType());
      Operation *def = x.getDefiningOp();
      if (!type.getElementType().isF32() || !def ||
          def->hasTrait<OpTrait::ConstantLike>() ||
          llvm::any_of(x.getUsers(), [&](Operation *u) {
            auto c = dyn_cast<CastOp>(u);
            return c && c.getType() == type.clone(half);
          }))
        return;
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(def);
      b.create<CastOp>(def->getLoc(), type.clone(half), x);
    });
  }

  /// An f32 value rounded to f16 for a GEMM (or attention) and read in f32
  /// elsewhere too — a residual stream: ResNet's block outputs, BERT's
  /// LayerNorm outputs — is read everywhere from the rounded value, widened:
  /// its producer then stores 2 bytes an element instead of 4 (or 4 + 2),
  /// and its other readers load half the bytes. This is PyTorch's own
  /// half-precision arithmetic on those tensors (`model.half()` keeps them
  /// in f16); values that only feed f32 ops, and model outputs, keep f32.
  /// Only for f16: bf16's 8-bit mantissa would round the residual stream
  /// eight times coarser.
  void narrowGemmInputs(FloatType half) {
    SmallVector<CastOp> casts;
    getOperation().walk([&](CastOp c) {
      auto in = cast<RankedTensorType>(c.getInput().getType());
      auto out = cast<RankedTensorType>(c.getType());
      if (in.getElementType().isF32() && out.getElementType() == half)
        casts.push_back(c);
    });
    DenseSet<Operation *> merged;
    for (CastOp c : casts) {
      if (merged.contains(c))
        continue;
      Value v = c.getInput();
      Operation *def = v.getDefiningOp();
      // Block arguments (model inputs) and constants are f32 in memory
      // whatever reads them.
      if (!def || def->hasTrait<OpTrait::ConstantLike>())
        continue;
      auto readsRounded = [&](OpOperand &use) {
        return use.getOwner() != c.getOperation() &&
               !isa<func::ReturnOp>(use.getOwner());
      };
      if (llvm::none_of(v.getUses(), readsRounded))
        continue;
      // The rounding right after the definition, ahead of every reader.
      c->moveAfter(def);
      OpBuilder b(c->getContext());
      b.setInsertionPointAfter(c);
      auto widened = b.create<CastOp>(c.getLoc(), v.getType(), c.getResult());
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
        Operation *owner = use.getOwner();
        if (owner == widened || !readsRounded(use))
          continue;
        // Another rounding of v (for another GEMM): this one.
        if (auto other = dyn_cast<CastOp>(owner);
            other && other.getType() == c.getType()) {
          other.replaceAllUsesWith(c.getResult());
          merged.insert(other);
          continue;
        }
        use.set(widened);
      }
    }
    for (Operation *op : merged)
      op->erase();
  }

  /// An f32 attention result read only by quantize_linear ops that
  /// dlc-fuse-attention could not fold (per-channel, uint8, several) is
  /// stored in f16 and widened for them: the attention kernel writes and
  /// the quantizing kernel reads half the bytes. The f16 rounding (2^-11
  /// relative) is far below the int8 step (not below int16's: those keep
  /// f32). Only for f16: bf16's 8-bit mantissa is as coarse as the int8
  /// grid.
  void narrowQuantizedAttentionResults(FloatType half) {
    getOperation().walk([&](AttentionOp op) {
      Value result = op.getResult();
      auto type = cast<RankedTensorType>(result.getType());
      if (!type.getElementType().isF32() || result.use_empty() ||
          !llvm::all_of(result.getUsers(), [](Operation *u) {
            // 8-bit grids only: a 16-bit step is finer than f16's rounding.
            auto q = dyn_cast<QuantizeLinearOp>(u);
            return q && q.getType().getElementType().isInteger(8);
          }))
        return;
      result.setType(type.clone(half));
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      auto widen = b.create<CastOp>(op.getLoc(), type, result);
      result.replaceAllUsesExcept(widen, widen);
    });
  }

  /// Attention's q, k and v in `half`: its tensor-core lowering rounds them
  /// to half as it stages them anyway, so the result is the same, but the
  /// rounding (a cast the producers' kernels fuse) halves what the
  /// projections write and the attention kernel reads. The mask stays f32.
  /// The cast goes before the reshapes between the producer and the
  /// attention (BERT's [B, S, H*D] -> [B, S, H, D], GPT-2's [B, S, 3*H*D]
  /// -> [B, S, 3, H, D]), where it is elementwise over the producer's own
  /// shape and joins its kernel (the projection GEMM's epilogue).
  void narrowAttentionInputs(FloatType half) {
    DenseMap<Value, Value> narrowed;
    std::function<Value(Value)> toHalf = [&](Value v) -> Value {
      if (Value h = narrowed.lookup(v))
        return h;
      auto halfType = cast<RankedTensorType>(v.getType()).clone(half);
      Value h;
      if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
        Value input = toHalf(reshape.getInput());
        OpBuilder b(reshape->getContext());
        b.setInsertionPointAfterValue(input);
        h = b.create<ReshapeOp>(reshape.getLoc(), halfType, input);
      } else if (auto widened = v.getDefiningOp<CastOp>();
                 widened && widened.getInput().getType() == halfType) {
        h = widened.getInput();
      } else {
        OpBuilder b(v.getContext());
        b.setInsertionPointAfterValue(v);
        h = b.create<CastOp>(v.getLoc(), halfType, v);
      }
      narrowed[v] = h;
      return h;
    };
    getOperation().walk([&](AttentionOp op) {
      for (OpOperand &operand : op->getOpOperands().take_front(3))
        if (cast<RankedTensorType>(operand.get().getType())
                .getElementType()
                .isF32())
          operand.set(toHalf(operand.get()));
    });
    // The f32 reshapes the half ones replace, once unread (swept until none
    // goes: erasing the outer reshape of a chain frees the inner one).
    SmallVector<Operation *> reshapes;
    for (auto &[v, h] : narrowed)
      if (auto r = v.getDefiningOp<ReshapeOp>())
        reshapes.push_back(r);
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&r : reshapes)
        if (r && r->use_empty()) {
          r->erase();
          r = nullptr;
          erased = true;
        }
    }
  }
};
} // namespace
