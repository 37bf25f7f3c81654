//===- TileGemmKernels.cpp - GEMM kernels on tensor cores ---------*- C++
//-*-===//
//
// A kernel made of a 16-bit contraction (f16 or bf16 operands, f32
// accumulator) and its elementwise epilogue becomes one CTA program: a
// multi-stage cp.async pipeline into swizzled shared memory, ldmatrix and
// mma.sync m16n8k16 per warp, and the epilogue applied to the accumulator
// registers. On sm_90a the same CTA program runs warpgroup wgmma instead,
// with its whole row-major operands loaded by TMA into mbarrier-tracked
// stages and, when both are, a producer warp issuing the copies (warp
// specialization). One schedule (the index functions below) has two
// lowerings: nvgpu ops and inline PTX for the GPU, and, for the host's
// --cuda-kernel-form, the same instructions emulated per lane as the PTX
// ISA defines them (TMA boxes and mbarrier phases included), so that the
// schedule's fragment, swizzle and synchronization arithmetic is checked
// without a GPU.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"
#include "passes/lowering/TensorCore.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

namespace mlir::dlc {
#define GEN_PASS_DEF_TILEGEMMKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// A kernel of the form fill(acc) ; acc += ext(A) * ext(B) ; epilogue...
struct GemmKernel {
  func::FuncOp func;
  /// The model functions' calls of `func` (empty when anything else uses
  /// its symbol): where its buffers' lifetimes are read.
  SmallVector<func::CallOp> calls;
  /// Writes the accumulator's initial value: a linalg.fill, or an
  /// elementwise generic (Gemm's beta * C); applied in the epilogue.
  linalg::LinalgOp init;
  /// Loop-invariant factors of the product (Gemm's alpha).
  SmallVector<Value> scales;
  linalg::GenericOp contraction;
  SmallVector<linalg::GenericOp> epilogue;
  Value a, b, acc;
  AffineMap aMap, bMap;
  /// B is read as [.., N, K] (K contiguous) rather than [.., K, N].
  bool bTransposed = false;
  /// f16, bf16 (f32 accumulator) or i8 (i32 accumulator).
  Type elementType;
  /// i8 operands: zero-extended (u8) rather than sign-extended (s8).
  bool aUnsigned = false, bUnsigned = false;
  int64_t m = 0, n = 0, k = 0;
  SmallVector<int64_t> batchShape;

  /// A channels-last 2-D convolution run as an implicit GEMM: M = n * oh *
  /// ow output pixels, N = the output channels, K = kh * kw * c; A is the
  /// input window (im2col on the fly), B the [O, KH, KW, C] weight as [N, K].
  struct Conv {
    int64_t batch, oh, ow, kh, kw, c, sh, sw, dh, dw;
    /// A padding folded into the im2col loads (foldConvPadding): A is then the
    /// unpadded [N, inH, inW, C] input, window positions move by -padTop /
    /// -padLeft, and chunks outside the input get the padding (zeros, or
    /// GemmKernel::padValue).
    bool foldsPadding = false;
    int64_t padTop = 0, padLeft = 0, inH = 0, inW = 0;
  };
  std::optional<Conv> conv;
  /// With Conv::foldsPadding, per call in `calls`: the padding kernel's
  /// call that wrote the padded A, the input it padded and, unless it
  /// padded with zeros, the rank-0 buffer holding its padding value.
  SmallVector<func::CallOp> padCalls;
  SmallVector<Value> unpaddedInputs, padValues;
  /// The kernel's argument for padValues (the padding value, loaded once
  /// per stage and stored into the chunks outside the input).
  Value padValue;

  /// Appends an argument of `type` (with `attrs`) to `func`, and to every
  /// call in `calls` the operand `operandFor(i, call)` gives for call #i.
  BlockArgument
  appendArgument(Type type, DictionaryAttr attrs, Location loc,
                 function_ref<Value(size_t, func::CallOp)> operandFor) {
    unsigned n = func.getNumArguments();
    (void)func.insertArgument(n, type, attrs, loc);
    for (auto [i, call] : llvm::enumerate(calls))
      call->insertOperands(call.getNumOperands(), operandFor(i, call));
    return func.getArgument(n);
  }

  bool isInt() const { return elementType.isInteger(8); }
  /// f32 operands on TF32 tensor cores (--allow-tf32).
  bool isTf32() const { return elementType.isF32(); }
  Type accType() const {
    MLIRContext *ctx = elementType.getContext();
    if (isInt())
      return IntegerType::get(ctx, 32);
    return Float32Type::get(ctx);
  }
  int64_t elementBytes() const {
    return elementType.getIntOrFloatBitWidth() / 8;
  }
  /// Elements per 16-byte chunk (cp.async, ldmatrix row).
  int64_t chunkElems() const { return 16 / elementBytes(); }
};

bool isIdentityLayout(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() && type.getLayout().isIdentity();
}

/// Collects the leaves of the mulf tree `v`: extf's of the block arguments
/// into `extended`, values defined outside the body into `scales`. Counts
/// the ops visited. With `f32`, f32 block arguments are leaves as they are
/// (TF32 GEMMs).
bool collectProduct(Value v, Block &body, SmallVector<BlockArgument> &operands,
                    SmallVector<Value> &scales, unsigned &ops, bool f32) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != &body) {
    if (isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == &body) {
      if (!f32 || !v.getType().isF32())
        return false;
      operands.push_back(cast<BlockArgument>(v));
      return true;
    }
    scales.push_back(v);
    return true;
  }
  ++ops;
  if (auto mul = dyn_cast<arith::MulFOp>(def))
    return collectProduct(mul.getLhs(), body, operands, scales, ops, f32) &&
           collectProduct(mul.getRhs(), body, operands, scales, ops, f32);
  if (auto ext = dyn_cast<arith::ExtFOp>(def)) {
    auto arg = dyn_cast<BlockArgument>(ext.getIn());
    if (arg)
      operands.push_back(arg);
    return arg != nullptr;
  }
  return false;
}

/// acc += ext(in0) * ext(in1) (* loop-invariant scales), f16/bf16 inputs;
/// with `f32`, also acc += in0 * in1 with f32 inputs.
bool isMulAccBody(linalg::GenericOp op, Type &elementType,
                  SmallVector<Value> &scales, bool f32) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return false;
  Value out = body.getArgument(2), prod;
  if (add.getLhs() == out)
    prod = add.getRhs();
  else if (add.getRhs() == out)
    prod = add.getLhs();
  else
    return false;
  SmallVector<BlockArgument> operands;
  unsigned ops = 1;
  if (!collectProduct(prod, body, operands, scales, ops, f32) ||
      operands.size() != 2 || ops + 1 != body.getOperations().size())
    return false;
  BlockArgument x = operands[0], y = operands[1];
  Type t = x.getType();
  if (t != y.getType() || !(t.isF16() || t.isBF16() || (f32 && t.isF32())) ||
      !out.getType().isF32() || x == y || x.getArgNumber() > 1 ||
      y.getArgNumber() > 1)
    return false;
  elementType = t;
  return llvm::all_of(scales, [](Value s) { return s.getType().isF32(); });
}

/// acc += ext(in0) * ext(in1) with i8 inputs and an i32 accumulator; sets
/// `isUnsigned[i]` when input i is zero-extended.
bool isIntMulAccBody(linalg::GenericOp op, Type &elementType,
                     bool isUnsigned[2]) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 5)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddIOp>();
  Value out = body.getArgument(2);
  if (!add || !out.getType().isInteger(32))
    return false;
  Value prod = add.getLhs() == out ? add.getRhs() : add.getLhs();
  if (prod == out || (add.getLhs() != out && add.getRhs() != out))
    return false;
  auto mul = prod.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return false;
  bool seen[2] = {false, false};
  for (Value v : {mul.getLhs(), mul.getRhs()}) {
    Operation *ext = v.getDefiningOp();
    if (!ext || !isa<arith::ExtSIOp, arith::ExtUIOp>(ext))
      return false;
    auto arg = dyn_cast<BlockArgument>(ext->getOperand(0));
    if (!arg || arg.getOwner() != &body || arg.getArgNumber() > 1 ||
        seen[arg.getArgNumber()] || !arg.getType().isInteger(8))
      return false;
    seen[arg.getArgNumber()] = true;
    isUnsigned[arg.getArgNumber()] = isa<arith::ExtUIOp>(ext);
  }
  elementType = body.getArgument(0).getType();
  return true;
}

bool isDimsOrConstants(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr e) {
    return isa<AffineDimExpr, AffineConstantExpr>(e);
  });
}

/// Results of `map` are dims: batch dims (< rank - 2) in increasing order,
/// then the two given dims.
bool hasOperandMap(AffineMap map, unsigned rank, unsigned last0,
                   unsigned last1) {
  unsigned n = map.getNumResults();
  if (n < 2 || !isDimsOrConstants(map) ||
      !isa<AffineDimExpr>(map.getResult(n - 2)) ||
      !isa<AffineDimExpr>(map.getResult(n - 1)) ||
      map.getDimPosition(n - 2) != last0 ||
      map.getDimPosition(n - 1) != last1)
    return false;
  int prev = -1;
  for (unsigned i = 0; i + 2 < n; ++i) {
    // A broadcast batch dim reads index 0.
    if (auto c = dyn_cast<AffineConstantExpr>(map.getResult(i))) {
      if (c.getValue() != 0)
        return false;
      continue;
    }
    auto d = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!d || (int)d.getPosition() <= prev || d.getPosition() + 2 >= rank)
      return false;
    prev = d.getPosition();
  }
  return true;
}

LogicalResult matchConvKernel(GemmKernel &g, bool unsignedArg[2],
                              const KernelCalls &calls);
LogicalResult checkShapeAndEpilogue(GemmKernel &g, unsigned rank,
                                    const KernelCalls &calls);

FailureOr<GemmKernel>
matchGemmKernel(func::FuncOp func, const KernelCalls &calls, bool allowTf32) {
  GemmKernel g;
  g.func = func;
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp, arith::ConstantOp>(op) ||
        isa<ViewLikeOpInterface>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
        linalgOp.getNumDpsInits() != 1 ||
        !isa<linalg::FillOp, linalg::GenericOp>(op))
      return failure();
    ops.push_back(linalgOp);
  }
  // [init ;] contraction ; epilogue... Without an init the accumulator
  // starts from what an earlier kernel wrote (an init fusion merged there).
  unsigned first = !ops.empty() && ops[0].getNumReductionLoops() != 0 ? 0 : 1;
  if (ops.size() < first + 1 || !isa<linalg::GenericOp>(ops[first]) ||
      ops[first].getNumReductionLoops() == 0 ||
      (first && ops[0].getDpsInits()[0] != ops[1].getDpsInits()[0]) ||
      ops[first].getNumDpsInputs() != 2)
    return failure();
  if (first)
    g.init = ops[0];
  g.contraction = cast<linalg::GenericOp>(ops[first]);
  for (linalg::LinalgOp op : llvm::drop_begin(ops, first + 1)) {
    if (!isa<linalg::GenericOp>(op))
      return failure();
    g.epilogue.push_back(cast<linalg::GenericOp>(op));
  }
  linalg::GenericOp c = g.contraction;
  bool unsignedArg[2] = {false, false};
  if (!isMulAccBody(c, g.elementType, g.scales, allowTf32)) {
    g.scales.clear();
    if (!isIntMulAccBody(c, g.elementType, unsignedArg))
      return failure();
  }
  if (!g.init) {
    // The accumulator's earlier value is read in the epilogue.
  } else if (auto fill = dyn_cast<linalg::FillOp>(g.init.getOperation())) {
    if (fill.getInputs()[0].getType() != g.accType())
      return failure();
  } else {
    auto init = cast<linalg::GenericOp>(g.init.getOperation());
    if (init.getNumParallelLoops() != init.getNumLoops() ||
        !init.getMatchingIndexingMap(init.getDpsInitOperand(0)).isIdentity() ||
        !init.getRegion().front().getArgument(init.getNumDpsInputs()).use_empty() ||
        llvm::any_of(init.getRegion().front().without_terminator(),
                     [](Operation &op) { return op.getNumRegions() != 0; }))
      return failure();
    for (OpOperand *in : init.getDpsInputOperands())
      if (!isDimsOrConstants(init.getMatchingIndexingMap(in)))
        return failure();
  }

  g.acc = c.getDpsInits()[0];
  if (c.getNumLoops() == 7) {
    if (failed(matchConvKernel(g, unsignedArg, calls)))
      return failure();
    return g;
  }
  unsigned rank = c.getNumLoops() - 1;
  auto iters = c.getIteratorTypesArray();
  if (rank < 2 || iters.back() != utils::IteratorType::reduction ||
      llvm::count(iters, utils::IteratorType::reduction) != 1 ||
      c.getMatchingIndexingMap(c.getDpsInitOperand(0)) !=
          AffineMap::getMultiDimIdentityMap(rank + 1, c.getContext())
              .getMajorSubMap(rank))
    return failure();
  // The multiplicands, in the order of the block arguments' roles.
  OpOperand *in0 = c.getDpsInputOperand(0), *in1 = c.getDpsInputOperand(1);
  AffineMap m0 = c.getMatchingIndexingMap(in0);
  AffineMap m1 = c.getMatchingIndexingMap(in1);
  unsigned dm = rank - 2, dn = rank - 1, dk = rank;
  OpOperand *aOp = nullptr, *bOp = nullptr;
  for (auto [x, y, mx, my] : {std::make_tuple(in0, in1, m0, m1),
                              std::make_tuple(in1, in0, m1, m0)}) {
    if (!hasOperandMap(mx, rank, dm, dk))
      continue;
    if (hasOperandMap(my, rank, dk, dn) || hasOperandMap(my, rank, dn, dk)) {
      aOp = x;
      bOp = y;
      g.aMap = mx;
      g.bMap = my;
      break;
    }
  }
  if (!aOp)
    return failure();
  g.a = aOp->get();
  g.b = bOp->get();
  g.bTransposed = g.bMap.getDimPosition(g.bMap.getNumResults() - 1) == dk;
  g.aUnsigned = unsignedArg[aOp->getOperandNumber()];
  g.bUnsigned = unsignedArg[bOp->getOperandNumber()];
  if (!isIdentityLayout(g.a) || !isIdentityLayout(g.b) ||
      !isIdentityLayout(g.acc))
    return failure();
  ArrayRef<int64_t> accShape = cast<MemRefType>(g.acc.getType()).getShape();
  g.m = accShape[dm];
  g.n = accShape[dn];
  g.k = cast<MemRefType>(g.a.getType()).getShape().back();
  g.batchShape.assign(accShape.begin(), accShape.end() - 2);
  if (failed(checkShapeAndEpilogue(g, rank, calls)))
    return failure();
  return g;
}

/// `e` is `d * stride [+ r * dilation]` over dims `d` and `r` (the
/// dilation term absent when the window dim has extent 1 and folded away).
bool isWindowExpr(AffineExpr e, unsigned d, unsigned r, int64_t &stride,
                  int64_t &dilation) {
  stride = dilation = 1;
  SmallVector<AffineExpr> terms;
  std::function<void(AffineExpr)> flatten = [&](AffineExpr x) {
    auto bin = dyn_cast<AffineBinaryOpExpr>(x);
    if (bin && bin.getKind() == AffineExprKind::Add) {
      flatten(bin.getLHS());
      flatten(bin.getRHS());
      return;
    }
    terms.push_back(x);
  };
  flatten(e);
  bool seenD = false, seenR = false;
  for (AffineExpr t : terms) {
    int64_t coeff = 1;
    AffineExpr dim = t;
    if (auto mul = dyn_cast<AffineBinaryOpExpr>(t);
        mul && mul.getKind() == AffineExprKind::Mul) {
      auto cst = dyn_cast<AffineConstantExpr>(mul.getRHS());
      if (!cst)
        return false;
      coeff = cst.getValue();
      dim = mul.getLHS();
    }
    auto de = dyn_cast<AffineDimExpr>(dim);
    if (!de || coeff < 1)
      return false;
    if (de.getPosition() == d && !seenD) {
      seenD = true;
      stride = coeff;
    } else if (de.getPosition() == r && !seenR) {
      seenR = true;
      dilation = coeff;
    } else {
      return false;
    }
  }
  return seenD;
}

/// The channels-last convolution dlc-convert-to-linalg writes: loops (n, oh,
/// ow, o, kh, kw, c), input (n, oh*sh + kh*dh, ow*sw + kw*dw, c) on an
/// input padded beforehand, weight (o, kh, kw, c), output (n, oh, ow, o).
LogicalResult matchConvKernel(GemmKernel &g, bool unsignedArg[2],
                              const KernelCalls &calls) {
  linalg::GenericOp c = g.contraction;
  MLIRContext *ctx = c.getContext();
  auto iters = c.getIteratorTypesArray();
  for (unsigned i = 0; i < 7; ++i)
    if (iters[i] != (i < 4 ? utils::IteratorType::parallel
                           : utils::IteratorType::reduction))
      return failure();
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  if (c.getMatchingIndexingMap(c.getDpsInitOperand(0)) !=
      AffineMap::get(7, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx))
    return failure();
  AffineMap weightMap = AffineMap::get(7, 0, {dim(3), dim(4), dim(5), dim(6)},
                                       ctx);
  OpOperand *in0 = c.getDpsInputOperand(0), *in1 = c.getDpsInputOperand(1);
  OpOperand *aOp = in0, *bOp = in1;
  if (c.getMatchingIndexingMap(in0) == weightMap)
    std::swap(aOp, bOp);
  if (c.getMatchingIndexingMap(bOp) != weightMap)
    return failure();
  AffineMap im = c.getMatchingIndexingMap(aOp);
  GemmKernel::Conv conv;
  if (im.getNumResults() != 4 || im.getResult(0) != dim(0) ||
      im.getResult(3) != dim(6) ||
      !isWindowExpr(im.getResult(1), 1, 4, conv.sh, conv.dh) ||
      !isWindowExpr(im.getResult(2), 2, 5, conv.sw, conv.dw))
    return failure();
  g.a = aOp->get();
  g.b = bOp->get();
  g.aMap = im;
  g.bMap = weightMap;
  g.bTransposed = true;
  g.aUnsigned = unsignedArg[aOp->getOperandNumber()];
  g.bUnsigned = unsignedArg[bOp->getOperandNumber()];
  if (!isIdentityLayout(g.a) || !isIdentityLayout(g.b) ||
      !isIdentityLayout(g.acc))
    return failure();
  ArrayRef<int64_t> out = cast<MemRefType>(g.acc.getType()).getShape();
  ArrayRef<int64_t> w = cast<MemRefType>(g.b.getType()).getShape();
  ArrayRef<int64_t> in = cast<MemRefType>(g.a.getType()).getShape();
  conv.batch = out[0];
  conv.oh = out[1];
  conv.ow = out[2];
  conv.kh = w[1];
  conv.kw = w[2];
  conv.c = w[3];
  // Every window lies inside the (padded) input.
  if (in[3] != conv.c ||
      (conv.oh - 1) * conv.sh + (conv.kh - 1) * conv.dh >= in[1] ||
      (conv.ow - 1) * conv.sw + (conv.kw - 1) * conv.dw >= in[2])
    return failure();
  g.conv = conv;
  g.m = conv.batch * conv.oh * conv.ow;
  g.n = out[3];
  g.k = conv.kh * conv.kw * conv.c;
  // A 16-byte chunk of k stays within one window position's channels.
  if (conv.c % g.chunkElems())
    return failure();
  return checkShapeAndEpilogue(g, 4, calls);
}

/// The size limits, and the epilogue's ops (`rank` loops, like the
/// accumulator); collects the kernel's callers.
LogicalResult checkShapeAndEpilogue(GemmKernel &g, unsigned rank,
                                    const KernelCalls &calls) {
  // 16-byte rows for cp.async; small problems stay scalar kernels. An i8
  // B must be [N, K]: ldmatrix transposes only 16-bit elements.
  int64_t ce = g.chunkElems();
  if (g.k % ce ||
      (!g.bTransposed && (g.elementBytes() != 2 || g.n % ce)) ||
      g.m < 16 || g.n < 16 || g.k < 2 * ce)
    return failure();

  // Epilogue ops run per accumulator element: same iteration space, all
  // parallel, written buffers read only at the element being computed.
  Value aRoot = rootBuffer(g.a), bRoot = rootBuffer(g.b);
  SmallVector<Value> written{rootBuffer(g.acc)};
  for (linalg::GenericOp e : g.epilogue) {
    if (e.getNumLoops() != rank ||
        e.getNumParallelLoops() != e.getNumLoops() ||
        !e.getMatchingIndexingMap(e.getDpsInitOperand(0)).isIdentity() ||
        !isIdentityLayout(e.getDpsInits()[0]) ||
        llvm::any_of(e.getRegion().front().without_terminator(),
                     [](Operation &op) { return op.getNumRegions() != 0; }))
      return failure();
    written.push_back(rootBuffer(e.getDpsInits()[0]));
  }
  SmallVector<linalg::GenericOp> elementwise(g.epilogue);
  if (auto init = g.init ? dyn_cast<linalg::GenericOp>(g.init.getOperation())
                         : linalg::GenericOp())
    elementwise.push_back(init);
  for (linalg::GenericOp e : elementwise)
    for (OpOperand &operand : e->getOpOperands()) {
      AffineMap map = e.getMatchingIndexingMap(&operand);
      if (!isDimsOrConstants(map))
        return failure();
      Value root = rootBuffer(operand.get());
      if (llvm::is_contained(written, root) && !map.isIdentity())
        return failure();
      if (!isa<MemRefType>(operand.get().getType()))
        return failure();
    }
  for (Value w : written)
    if (w == aRoot || w == bRoot)
      return failure();
  g.calls = calls.of(g.func);
  return success();
}

/// A padding kernel's call: one `dlc.padding` generic (padChannelsLast)
/// writing argument `out` from argument `in`, its padding zero or read from
/// argument `value` (a rank-0 buffer of the element type).
struct PaddingCall {
  func::CallOp call;
  unsigned out, in;
  std::optional<unsigned> value;
  /// [begin H, begin W, end H, end W].
  SmallVector<int64_t> pads;
};

std::optional<PaddingCall> matchPaddingCall(func::CallOp call) {
  auto func = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!func || func.isExternal() || !func->hasAttr(attrs::kKernel))
    return std::nullopt;
  linalg::GenericOp pad;
  for (Operation &op : func.getBody().front()) {
    if (isa<arith::ConstantOp, func::ReturnOp>(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || pad)
      return std::nullopt;
    pad = generic;
  }
  auto attr = pad ? pad->getAttrOfType<DenseI64ArrayAttr>(attrs::kPadding)
                  : DenseI64ArrayAttr();
  Block &entry = func.getBody().front();
  auto argNumber = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &entry)
      return std::nullopt;
    return arg.getArgNumber();
  };
  if (!attr || attr.size() != 4 || pad.getNumDpsInputs() > 1 ||
      pad.getNumDpsInits() != 1 ||
      func.getNumArguments() != 2 + pad.getNumDpsInputs())
    return std::nullopt;
  PaddingCall pc{call, 0, 0, std::nullopt, {}};
  std::optional<unsigned> out = argNumber(pad.getDpsInits()[0]);
  if (!out)
    return std::nullopt;
  pc.out = *out;
  if (pad.getNumDpsInputs() == 1) {
    pc.value = argNumber(pad.getDpsInputs()[0]);
    if (!pc.value || *pc.value == pc.out)
      return std::nullopt;
  }
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (i != pc.out && (!pc.value || i != *pc.value))
      pc.in = i;
  auto outType = dyn_cast<MemRefType>(func.getArgument(pc.out).getType());
  auto inType = dyn_cast<MemRefType>(func.getArgument(pc.in).getType());
  pc.pads.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  ArrayRef<int64_t> p = pc.pads;
  if (pc.value) {
    auto valueType =
        dyn_cast<MemRefType>(func.getArgument(*pc.value).getType());
    if (!valueType || valueType.getRank() != 0 || !outType ||
        valueType.getElementType() != outType.getElementType())
      return std::nullopt;
  }
  if (!outType || !inType || outType.getRank() != 4 || inType.getRank() != 4 ||
      !outType.hasStaticShape() || !inType.hasStaticShape() ||
      inType.getElementType() != outType.getElementType() ||
      inType.getDimSize(0) != outType.getDimSize(0) ||
      inType.getDimSize(1) + p[0] + p[2] != outType.getDimSize(1) ||
      inType.getDimSize(2) + p[1] + p[3] != outType.getDimSize(2) ||
      inType.getDimSize(3) != outType.getDimSize(3))
    return std::nullopt;
  return pc;
}

/// Convolution `g` reads, at every call, a buffer that a padding kernel
/// filled from an input just before (resnet's 3x3 convolutions): records
/// the pads, those inputs and the padding values (int8 inputs pad with
/// their zero point) so that the kernel reads the input itself, filling
/// its im2col chunks outside it with the padding, and the copy goes (one
/// kernel and a write and read of the padded tensor fewer). Only when
/// nothing between the copy and the call touches either buffer, and every
/// call pads the same way.
void foldConvPadding(GemmKernel &g) {
  auto arg = dyn_cast<BlockArgument>(g.a);
  if (!g.conv || g.calls.empty() || !arg ||
      arg.getOwner() != &g.func.getBody().front())
    return;
  SmallVector<PaddingCall> padCalls;
  for (func::CallOp call : g.calls) {
    Value padded = call.getOperand(arg.getArgNumber());
    if (!padded.getDefiningOp<memref::AllocOp>())
      return;
    std::optional<PaddingCall> padCall;
    for (Operation *user : padded.getUsers()) {
      auto c = dyn_cast<func::CallOp>(user);
      if (!c || c->getBlock() != call->getBlock() || !c->isBeforeInBlock(call))
        continue;
      std::optional<PaddingCall> pc = matchPaddingCall(c);
      if (!pc || c.getOperand(pc->out) != padded)
        continue;
      if (padCall)
        return;
      padCall = pc;
    }
    if (!padCall || (!padCalls.empty() && (padCalls[0].pads != padCall->pads ||
                                           padCalls[0].value.has_value() !=
                                               padCall->value.has_value())))
      return;
    Value input = padCall->call.getOperand(padCall->in);
    Value roots[2] = {rootBuffer(input), rootBuffer(padded)};
    for (Operation *op = padCall->call->getNextNode();
         op != call.getOperation(); op = op->getNextNode())
      for (Value v : op->getOperands())
        if (isa<MemRefType>(v.getType()) &&
            llvm::is_contained(roots, rootBuffer(v)))
          return;
    padCalls.push_back(*padCall);
  }
  PaddingCall &first = padCalls.front();
  auto inType = cast<MemRefType>(first.call.getOperand(first.in).getType());
  GemmKernel::Conv &cv = *g.conv;
  cv.foldsPadding = true;
  cv.padTop = first.pads[0];
  cv.padLeft = first.pads[1];
  cv.inH = inType.getDimSize(1);
  cv.inW = inType.getDimSize(2);
  for (PaddingCall &pc : padCalls) {
    g.padCalls.push_back(pc.call);
    g.unpaddedInputs.push_back(pc.call.getOperand(pc.in));
    if (pc.value)
      g.padValues.push_back(pc.call.getOperand(*pc.value));
  }
}

//===----------------------------------------------------------------------===//
// The schedule
//===----------------------------------------------------------------------===//

/// A CTA tile shape: BM x BN x BK. With mma.sync, warpsM x warpsN warps
/// and BK 64 bytes of k (32 f16/bf16 or 64 i8 elements, two mma k-steps);
/// with wgmma (`warpGroups` > 0), warpgroups of 4 warps stacked along M,
/// each owning BM / warpGroups rows and all BN columns, and BK 128 bytes of
/// k (one 128-byte swizzle atom row, four wgmma k-steps).
struct TileConfig {
  int64_t bm, bn, warpsM, warpsN, stages;
  int64_t bk = 32;
  int64_t warpGroups = 0;
  /// Tile rows per raster group (1: row-major tile order); chooseGroupM.
  int64_t groupM = 1;
  bool wgmma() const { return warpGroups > 0; }
  int64_t threads() const {
    return wgmma() ? 128 * warpGroups : 32 * warpsM * warpsN;
  }
  /// Per warp: m16 tiles (mma.sync) or m64 blocks of its warpgroup (wgmma).
  int64_t mTiles() const {
    return wgmma() ? bm / warpGroups / 64 : bm / warpsM / 16;
  }
  /// Rows between a warp's consecutive m tiles.
  int64_t mStride() const { return wgmma() ? 64 : 16; }
  /// Per warp, n8 tiles.
  int64_t nTiles() const { return wgmma() ? bn / 8 : bn / warpsN / 8; }
  /// k-tiles loaded ahead of the one being multiplied. wgmma runs
  /// asynchronously one k-tile behind, so its slot is still being read.
  int64_t lookahead() const { return wgmma() ? stages - 2 : stages - 1; }
  int64_t aElems() const { return bm * bk; }
  int64_t bElems() const { return bk * bn; }
  int64_t stageElems() const { return aElems() + bElems(); }
};

/// The mma.sync tile shapes, largest first. Each keeps the 4-byte
/// accumulators of a thread at 128 registers or fewer.
constexpr TileConfig kConfigs[] = {
    {128, 128, 2, 2, 4},
    {128, 64, 2, 2, 4},
    {64, 64, 2, 2, 3},
};

/// The wgmma tile shapes (sm_90a), largest first: BN is the instruction's
/// N (a multiple of 8 up to 256; B is always K-major, 8 chunks a row, so any
/// BN swizzles alike); 128 accumulator registers per thread at most.
constexpr TileConfig kWgmmaConfigs[] = {
    {128, 256, 0, 0, 4, 0, 2}, {128, 192, 0, 0, 4, 0, 2},
    {128, 128, 0, 0, 4, 0, 2}, {128, 64, 0, 0, 4, 0, 2},
    {64, 128, 0, 0, 4, 0, 1},  {64, 96, 0, 0, 4, 0, 1},
    {64, 64, 0, 0, 4, 0, 1},
};

/// Tile rows per raster group. In row-major tile order the CTAs resident
/// at once cover a few tile rows and all tile columns, so each wave streams
/// all of B from DRAM: an 8192^3 f16 GEMM (B 128 MB, L2 50 MB) moved 5.9 GB
/// and ran DRAM-bound at 430 TFLOP/s on the H100. Ordering the tiles column
/// by column within groups of `groupM` rows makes a wave a near-square block
/// of tiles whose A rows and B columns the L2 holds (what CUTLASS's swizzle
/// and Triton's GROUP_M do). The group is the divisor of the tile rows
/// nearest below the square block's height, sqrt(smCount * bn / bm) tiles,
/// so every group is full and the mapping stays constant arithmetic; 1 when
/// one wave covers the grid or no divisor in [2, height] exists.
int64_t chooseGroupM(int64_t batch, int64_t tilesM, int64_t tilesN,
                     const TileConfig &c, int64_t smCount) {
  if (batch * tilesM * tilesN <= smCount || tilesN < 2)
    return 1;
  int64_t height = int64_t(std::sqrt(double(smCount * c.bn) / double(c.bm)));
  for (int64_t gm = std::min(height, tilesM); gm >= 2; --gm)
    if (tilesM % gm == 0)
      return gm;
  return 1;
}

/// What the tile cost model plans with, per SM and SM clock (an H100's
/// figures; an A100's mma.sync rate is the same per SM).
namespace cost {
/// Dense f16/bf16 multiply-adds per clock: wgmma, and mma.sync (half
/// wgmma's on sm_90). int8 runs at twice, TF32 at half the rate.
constexpr double kWgmmaMacs = 2048, kMmaMacs = 1024;
/// An SM's share of L2 bandwidth (the 4096^3 GEMM's 128x256 tiles drew
/// ~6.7 TB/s from the H100's L2, 26 bytes per SM clock). Kept when fewer
/// SMs load: whether one SM then draws more is unmeasured, and assuming it
/// would favour leaving SMs idle.
constexpr double kL2Bytes = 32;
/// Filling the pipeline: the first k-tile's DRAM latency (~0.8 us).
constexpr double kFillCycles = 1500;
/// Epilogue cycles per output element of a CTA tile, per SM: ~8 issue
/// slots per element (convert, bias, activation, store) over 4 schedulers
/// at an IPC of ~1/2 (two warps each hide little latency).
constexpr double kEpilogueCyclesPerElement = 1.0 / 8;
/// Shared memory and registers an SM gives its CTAs: a CTA takes 227 KiB
/// at most of an SM's 228 (kSmSharedBytes), 1 KiB of which each CTA
/// reserves.
constexpr int64_t kSmemBytes = 227 * 1024, kRegisters = 65536;
constexpr int64_t kSmSharedBytes = 228 * 1024;
/// A k-tile's turnaround in a CTA whose A operand is gathered by cp.async
/// (an im2col window): issuing the gather, the barrier, waiting for the
/// data, seen by one CTA with `lookahead` k-tiles in flight. From the H100
/// (2026-11-26): resnet50 b32's layer4 3x3 convolutions, 104 CTAs of
/// 128x64 (one an SM, 2 k-tiles ahead), took 72 k-tiles in 0.047 ms,
/// ~1250 cycles each where their MMAs need 256 and their loads 768.
constexpr double kGatherKTileLatency = 2500;
/// Bytes per clock in which a rank of a split-K cluster reads the other
/// ranks' f32 partials of its share of the tile from distributed shared
/// memory (unmeasured; taken as an SM's L2 share).
constexpr double kDsmemBytes = 32;
/// SMs of a GPC, the most a cluster's CTAs spread over (an H100 SXM's 132
/// SMs are 8 GPCs of 16 or 18).
constexpr int64_t kGpcSms = 16;
} // namespace cost

/// The registers a thread of a CTA of `threads` threads gets at launch
/// when `ctas` such CTAs share an SM (what ptxas allots under .maxntid and
/// .minnctapersm): an SM's 4 schedulers each have 16384 for the warps they
/// run, the warps spread evenly over them, 8 at a time, 255 at most
/// (int8 resnet50 b32: 288 threads, 2 CTAs -> 96; 384, 2 -> 80).
int64_t entryRegisters(int64_t threads, int64_t ctas) {
  int64_t warps = llvm::divideCeil(llvm::divideCeil(threads, 32) * ctas, 4);
  int64_t regs = std::min<int64_t>(255, 16384 / (warps * 32));
  return regs - regs % 8;
}

/// The registers a producer warpgroup keeps of its own: 56 where it
/// gathers an operand (its chunks' addresses: with 40, CUTLASS's figure for
/// TMA producers, ptxas spilled 24-112 bytes in int8 resnet50 b32's
/// gathering kernels, with 24 up to 256, with 56 none but 12 in layer4's,
/// whose consumers used 236 alone), 24 where one thread issues TMA copies.
int64_t producerRegisters(bool gathering) { return gathering ? 56 : 24; }

/// The registers a consumer thread of a warp-specialized CTA has: with a
/// producer warpgroup (`producers` = 128) that keeps `producerRegs` and
/// gives the rest to the `consumers` (setmaxnreg), their share, 248 at
/// most (255 a thread); else what every thread starts with. Not with
/// .minnctapersm 2 or more, whose share ptxas holds every thread to:
/// 384 threads, 2 CTAs, and consumers raised from 80 to 104 still stopped
/// ptxas with "Insufficient registers (80)" on a wgmma needing 90.
int64_t consumerRegisters(int64_t consumers, int64_t producers, int64_t ctas,
                          int64_t producerRegs) {
  int64_t threads = consumers + producers;
  int64_t entry = entryRegisters(threads, ctas);
  if (producers != 128 || ctas > 1)
    return entry;
  int64_t regs = (threads * entry - producers * producerRegs) / consumers;
  return std::max(entry, std::min<int64_t>(248, regs - regs % 8));
}

/// The dynamic shared memory a CTA of `g` on tiles `c` takes at most, the
/// one estimate the tile decisions share: its stages, the 1 KiB that
/// aligns them for wgmma's swizzle, and a full and an empty mbarrier a
/// stage (GemmBuilder::sharedBytes() is the exact figure, at most this).
int64_t ctaSharedBytes(const GemmKernel &g, const TileConfig &c) {
  return c.stages * c.stageElems() * g.elementBytes() + (c.wgmma() ? 1024 : 0) +
         c.stages * 16;
}

/// CTAs of `bytes` of dynamic shared memory an SM holds: its 228 KiB with 1
/// KiB reserved a CTA, none past the 227 KiB one CTA may have.
int64_t ctasBySharedMemory(int64_t bytes) {
  return bytes > cost::kSmemBytes ? 0 : cost::kSmSharedBytes / (bytes + 1024);
}

/// CTAs of `c` an SM holds at once, by registers and shared memory.
int64_t ctasPerSm(const GemmKernel &g, const TileConfig &c) {
  // Registers: the f32/i32 accumulators plus ~64 for addresses and
  // fragments.
  int64_t regs = (c.bm * c.bn / c.threads() + 64) * c.threads();
  return std::max<int64_t>(1,
                           std::min(cost::kRegisters / regs,
                                    ctasBySharedMemory(ctaSharedBytes(g, c))));
}

/// Batch entries of `g`: the product of its batch dims.
int64_t batchEntries(const GemmKernel &g) {
  int64_t n = 1;
  for (int64_t d : g.batchShape)
    n *= d;
  return n;
}

/// Output tiles of `g` on tiles `c`: batch entries x tile rows x tile
/// columns (one CTA each without split-K).
int64_t gridTiles(const GemmKernel &g, const TileConfig &c) {
  return batchEntries(g) * llvm::divideCeil(g.m, c.bm) *
         llvm::divideCeil(g.n, c.bn);
}

/// Estimated SM cycles of `g` on tiles `c`. CTAs spread
/// evenly over the SMs; an SM runs its CTAs' k-tiles one after another
/// (co-resident CTAs share its tensor cores and its L2 bandwidth), each
/// taking the longer of its MMAs (the whole tile, rows beyond M or N
/// included) and its loads (only rows that exist: TMA and cp.async
/// zero-fill the rest), and pays the pipeline fill and the epilogue once
/// per round of co-resident CTAs (what occupancy hides). The model ranks
/// tile shapes: wave quantization (bert's 1024x3072 FFN GEMM: 192 CTAs of
/// 128x128 are 1.45 waves, 128 of 128x192 one), and N or M below the tile
/// (resnet50's 64-channel convolutions on 128x256 tiles multiplied zeros
/// three quarters of the time). With `splits`, each tile's K is shared by
/// that many CTAs of a cluster, which share the reduction and the
/// epilogue; with `gatherLatency` (A gathered by cp.async) a k-tile takes
/// at least kGatherKTileLatency over the lookahead, per round of
/// co-resident CTAs.
double estimateCycles(const GemmKernel &g, const TileConfig &c, int64_t smCount,
                      int64_t splits = 1, bool gatherLatency = false) {
  int64_t eb = g.elementBytes();
  int64_t ctas = gridTiles(g, c) * splits;
  int64_t kTiles = llvm::divideCeil(llvm::divideCeil(g.k, c.bk), splits);
  double macs =
      (c.wgmma() ? cost::kWgmmaMacs : cost::kMmaMacs) * 2.0 / double(eb);
  double mma = double(c.bm * c.bn * c.bk) / macs;
  double load =
      double((std::min(c.bm, g.m) + std::min(c.bn, g.n)) * c.bk * eb) /
      cost::kL2Bytes;
  int64_t occupancy = ctasPerSm(g, c);
  int64_t perSm = llvm::divideCeil(ctas, smCount);
  int64_t rounds = llvm::divideCeil(perSm, occupancy);
  if (splits > 1) {
    // A cluster's CTAs run on SMs of one GPC: a GPC of 16 SMs (an H100's
    // have 16 or 18) holds 16 x occupancy / splits clusters, 5 of 3 or 3
    // of 5. Clusters past what the GPCs hold at once wait for a round.
    int64_t gpcSms = std::min<int64_t>(cost::kGpcSms, smCount);
    int64_t perRound =
        std::max<int64_t>(1, smCount / gpcSms) * (gpcSms * occupancy / splits);
    if (perRound == 0)
      return std::numeric_limits<double>::infinity();
    rounds = llvm::divideCeil(ctas / splits, perRound);
    perSm = std::max(perSm, rounds);
  }
  // A cluster's ranks share the epilogue (and the reduction below).
  double fixed = cost::kFillCycles + double(c.bm * c.bn) / double(splits) *
                                         cost::kEpilogueCyclesPerElement;
  double loop = double(perSm * kTiles) * std::max(mma, load);
  // A gathering CTA's own k-tiles take their turnaround at least, which
  // only its co-resident CTAs overlap.
  if (gatherLatency)
    loop = std::max(loop, double(rounds * kTiles) * cost::kGatherKTileLatency /
                              double(std::max<int64_t>(1, c.lookahead())));
  // Split-K in a cluster: each rank adds the other ranks' partials of its
  // share of the tile.
  double reduce = double((splits - 1) * c.bm * c.bn * 4) / double(splits) /
                  cost::kDsmemBytes;
  return loop + rounds * (fixed + reduce);
}

/// A tile shape written BMxBN.
std::string tileName(const TileConfig &c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn);
}

/// Whether `name` (BMxBN) is a tile shape of either path.
bool isTileName(StringRef name) {
  auto named = [&](const TileConfig &c) { return tileName(c) == name; };
  return llvm::any_of(kConfigs, named) || llvm::any_of(kWgmmaConfigs, named);
}

/// The most stages `c` fills on `g`: the prologue puts stages - 1
/// (mma.sync) or stages - 2 (wgmma, one slot still read by the wgmma in
/// flight) k-tiles in flight, so past all of K in flight at once the extra
/// stages are never filled.
int64_t fillableStages(const GemmKernel &g, const TileConfig &c) {
  return llvm::divideCeil(g.k, c.bk) + (c.wgmma() ? 2 : 1);
}

/// Tile shape `c` for `g`'s operands: a k-tile of 128 bytes (wgmma) or 64
/// (mma.sync) of k, and no more stages than K fills. With `shortK`, a wgmma
/// GEMM whose K is 64 bytes or less (int8 K <= 64: resnet50's convolutions
/// over 64 channels) takes a k-tile of 64 bytes, rows with the 64-byte
/// swizzle, which TMA can load (a box of 128 bytes would be larger than
/// the tensor) and which multiplies no zeros past K.
TileConfig forOperands(TileConfig c, const GemmKernel &g, bool wgmma,
                       bool shortK = false) {
  int64_t eb = g.elementBytes();
  c.bk = (wgmma ? 128 : 64) / eb;
  if (wgmma && shortK && g.k * eb <= 64)
    c.bk = 64 / eb;
  // Stages never filled would still keep other CTAs off the SM with their
  // shared memory (resnet50's 1x1 convolutions over 64 channels are one
  // k-tile: 4 stages of a 128x128 tile took 128 KiB, 3 take 96).
  c.stages = std::min(c.stages, fillableStages(g, c));
  return c;
}

/// The cost model: the tile shape with the fewest estimated cycles
/// (estimateCycles), the larger on a tie; `forced` (BMxBN) instead where
/// the path has that shape.
TileConfig chooseConfig(const GemmKernel &g, int64_t smCount, bool wgmma,
                        StringRef forced, bool shortK) {
  ArrayRef<TileConfig> configs =
      wgmma ? ArrayRef<TileConfig>(kWgmmaConfigs) : ArrayRef<TileConfig>(kConfigs);
  TileConfig chosen = configs.front();
  double best = std::numeric_limits<double>::infinity();
  for (TileConfig c : configs) {
    c = forOperands(c, g, wgmma, shortK);
    double cycles = tileName(c) == forced ? -1 : estimateCycles(g, c, smCount);
    if (cycles < best) {
      best = cycles;
      chosen = c;
    }
  }
  chosen.groupM =
      chooseGroupM(batchEntries(g), llvm::divideCeil(g.m, chosen.bm),
                   llvm::divideCeil(g.n, chosen.bn), chosen, smCount);
  return chosen;
}

/// Shared-memory layout of one operand tile: `rows` rows of `rowChunks`
/// 16-byte chunks, chunk c of row r stored at chunk c ^ f(r), so that the 8
/// row addresses of an ldmatrix (one chunk column, 8 consecutive rows) and
/// the 16-byte cp.async stores of a row hit 8 distinct bank groups.
struct SmemTile {
  int64_t base;       // element offset in a stage
  int64_t rowChunks;  // power of two
  int64_t chunkElems; // elements per 16-byte chunk
  Value element(Idx &ix, Value row, Value chunk) const {
    int64_t rowsPerGroup = std::max<int64_t>(1, 8 / rowChunks);
    int64_t period = std::min<int64_t>(rowChunks, 8);
    Value phys = ix.xori(chunk, ix.rem(ix.div(row, rowsPerGroup), period));
    return ix.add(ix.add(ix.mul(row, rowChunks * chunkElems),
                         ix.mul(phys, chunkElems)),
                  base);
  }
};

/// The lane-level schedule of one CTA, independent of how the instructions
/// are realized.
struct Schedule {
  const GemmKernel &g;
  TileConfig cfg;
  SmemTile aTile, bTile;
  int64_t kTiles, tilesM, tilesN;

  Schedule(const GemmKernel &g, TileConfig cfg) : g(g), cfg(cfg) {
    int64_t ce = g.chunkElems();
    aTile = {0, cfg.bk / ce, ce};
    // [K, N]: BK rows of BN; [N, K]: BN rows of BK.
    bTile = {cfg.aElems(), g.bTransposed ? cfg.bk / ce : cfg.bn / ce, ce};
    kTiles = llvm::divideCeil(g.k, cfg.bk);
    tilesM = llvm::divideCeil(g.m, cfg.bm);
    tilesN = llvm::divideCeil(g.n, cfg.bn);
  }

  /// The 16-byte chunks of a k-tile's A and B tiles. Of `threads` copying
  /// them, chunk `i` of thread t is chunk t + i * threads of the A tile,
  /// then of the B tile.
  int64_t aChunks() const { return cfg.aElems() / g.chunkElems(); }
  int64_t bChunks() const { return cfg.bElems() / g.chunkElems(); }

  /// For the lane's ldmatrix.x4 of A's m16 tile `mi` at k16 step `kk`: the
  /// (row, chunk) of the tile whose address the lane provides. Lanes 8j..8j+7
  /// address matrix j: rows 0-7 / 8-15 (j even / odd), k 0-7 / 8-15 (j < 2 /
  /// j >= 2), giving a0a1, a2a3, a4a5, a6a7.
  std::pair<Value, Value> aLdmatrix(Idx &ix, Value warpRow0, Value lane,
                                    int64_t mi, int64_t kk) const {
    Value row = ix.add(ix.add(warpRow0, mi * 16),
                       ix.add(ix.rem(lane, 8), ix.mul(ix.rem(ix.div(lane, 8), 2), 8)));
    Value chunk = ix.add(ix.div(lane, 16), kk * 2);
    return {row, chunk};
  }

  /// B's ldmatrix.x4 covering the n8 tiles 2nj and 2nj+1 at k16 step kk:
  /// registers 0, 1 are b0b1, b2b3 of tile 2nj; 2, 3 those of tile 2nj+1.
  /// [K, N] is read transposed (rows k, chunks along n); [N, K] directly.
  std::pair<Value, Value> bLdmatrix(Idx &ix, Value warpCol0, Value lane,
                                    int64_t nj, int64_t kk) const {
    if (!g.bTransposed) {
      Value row = ix.add(ix.rem(lane, 8),
                         ix.add(ix.mul(ix.rem(ix.div(lane, 8), 2), 8), kk * 16));
      Value chunk =
          ix.add(ix.div(ix.add(warpCol0, nj * 16), 8), ix.div(lane, 16));
      return {row, chunk};
    }
    Value row = ix.add(ix.add(warpCol0, nj * 16),
                       ix.add(ix.rem(lane, 8), ix.mul(ix.div(lane, 16), 8)));
    Value chunk = ix.add(ix.rem(ix.div(lane, 8), 2), kk * 2);
    return {row, chunk};
  }

  /// Row and column in the warp's 16x8 tile of accumulator register r
  /// (c0..c3) of `lane`: c0 c1 at row lane/4, c2 c3 at row lane/4 + 8;
  /// columns 2 (lane % 4) and + 1.
  std::pair<Value, Value> accElement(Idx &ix, Value lane, Value r) const {
    Value row = ix.add(ix.div(lane, 4), ix.mul(ix.div(r, 2), 8));
    Value col = ix.add(ix.mul(ix.rem(lane, 4), 2), ix.rem(r, 2));
    return {row, col};
  }
};

//===----------------------------------------------------------------------===//
// Building the CTA program
//===----------------------------------------------------------------------===//

/// Split-K: the k-tiles divided among `splits` CTAs per output tile, each
/// storing its partial sums to `workspace` ([splits] + the accumulator's
/// shape), which a second kernel adds up in a fixed order before the
/// epilogue (deterministic, unlike atomics). With `cluster` (wgmma, sm_90)
/// the tile's CTAs are one thread-block cluster instead: ranks 1.. leave
/// their accumulators in their shared memory, rank 0 adds them to its own
/// in rank order through distributed shared memory and runs the epilogue;
/// no workspace, no second kernel.
struct SplitK {
  int64_t splits, tilesPerSplit;
  Value workspace;
  bool cluster = false;
};

/// An operand whose k-tiles TMA loads (wgmma): one box of BK elements of k
/// by `boxRows` rows (BM of A, BN of B) per k-tile, 128-byte swizzled.
struct TmaOperand {
  /// The kernel argument the tensor map's address arrives in (GPU form).
  Value map;
  /// The map's extents, innermost (k) first.
  SmallVector<int64_t> dims;
  int64_t boxRows;
  /// TMA's im2col mode: a convolution's A gathered from its [N, H, W, C]
  /// input (dims {C, W, H, N}) by the copy engine. A copy moves boxRows
  /// pixels of BK channels, the window positions of consecutive output
  /// pixels: starting at a pixel's window corner, it steps by the strides
  /// through the bounding box of corners (W, then H, then N), shifted by
  /// the k-tile's kernel offsets; what lies outside the input reads zero.
  /// The box spans [lower, extent + upper) in each spatial dimension.
  struct Im2col {
    int64_t lowerW, lowerH, upperW, upperH;
  };
  std::optional<Im2col> im2col;
};

/// Whether convolution `g`'s input `type` ([N, H, W, C]) is its A matrix
/// as it is, [N * H * W, C]: a 1x1 window at stride 1 over an unpadded
/// input (resnet's bottleneck 1x1 convolutions).
bool isPointwiseConv(const GemmKernel &g, MemRefType type) {
  const GemmKernel::Conv &cv = *g.conv;
  return !cv.foldsPadding && cv.kh == 1 && cv.kw == 1 && cv.sh == 1 &&
         cv.sw == 1 && type.getRank() == 4 && type.getDimSize(0) == cv.batch &&
         type.getDimSize(1) == cv.oh && type.getDimSize(2) == cv.ow &&
         type.getDimSize(3) == cv.c;
}

class GemmBuilder {
public:
  GemmBuilder(RewriterBase &rewriter, GemmKernel &g, TileConfig cfg,
              bool emulate, std::optional<SplitK> split = std::nullopt,
              std::optional<TmaOperand> tmaA = std::nullopt,
              std::optional<TmaOperand> tmaB = std::nullopt,
              bool warpSpecialize = false, int64_t persistentCtas = 0,
              bool stageEpilogue = false, bool stageInputs = false,
              int64_t gatherWarps = 0, bool producerWarpgroup = false)
      : rw(rewriter), g(g), s(g, cfg), cfg(cfg), emulate(emulate), split(split),
        tmaA(std::move(tmaA)), tmaB(std::move(tmaB)),
        warpSpecialize(warpSpecialize), persistentCtas(persistentCtas),
        stageEpilogue(stageEpilogue), stageInputs(stageInputs),
        gatherWarps(gatherWarps), producerWarpgroup(producerWarpgroup),
        loc(g.contraction.getLoc()), ix{rewriter, loc},
        stagedType(g.elementType) {}

  /// Replaces the kernel's ops with the CTA program; returns its work
  /// items: the CTAs (emulated cluster split-K: the clusters).
  int64_t build();
  /// The CTA program from the accumulators' zeroing to its finish, over
  /// k-tiles [kBegin, kBegin + kCount).
  void buildCta(Value kBegin, Value kCount);
  /// The CTA's threads: the warpgroups or warps of the tile, and the
  /// producer warps of a warp-specialized kernel (GPU only; the emulation
  /// interleaves the producer).
  int64_t ctaThreads() const {
    return cfg.threads() + (specialized() && !emulate ? producerThreads() : 0);
  }
  /// Whether the accumulators of the CTA's consumer threads fit in its
  /// stages' shared memory, where a cluster split-K rank leaves them.
  static bool accumulatorsFitStages(const GemmKernel &g,
                                    const TileConfig &cfg) {
    return cfg.bm * cfg.bn * 4 <= stagesBytes(g, cfg);
  }
  /// The bytes of the pipeline stages of `cfg` for `g`'s operands.
  static int64_t stagesBytes(const GemmKernel &g, const TileConfig &cfg) {
    return cfg.stages * cfg.stageElems() * g.elementBytes();
  }
  /// The CTAs an SM is to hold (1 unless --gemm-ctas-per-sm shares SMs):
  /// the registers a thread starts with (registerSplit).
  void setCtasPerSm(int64_t n) { ctasPerSm = n; }
  /// See prefetchStagedInputs.
  void setPrefetchInputs(bool on) { prefetchStagedInputs = on; }
  /// Whether the producers give registers to the consumers (setmaxnreg),
  /// which ptxas ignores unless it knows the count a thread starts with:
  /// the kernel must declare .minnctapersm (1 here), with its .maxntid.
  bool givesRegisters() const { return registerSplit().has_value(); }
  /// Dynamic shared memory: the stages (+1 KiB to align them for wgmma's
  /// swizzle), then the full and, warp-specialized, empty mbarriers.
  int64_t sharedBytes() const {
    if (emulate)
      return 0;
    return stagesBytes() + (cfg.wgmma() ? 1024 : 0) +
           (anyTma() ? cfg.stages * 8 : 0) +
           (specialized() ? cfg.stages * 8 : 0);
  }

private:
  RewriterBase &rw;
  GemmKernel &g;
  Schedule s;
  TileConfig cfg;
  bool emulate;
  std::optional<SplitK> split;
  std::optional<TmaOperand> tmaA, tmaB;
  bool warpSpecialize;
  /// Persistent CTAs (0: one CTA per tile): CTA c runs tiles c, c + P, ...
  int64_t persistentCtas;
  /// The epilogue writes its outputs to the freed stage memory and copies
  /// them out in 16-byte chunks (stagedOutputs).
  bool stageEpilogue;
  /// The epilogue's inputs read at its own elements (a residual) are
  /// copied to the freed stage memory in 16-byte chunks of rows first, and
  /// each fragment reads its pair there.
  bool stageInputs;
  /// Producer warps gathering A (gatherers()); 0: the consumers gather.
  int64_t gatherWarps;
  /// A TMA producer is a warpgroup (producerThreads()).
  bool producerWarpgroup;
  /// The staged epilogue inputs are copied (cp.async) at the CTA's start
  /// into stage slots the k-loop never fills, where there are such
  /// (prefetchInputs()), instead of after the k-loop.
  bool prefetchStagedInputs = false;
  /// CTAs an SM is to hold (dlc.min_ctas_per_sm, else 1).
  int64_t ctasPerSm = 1;
  /// The inputs prefetchInputs() copies, and where: region
  /// `prefetchFirstRegion` of stagedAt() starts at element `prefetchBase`.
  SmallVector<Value> prefetched;
  int64_t prefetchBase = 0, prefetchFirstRegion = 0;
  /// The stage slots the CTA's k-loop writes, from slot 0: TMA fills the
  /// CTA's k-tiles only; cp.async also zero-fills the lookahead past K.
  int64_t usedSlots() const {
    int64_t fills =
        s.kTiles + (allTma() || specialized() ? 0 : cfg.lookahead());
    return std::min(cfg.stages, fills);
  }
  /// With prefetchStagedInputs (GPU consumers, emulated in order): starts
  /// copying the staged epilogue inputs into the slots past usedSlots(),
  /// where they fit after the staged outputs' regions.
  void prefetchInputs();

  Value cta;        // the work item: the CTA (emulated cluster: its cluster)
  Value splitIndex; // the CTA's split (split-K)
  Location loc;
  Idx ix;

  Type f32() { return rw.getF32Type(); }
  /// mma k-steps per k-tile: 32 bytes of k each (k16 f16/bf16, k32 i8).
  int64_t kSteps() const { return cfg.bk / (2 * g.chunkElems()); }
  /// Bytes of a k-tile row: with wgmma the swizzle span, 128, 64 or 32.
  int64_t rowBytes() const { return cfg.bk * g.elementBytes(); }
  /// Elements of one operand in a 32-bit fragment register.
  int64_t perReg() const { return 4 / g.elementBytes(); }
  Value smem;                // the stages, elements of g.elementType
  /// The dynamic shared memory and the offset of the stages in it (GPU).
  Value smemRaw, smemShift;
  /// The element type of the staged outputs (stagedOutputs), and the stage
  /// memory viewed in it: the operands' type and `smem`, or the outputs'
  /// own type (an f16 GEMM's int8 output: PTQ's kept first layer quantizes
  /// for the next one).
  Type stagedType;
  Value stageMem;
  Value accMem, fragA, fragB; // emulation: per-thread registers in memory
  Value tileRow0, tileCol0;
  SmallVector<Value> batch;  // batch coordinates of the CTA
  Value asyncToken;          // any token, for nvgpu.device_async_wait

  int64_t accRegs() const { return cfg.mTiles() * cfg.nTiles() * 4; }
  /// Emulation: the accMem element of thread `tid`'s accumulator register
  /// number `reg` ((mi * nTiles + ni) * 4 + r).
  Value accSlot(Value tid, Value reg) {
    return ix.add(ix.mul(tid, accRegs()), reg);
  }

  /// Runs `body(mi, ni, r, reg)` for every `step`-th accumulator register of
  /// a thread (register r of fragment (mi, ni), number reg; step 2: the
  /// first of each pair of adjacent columns): unrolled on the GPU, where
  /// registers need constant positions (then `regIndex` is reg), one scf.for
  /// in the emulation, which keeps the host's IR small (then `regIndex` is
  /// -1).
  void forEachAccumulator(function_ref<void(Value mi, Value ni, Value r,
                                            Value reg, int64_t regIndex)>
                              body,
                          int64_t step = 1) {
    int64_t nt = cfg.nTiles();
    if (!emulate) {
      for (int64_t reg = 0; reg < accRegs(); reg += step)
        body(ix.c(reg / 4 / nt), ix.c(reg / 4 % nt), ix.c(reg % 4), ix.c(reg),
             reg);
      return;
    }
    buildLoop(rw, loc, accRegs() / step, [&](Value i) {
      Value reg = ix.mul(i, step);
      body(ix.div(reg, 4 * nt), ix.rem(ix.div(reg, 4), nt), ix.rem(reg, 4),
           reg, -1);
    });
  }

  /// Runs `body(tid)` for every thread: on the GPU for this thread only; in
  /// the emulation, for all threads of the CTA in turn (the phases between
  /// barriers, and the steps of a warp instruction, are such loops).
  void forEachThread(function_ref<void(Value)> body) {
    dlc::forEachThread(rw, loc, emulate, cfg.threads(), body);
  }

  void barrier() { ctaBarrier(rw, loc, emulate); }
  void sideEffectAsm(StringRef text, StringRef constraints = "",
                     ValueRange operands = {}) {
    rw.create<LLVM::InlineAsmOp>(
        loc, TypeRange(), operands, text, constraints,
        /*has_side_effects=*/true,
        /*is_align_stack=*/false,
        LLVM::AsmDialectAttr::get(rw.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
  }

  /// Starts loading k-tile `kt` into `slot`: cp.async by every thread for
  /// the operands TMA does not load, and, if `issue` (i1) holds, the TMA
  /// copies of the others.
  void loadStage(Value kt, Value slot, Value issue);
  /// Thread `tid`'s share, of `threads` copying, of k-tile `kt`'s 16-byte
  /// chunks of the operands TMA does not load, into `slot`: cp.async
  /// (zero-filled outside the operand; a folded `padding`'s chunks outside
  /// the input stored); the copies' tokens go to `tokens` (GPU).
  void copyChunks(Value kt, Value slot, Value tid, int64_t threads,
                  Value padding, SmallVector<Value> &tokens);
  /// The folded padding value (an int8 input's zero point), or null.
  Value paddingValue() {
    return g.padValue ? rw.create<memref::LoadOp>(loc, g.padValue).getResult()
                      : Value();
  }
  /// A's and B's indices of operand element (row, col): A (m, k), B (k, n)
  /// or, transposed, (n, k); convolutions through the im2col window. With
  /// a folded padding the indices are clamped into the input and `inside`
  /// (required then) is set to whether the element lies within it.
  SmallVector<Value> aIndices(Value r, Value c, Value *inside = nullptr);
  SmallVector<Value> bIndices(Value r, Value c);

  // TMA (sm_90a). Each slot has an mbarrier that one thread arms with the
  // stage's byte count before issuing its copies; the copies complete the
  // transaction, which ends the barrier's phase; every thread waits for
  // the phase of the slot's n-th fill by its parity, n % 2.
  bool anyTma() const { return tmaA || tmaB; }
  bool allTma() const { return tmaA && tmaB; }
  /// Warp specialization (both operands on TMA, or B on TMA and A gathered
  /// by producer warps): a producer warp after the consumer warpgroups
  /// issues the copies; consumers release each slot through its "empty"
  /// mbarrier instead of a CTA barrier.
  bool specialized() const {
    return warpSpecialize && (allTma() || gatherers());
  }
  /// Producer warps gather A by cp.async (`gatherWarps` of them; B on TMA,
  /// issued by their first thread): each producer thread's copies and its
  /// arrival complete the slot's full mbarrier.
  bool gatherers() const {
    return warpSpecialize && gatherWarps > 0 && cfg.wgmma() && tmaB && !tmaA &&
           !persistent();
  }
  /// The producer warps' threads: the gatherers, else one warp, or a
  /// warpgroup (producerWarpgroup) where that gives the consumers
  /// registers (registerSplit): where the CTA has its SM alone (with
  /// .minnctapersm 2 ptxas holds every thread to its share whatever
  /// setmaxnreg says, and the warpgroup would only cut that share, 96 to
  /// 80 a thread) and its consumers would get more than they start with
  /// (not one consumer warpgroup: 248 either way).
  int64_t producerThreads() const {
    if (gatherers())
      return 32 * gatherWarps;
    bool gives =
        producerWarpgroup && ctasPerSm == 1 &&
        consumerRegisters(cfg.threads(), 128, 1, producerRegisters(false)) >
            entryRegisters(cfg.threads() + 128, 1);
    return gives ? 128 : 32;
  }
  /// `setmaxnreg` counts (GPU) for a producer warpgroup that gives registers
  /// to the consumers: {producers', consumers'}, or none where the
  /// producers are fewer than a warpgroup (setmaxnreg is the warpgroup's)
  /// or the consumers would gain nothing. A thread starts with
  /// entryRegisters(ctaThreads(), ctasPerSm); the producers keep
  /// producerRegisters() and the consumers take the rest
  /// (consumerRegisters(): one CTA of 2 consumer warpgroups, 224 beside
  /// gatherers, 240 beside a TMA producer).
  std::optional<std::pair<int64_t, int64_t>> registerSplit() const {
    if (emulate || !specialized() || producerThreads() != 128)
      return std::nullopt;
    int64_t producer = producerRegisters(gatherers());
    int64_t consumer =
        consumerRegisters(cfg.threads(), 128, ctasPerSm, producer);
    if (consumer <= entryRegisters(ctaThreads(), ctasPerSm))
      return std::nullopt;
    return std::make_pair(producer, consumer);
  }

  int64_t stagesBytes() const { return stagesBytes(g, cfg); }
  /// Bytes one box of `op` brings (zero-filled parts too): BK by its rows.
  int64_t boxBytes(const TmaOperand &op) const {
    return op.boxRows * cfg.bk * g.elementBytes();
  }
  /// Bytes one k-tile's TMA copies bring.
  int64_t tmaStageBytes() const;
  /// Shared-memory byte address of the "full" (copies landed) or, with
  /// warp specialization, "empty" (slot consumed) mbarrier of `slot` (GPU).
  Value barrierAddress(Value slot, bool empty = false);
  void initBarriers();
  /// If `issue` holds, one thread (thread 0) arms and copies k-tile `kt`.
  void issueTma(Value kt, Value slot, Value issue);
  /// Arms the slot's full barrier and issues the copies of k-tile `kt`
  /// (the calling thread only); emulated, the copies and the barrier.
  void armAndCopy(Value kt, Value slot);
  /// Waits until the fill of `slot` for the CTA's `j`-th k-tile landed.
  void waitForTma(Value j, Value slot);
  /// GPU: spins on `bar` until the phase of parity `parity` completed.
  void waitParity(Value bar, Value parity);
  /// GPU: the calling thread arrives on the mbarrier at shared address
  /// `bar` (i32), a release.
  void arrive(Value bar) {
    sideEffectAsm("{\n.reg .b64 st;\n"
                  "mbarrier.arrive.shared::cta.b64 st, [$0];\n}",
                  "r", {bar});
  }
  /// The warp-specialized main loop and epilogue.
  void buildSpecialized(Value kBegin, Value kCount, ValueRange acc);
  /// Warp specialization's pieces, shared by buildSpecialized and
  /// buildPersistent. A consumer step on the CTA's `q`-th k-tile (its slot
  /// and fill parity from q): wait for the fill, its wgmmas, and, where
  /// `notFirst` (i1) holds, the release of the slot of k-tile q - 1;
  /// returns the accumulators in flight.
  SmallVector<Value> consumeStep(Value q, Value notFirst, ValueRange acc);
  void consumeStepEmulated(Value q, Value notFirst);
  /// The producer's `t`-th fill, of k-tile `kt`: from the `stages`-th on,
  /// waits for the consumers' release of the slot's previous fill, then
  /// arms the slot and issues the copies.
  void produceStep(Value t, Value kt);
  /// if (tid < consumer threads) {consumers} else {producer warp}.
  scf::IfOp specializedRoles(Value tid);
  /// Inside `roles`' else branch, the producer's branch: the first thread
  /// after the consumers, or every producer thread where they gather
  /// (gatherers()); leaves the insertion point in it.
  void enterProducer(scf::IfOp roles, Value tid);
  /// In the consumers' branch: the registers the producers gave up
  /// (registerSplit()).
  void growConsumers();
  /// The same over the persistent CTA's tiles: the k-tile count runs on
  /// from tile to tile (slots and parities), each tile's last slot is
  /// released before its epilogue.
  void buildPersistent(ValueRange acc);
  bool persistent() const { return persistentCtas > 0; }
  /// Tiles of the whole grid (batch entries x tile rows x tile columns).
  int64_t tileCount() const { return batchEntries(g) * s.tilesM * s.tilesN; }
  /// Points tileRow0, tileCol0 and batch at linear tile `tile` (raster
  /// groups of cfg.groupM tile rows); returns what is left of `tile` above
  /// the batch (split-K's split).
  Value setTile(Value tile);
  /// Emulation: the producer issues every k-tile whose slot the consumers
  /// have released, from its next one on (`producerNext`) up to `total`;
  /// `kTileOf(t)` gives the t-th fill's k-tile (pointing the tile
  /// coordinates at its tile first where they change).
  void runProducerEmulated(Value total, function_ref<Value(Value)> kTileOf);
  /// Emulation: one consumer warp after another arrives on the empty
  /// barrier of `slot`; the last ends its phase.
  void releaseEmulated(Value slot);
  /// GPU: lane 0 of each consumer warp arrives on the empty barrier of
  /// `slot`, when `when` holds.
  void release(Value slot, Value when);
  /// Emulation state, per slot: full barrier's pending transaction bytes,
  /// completed phases and arrivals, empty barrier's arrivals and completed
  /// phases.
  enum StateField {
    kTx,
    kFullPhases,
    kFullArrivals,
    kEmptyArrivals,
    kEmptyPhases,
    kStateFields
  };
  Value stateAt(Value slot, StateField f) {
    return ix.add(ix.mul(slot, kStateFields), int64_t(f));
  }
  /// The arrivals that, with its bytes, end a full barrier's phase: the
  /// arming thread's, or each gathering producer thread's.
  int64_t fullArrivals() const { return gatherers() ? producerThreads() : 1; }
  Value loadState(Value slot, StateField f) {
    return rw.create<memref::LoadOp>(loc, tmaState,
                                     ValueRange{stateAt(slot, f)});
  }
  void addState(Value slot, StateField f, int64_t delta) {
    Value v = rw.create<arith::AddIOp>(
        loc, loadState(slot, f),
        rw.create<arith::ConstantOp>(loc, rw.getI64IntegerAttr(delta)));
    rw.create<memref::StoreOp>(loc, v, tmaState, ValueRange{stateAt(slot, f)});
  }
  /// Emulation: traps (the GPU would hang) unless `ok` holds.
  void trapUnless(Value ok);
  /// Emulation: traps unless the CTA waited for every fill it issued (a
  /// copy still in flight when the CTA exits writes freed shared memory).
  void checkAllFillsConsumed(Value kCount) {
    Value fills = rw.create<arith::ConstantOp>(loc, rw.getI64IntegerAttr(0));
    for (int64_t slot = 0; slot < cfg.stages; ++slot)
      fills = rw.create<arith::AddIOp>(loc, fills,
                                       loadState(ix.c(slot), kFullPhases));
    trapUnless(rw.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, fills,
        rw.create<arith::IndexCastUIOp>(loc, rw.getI64Type(), kCount)));
  }
  Value producerNext; // emulation: the producer's next k-tile (memref<1>)
  /// Emulation of one TMA box copy into `tile` of `slot`, as the Tensor
  /// Memory Accelerator defines it: element (r, c) of the box from operand
  /// element (row0 + r, k0 + c), zero past `rows` or K, at byte r * 128 +
  /// c * size of the tile with the 128-byte swizzle (bits 4-6 ^= 7-9).
  void tmaCopyEmulated(bool isA, const TmaOperand &op, Value slot,
                       Value row0, Value k0);
  /// Emulated im2col copy of k-tile `k0` for the tile at row `row0`: what
  /// the copy engine does with the map's box and the coordinates
  /// im2colCoordinates gives (the GPU form's instruction operands).
  void im2colCopyEmulated(const TmaOperand &op, Value slot, Value row0,
                          Value k0);
  /// Emulated TMA: stores `v` where a copy lands element `c` of box row `r`
  /// in the tile at `base`: rows of rowBytes() with that swizzle, bits 4-6
  /// ^= 7-9 (128), bits 4-5 ^= 7-8 (64), bit 4 ^= bit 7 (32).
  void storeBoxElement(Value base, Value r, Value c, Value v) {
    int64_t eb = g.elementBytes();
    Value byte = ix.add(ix.mul(r, rowBytes()), ix.mul(c, eb));
    Value swizzled =
        ix.xori(byte, ix.mul(ix.rem(ix.div(byte, 128), rowBytes() / 16), 16));
    rw.create<memref::StoreOp>(loc, v, smem,
                               ValueRange{ix.add(base, ix.div(swizzled, eb))});
  }
  /// An im2col copy's operands for the tile at row `row0` and k-tile `k0`:
  /// {c, w, h, n}, the first pixel's window corner (innermost first), and
  /// {w, h}, the k-tile's kernel offsets.
  std::pair<SmallVector<Value>, SmallVector<Value>>
  im2colCoordinates(const TmaOperand &op, Value row0, Value k0);
  Value tmaState; // emulation: per slot, transaction bytes and phases done
  /// Emulation: src[at], or zero where `valid` is false (a zero-filled
  /// copy); the select is on the bits so that bf16 never needs a float
  /// select (the host has no bf16 arithmetic).
  Value loadOrZero(Value src, ValueRange at, Value valid) {
    Type bits = rw.getIntegerType(g.elementType.getIntOrFloatBitWidth());
    Value v = rw.createOrFold<arith::BitcastOp>(
        loc, bits, rw.create<memref::LoadOp>(loc, src, at));
    v = rw.create<arith::SelectOp>(
        loc, valid, v,
        rw.create<arith::ConstantOp>(loc, rw.getIntegerAttr(bits, 0)));
    return rw.createOrFold<arith::BitcastOp>(loc, g.elementType, v);
  }
  Value i32(Value index) {
    return rw.create<arith::IndexCastUIOp>(loc, rw.getI32Type(), index);
  }
  SmallVector<Value> compute(Value slot, ValueRange acc);
  Value mmaInlinePtx(Value a, Value b, Value c);
  /// TF32: an f32 fragment (vector<Nx1xf32>) rounded to TF32 by
  /// cvt.rna.tf32.f32, as b32 registers (vector<Nx1xi32>).
  Value roundToTf32(Value frag);
  void computeEmulated(Value slot);
  /// acc + a * b in the accumulator type, as the tensor cores compute it.
  Value mulAdd(Value acc, Value a, Value b);

  /// sm_90a: the k-tile in `slot` through wgmma.mma_async, the operands
  /// read from shared memory by descriptors; returns `acc` in flight (the
  /// k-tile before it is complete).
  SmallVector<Value> computeWgmma(Value slot, ValueRange acc);
  void computeWgmmaEmulated(Value slot);
  /// The byte address (in shared memory) of the k-step `kk` column of an
  /// operand tile from row `row0` on.
  Value wgmmaTileAddress(Value slot, const SmemTile &tile, Value row0,
                         int64_t kk);
  /// The wgmma matrix descriptor of a K-major operand with 128-byte
  /// swizzling starting at byte address `addr`.
  Value wgmmaDescriptor(Value addr);
  /// Emulation: the smem element that `desc` gives to (row, k byte).
  Value wgmmaElement(Value desc, Value row, Value kByte);
  /// `text` as inline PTX with side effects through which the accumulators
  /// pass: what comes after uses its results, so the compiler keeps it
  /// ordered with the wgmma ops that produce and consume them. The
  /// accumulator registers are $0 .. $n-1 (read and written), `inputs`
  /// (with `inputConstraints`, e.g. ",l,l") follow as $n, ...
  SmallVector<Value> accumulatorAsm(StringRef text, ValueRange acc,
                                    ValueRange inputs = {},
                                    StringRef inputConstraints = "");
  /// One wgmma.mma_async m64 x BN x 32 bytes of k into the n8 fragments
  /// `acc` of an m64 block.
  SmallVector<Value> wgmmaInlinePtx(Value descA, Value descB, ValueRange acc);
  Value smemAddr; // byte address of smem[0] (0 in the emulation)

  void epilogue(ValueRange acc);
  /// The epilogue of the accumulator element at `coords` (accIndices): the
  /// (buffer, value) stores it makes, in order, not yet emitted.
  /// `preloaded` holds values of input buffers at this element, read
  /// already (epiloguePair's 2-element loads).
  SmallVector<std::pair<Value, Value>>
  epilogueValues(ArrayRef<Value> coords, Value value,
                 const DenseMap<Value, Value> *preloaded = nullptr);
  void epilogueElement(Value row, Value col, Value value,
                       ArrayRef<Value> staged);
  /// Elements (row, col) and (row, col + 1), col even, of one thread: the
  /// epilogue of both, each buffer whose innermost index is the column
  /// stored as one 2-element vector (one 4-byte store of two f16 instead of
  /// two 2-byte ones).
  void epiloguePair(Value row, Value col, Value v0, Value v1,
                    ArrayRef<Value> staged, ArrayRef<Value> stagedIn = {});
  /// With `stage-epilogue`: the outputs the epilogue writes to the stage
  /// memory, freed after the k-loop, instead of to global memory from the
  /// fragments (a warp's store there covers 8 rows of 16 bytes, 8 of i8),
  /// then copies out as whole 16-byte chunks of rows. Those of the
  /// operands' element type whose innermost dim is N (the accumulator's
  /// rows), or, where there are none, those of one other type of 1 or 2
  /// bytes (stagedType), all fitting in the stages; none for split-K and
  /// persistent tiles (the stages are not free) or N not a multiple of a
  /// chunk.
  SmallVector<Value> stagedOutputs();
  /// With `stage-epilogue-inputs`: the inputs of the pair epilogue it
  /// loads as a pair at the element itself (epiloguePair's preloads) that
  /// have the operands' element type and N innermost, fitting in the stages
  /// after `staged` (whose regions come first). Same exclusions as
  /// stagedOutputs.
  SmallVector<Value> stagedInputs(ArrayRef<Value> staged);
  /// Whether the pair epilogue may read input `operand` of `e` as one
  /// 2-element load at the element itself: used, identity map and layout,
  /// static shape with an even innermost extent, not written by the
  /// epilogue.
  bool pairLoadable(linalg::GenericOp e, OpOperand *operand);
  /// Elements of a staged row: BN plus one chunk, so that the 8 rows of a
  /// warp's fragment stores fall in different banks.
  int64_t stagedRow() const { return cfg.bn + stagedChunkElems(); }
  /// Elements of stagedType in 16 bytes.
  int64_t stagedChunkElems() const {
    return 16 * 8 / int64_t(stagedType.getIntOrFloatBitWidth());
  }
  /// Element offset of tile element (row, col) of staged output `i`.
  Value stagedAt(int64_t i, Value row, Value col) {
    int64_t region = cfg.bm * stagedRow();
    int64_t base = !prefetched.empty() && i >= prefetchFirstRegion
                       ? prefetchBase + (i - prefetchFirstRegion) * region
                       : i * region;
    return ix.add(ix.add(ix.mul(row, stagedRow()), col), base);
  }
  /// Orders the consumer threads' accesses to the stage memory (GPU):
  /// their last copies and MMAs are done before it is rewritten, and the
  /// staged outputs are written before they are copied out.
  void consumersBarrier();
  /// After the k-loop (GPU): the stages are free once every consumer is
  /// past its last MMA and, with cp.async, its last copies have landed; the
  /// consumers alone synchronize when a producer warp runs on.
  void freeStages() {
    if (!emulate && !allTma())
      sideEffectAsm("cp.async.wait_all;");
    consumersBarrier();
  }
  /// The buffers the epilogue writes: the accumulator's, then each
  /// elementwise op's.
  SmallVector<Value> epilogueOutputs() {
    SmallVector<Value> outputs{g.acc};
    for (linalg::GenericOp e : g.epilogue)
      outputs.push_back(e.getDpsInits()[0]);
    return outputs;
  }
  /// Copies the staged outputs' tile rows to global memory, 16 bytes a
  /// thread at a time.
  void copyStaged(ArrayRef<Value> staged);
  /// Copies the tile rows of `inputs` from global memory to their staged
  /// regions (after `firstRegion` staged outputs), 16 bytes a thread at a
  /// time.
  void copyInputs(ArrayRef<Value> inputs, int64_t firstRegion);
  /// 16-byte chunks of stagedType in a BM x BN tile.
  int64_t tileChunks() const { return cfg.bm * cfg.bn / stagedChunkElems(); }
  /// The tile (row, col) of chunk `q` (row-major).
  std::pair<Value, Value> chunkOrigin(Value q) {
    int64_t ce = stagedChunkElems(), perRow = cfg.bn / ce;
    return {ix.div(q, perRow), ix.mul(ix.rem(q, perRow), ce)};
  }
  /// For each staged row copy, `body(i, row, col, gr, gc)`: region `i`'s
  /// 16-byte chunk at tile (row, col), global (gr, gc), within M and N.
  void forEachStagedChunk(
      int64_t count,
      function_ref<void(int64_t, Value, Value, Value, Value)> body);
  /// The 1-D view of an identity-layout buffer (made once, after its
  /// definition).
  Value flatView(Value buffer);
  DenseMap<Value, Value> flatViews;
  /// After the k-loop: the epilogue, or what split-K does instead.
  void finish(ValueRange acc);
  bool clusterSplit() const { return split && split->cluster; }
  /// Cluster split-K on the GPU: every rank stores its fragments to its
  /// shared memory and returns, for the fragments it owns (ownsFragment),
  /// the sum of every rank's, in rank order; the others as they were.
  SmallVector<Value> clusterReduce(ValueRange acc);
  /// Cluster split-K: whether this rank (splitIndex) adds up and writes the
  /// fragment of accumulator register `reg`. Ranks own blocks of
  /// consecutive fragments (columns), so they share the reduction through
  /// distributed shared memory and the epilogue.
  Value ownsFragment(Value reg);
  /// Emulated cluster split-K: every rank's accumulators, [rank][thread x
  /// register], summed into accMem in rank order after the last rank.
  Value clusterAcc;
  /// The accumulator's indices of GEMM element (row, col).
  SmallVector<Value> accIndices(Value row, Value col);
  /// The flat index, a multiple of `w`, of element (row, col) in `buffer`
  /// (identity layout, read or written at the element itself).
  Value accLinearIndex(Value buffer, Value row, Value col, int64_t w);
  /// Convolution: (n, oh, ow) of GEMM row `m`.
  SmallVector<Value> outputPixel(Value m) {
    const GemmKernel::Conv &cv = *g.conv;
    return {ix.div(m, cv.oh * cv.ow), ix.rem(ix.div(m, cv.ow), cv.oh),
            ix.rem(m, cv.ow)};
  }
  /// Convolution: (kh, kw, c) of GEMM column `k`.
  std::tuple<Value, Value, Value> windowPosition(Value k) {
    const GemmKernel::Conv &cv = *g.conv;
    Value pos = ix.div(k, cv.c);
    return {ix.div(pos, cv.kw), ix.rem(pos, cv.kw), ix.rem(k, cv.c)};
  }
  bool isKernelLocal(Value buffer);
  DenseMap<Value, bool> localCache;
};

/// Global indices of an operand at matrix position (r0, r1), batch dims from
/// the CTA's batch coordinates through the operand's indexing map.
SmallVector<Value> operandIndices(Idx &ix, AffineMap map,
                                  ArrayRef<Value> batch, Value r0, Value r1) {
  SmallVector<Value> idx;
  for (unsigned i = 0; i + 2 < map.getNumResults(); ++i) {
    auto d = dyn_cast<AffineDimExpr>(map.getResult(i));
    idx.push_back(d ? batch[d.getPosition()] : ix.c(0));
  }
  idx.push_back(r0);
  idx.push_back(r1);
  return idx;
}

SmallVector<Value> GemmBuilder::aIndices(Value r, Value c, Value *inside) {
  if (!g.conv)
    return operandIndices(ix, g.aMap, batch, r, c);
  // im2col: pixel r, window position and channel c.
  const GemmKernel::Conv &cv = *g.conv;
  SmallVector<Value> p = outputPixel(r);
  auto [ky, kx, ch] = windowPosition(c);
  Value y = ix.add(ix.mul(p[1], cv.sh), ix.mul(ky, cv.dh));
  Value x = ix.add(ix.mul(p[2], cv.sw), ix.mul(kx, cv.dw));
  if (cv.foldsPadding) {
    assert(inside && "a folded padding needs the load's predicate");
    // Padded coordinates back to the input's; above or left of it they
    // wrap around, so one unsigned compare per dim bounds both sides.
    y = ix.add(y, -cv.padTop);
    x = ix.add(x, -cv.padLeft);
    Value inY = ix.lt(y, ix.c(cv.inH));
    Value inX = ix.lt(x, ix.c(cv.inW));
    *inside = ix.andi(inY, inX);
    y = ix.minu(y, ix.c(cv.inH - 1));
    x = ix.minu(x, ix.c(cv.inW - 1));
  }
  return {p[0], y, x, ch};
}

SmallVector<Value> GemmBuilder::bIndices(Value r, Value c) {
  if (!g.conv)
    return operandIndices(ix, g.bMap, batch, r, c);
  auto [ky, kx, ch] = windowPosition(c);
  return {r, ky, kx, ch};
}

void GemmBuilder::loadStage(Value kt, Value slot, Value issue) {
  if (!allTma()) {
    // A folded non-zero padding (an int8 input's zero point) for the im2col
    // chunks outside the input.
    Value padding = paddingValue();
    SmallVector<Value> tokens;
    forEachThread([&](Value tid) {
      copyChunks(kt, slot, tid, cfg.threads(), padding, tokens);
    });
    if (!emulate) {
      asyncToken = rw.create<nvgpu::DeviceAsyncCreateGroupOp>(
          loc, nvgpu::DeviceAsyncTokenType::get(rw.getContext()), tokens);
    }
  }
  if (anyTma())
    issueTma(kt, slot, issue);
}

void GemmBuilder::copyChunks(Value kt, Value slot, Value tid, int64_t threads,
                             Value padding, SmallVector<Value> &tokens) {
  Value stageBase = ix.mul(slot, cfg.stageElems());
  Value k0 = ix.mul(kt, cfg.bk);
  int64_t ce = g.chunkElems();
  // `valid`: the chunk lies within the operand's rows and k (else
  // zeros); `inside` (a folded padding's chunks only): within the
  // unpadded input (else the padding).
  auto copyChunk = [&](Value src, ArrayRef<Value> srcIdx, Value dstElem,
                       Value valid, Value inside) {
    Value load = inside ? ix.andi(valid, inside) : valid;
    // Outside the input but within the operand: the padding.
    Value pad;
    if (padding && inside)
      pad = ix.andi(valid, ix.xori(inside, rw.create<arith::ConstantOp>(
                                               loc, rw.getBoolAttr(true))));
    if (!emulate && !pad) {
      Value count = ix.select(load, ix.c(ce), ix.c(0));
      auto copy = rw.create<nvgpu::DeviceAsyncCopyOp>(
          loc, nvgpu::DeviceAsyncTokenType::get(rw.getContext()), smem,
          ValueRange{dstElem}, src, srcIdx, rw.getIndexAttr(ce), count,
          rw.getUnitAttr());
      tokens.push_back(copy.getAsyncToken());
      return;
    }
    if (!emulate) {
      // cp.async can only zero-fill: a chunk it does not copy gets the
      // padding (or zeros) by a plain store, which the wait's
      // fence.proxy.async and barrier order like the copies (the
      // group commits the copy whatever its token); a gathering
      // producer's by its arrival on the full mbarrier (a release) and
      // the consumers' fence after their wait.
      auto ifOp = rw.create<scf::IfOp>(loc, load, /*withElse=*/true);
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      rw.create<nvgpu::DeviceAsyncCopyOp>(
          loc, nvgpu::DeviceAsyncTokenType::get(rw.getContext()), smem,
          ValueRange{dstElem}, src, srcIdx, rw.getIndexAttr(ce), Value(),
          rw.getUnitAttr());
      rw.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      Value zero =
          rw.create<arith::ConstantOp>(loc, rw.getZeroAttr(g.elementType));
      Value fill = rw.create<arith::SelectOp>(loc, pad, padding, zero);
      auto vecType = VectorType::get({ce}, g.elementType);
      rw.create<vector::StoreOp>(loc,
                                 rw.create<vector::SplatOp>(loc, vecType, fill),
                                 smem, ValueRange{dstElem});
      return;
    }
    // cp.async with src-size 0 writes zeros. The source address is
    // always in bounds (clamped).
    auto loop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(ce), ix.c(1));
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    Value e = loop.getInductionVar();
    SmallVector<Value> at(srcIdx);
    at.back() = ix.add(at.back(), e);
    Value v = loadOrZero(src, at, load);
    if (pad)
      v = rw.create<arith::SelectOp>(loc, pad, padding, v);
    rw.create<memref::StoreOp>(loc, v, smem, ValueRange{ix.add(dstElem, e)});
  };
  // Each operand tile is rows of 16-byte chunks along the operand's
  // contiguous (last) dim: A as BM rows of k, B [K, N] as BK rows of n,
  // B [N, K] as BN rows of k. Chunk i of the thread is tid + i *
  // threads. `indices` gives the operand's indices of matrix element
  // (row, col).
  auto copyTile =
      [&](Value src,
          function_ref<SmallVector<Value>(Value, Value, Value &)> indices,
          const SmemTile &tile, int64_t chunks, Value row0, int64_t rows,
          Value col0, int64_t cols) {
        for (int64_t i = 0; i < chunks; ++i) {
          Value chunk = ix.add(tid, i * threads);
          Value row = ix.div(chunk, tile.rowChunks);
          Value cc = ix.rem(chunk, tile.rowChunks);
          Value gr = ix.add(row0, row), gc = ix.add(col0, ix.mul(cc, ce));
          Value valid = ix.andi(ix.lt(gr, ix.c(rows)), ix.lt(gc, ix.c(cols)));
          // Out-of-range chunks read a valid address (and zero-fill).
          Value sr = ix.minu(gr, ix.c(rows - 1));
          Value sc = ix.minu(gc, ix.c(cols - ce));
          Value inside;
          SmallVector<Value> at = indices(sr, sc, inside);
          copyChunk(src, at, ix.add(stageBase, tile.element(ix, row, cc)),
                    valid, inside);
        }
      };
  auto aAt = [&](Value r, Value c, Value &inside) {
    return aIndices(r, c, &inside);
  };
  // A pointwise convolution's input is its [M, K] A as it is: element
  // r * K + c of the flat view, not an im2col position taken apart
  // from the row (64-bit divisions live through the k-loop).
  auto aFlatAt = [&](Value r, Value c, Value &) {
    return SmallVector<Value>{ix.add(ix.mul(r, g.k), c)};
  };
  auto aType = dyn_cast<MemRefType>(g.a.getType());
  bool flatA =
      g.conv && aType && isIdentityLayout(g.a) && isPointwiseConv(g, aType);
  // (Not the cached view: this is inside the k-loop, which the
  // epilogue's uses of a cached one would not be.)
  if (!tmaA && flatA)
    copyTile(dlc::flatView(rw, loc, g.a), aFlatAt, s.aTile,
             s.aChunks() / threads, tileRow0, g.m, k0, g.k);
  else if (!tmaA)
    copyTile(g.a, aAt, s.aTile, s.aChunks() / threads, tileRow0, g.m, k0, g.k);
  auto bAt = [&](Value r, Value c, Value &) { return bIndices(r, c); };
  if (tmaB)
    return;
  if (g.bTransposed)
    copyTile(g.b, bAt, s.bTile, s.bChunks() / threads, tileCol0, g.n, k0, g.k);
  else
    copyTile(g.b, bAt, s.bTile, s.bChunks() / threads, k0, g.k, tileCol0, g.n);
}

/// The warp's origin in the CTA tile. A wgmma warpgroup's m64 block puts
/// its warp w at rows 16 w .. 16 w + 15, all columns.
std::pair<Value, Value> warpOrigin(Idx &ix, const TileConfig &cfg, Value tid) {
  Value warp = ix.div(tid, 32);
  if (cfg.wgmma())
    return {ix.add(ix.mul(ix.div(warp, 4), cfg.bm / cfg.warpGroups),
                   ix.mul(ix.rem(warp, 4), 16)),
            ix.c(0)};
  Value wr = ix.mul(ix.div(warp, cfg.warpsN), cfg.bm / cfg.warpsM);
  Value wc = ix.mul(ix.rem(warp, cfg.warpsN), cfg.bn / cfg.warpsN);
  return {wr, wc};
}

SmallVector<Value> GemmBuilder::compute(Value slot, ValueRange acc) {
  Value stageBase = ix.mul(slot, cfg.stageElems());
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  Value lane = ix.rem(tid, 32);
  auto [wr, wc] = warpOrigin(ix, cfg, tid);
  auto fragType = VectorType::get({4, perReg()}, g.elementType);
  SmallVector<Value> next(acc.begin(), acc.end());
  for (int64_t kk = 0; kk < kSteps(); ++kk) {
    SmallVector<Value> aFrag, bFrag;
    for (int64_t mi = 0; mi < cfg.mTiles(); ++mi) {
      auto [row, chunk] = s.aLdmatrix(ix, wr, lane, mi, kk);
      Value at = ix.add(stageBase, s.aTile.element(ix, row, chunk));
      aFrag.push_back(rw.create<nvgpu::LdMatrixOp>(loc, fragType, smem,
                                                    ValueRange{at}, false, 4));
    }
    for (int64_t nj = 0; nj < cfg.nTiles() / 2; ++nj) {
      auto [row, chunk] = s.bLdmatrix(ix, wc, lane, nj, kk);
      Value at = ix.add(stageBase, s.bTile.element(ix, row, chunk));
      Value x4 = rw.create<nvgpu::LdMatrixOp>(loc, fragType, smem,
                                              ValueRange{at}, !g.bTransposed, 4);
      for (int64_t h = 0; h < 2; ++h)
        bFrag.push_back(rw.create<vector::ExtractStridedSliceOp>(
            loc, x4, ArrayRef<int64_t>{2 * h, 0},
            ArrayRef<int64_t>{2, perReg()}, ArrayRef<int64_t>{1, 1}));
    }
    if (g.isTf32()) {
      for (Value &f : aFrag)
        f = roundToTf32(f);
      for (Value &f : bFrag)
        f = roundToTf32(f);
    }
    for (int64_t mi = 0; mi < cfg.mTiles(); ++mi)
      for (int64_t ni = 0; ni < cfg.nTiles(); ++ni) {
        Value &c = next[mi * cfg.nTiles() + ni];
        c = g.elementType.isF16() && !g.isTf32()
                ? rw.create<nvgpu::MmaSyncOp>(loc, aFrag[mi], bFrag[ni], c,
                                              ArrayRef<int64_t>{16, 8, 16})
                : mmaInlinePtx(aFrag[mi], bFrag[ni], c);
      }
  }
  return next;
}

/// MLIR 19 cannot lower a bf16 mma.sync (nvgpu's lowering has no bf16
/// case, and NVVM's verifier wants f16 pairs where the intrinsic wants
/// i32), nor a u8 one (nvgpu takes signless i8 as s8). Those are written as
/// inline PTX: operand fragments as b32 registers, f32 or s32 accumulators.
Value GemmBuilder::mmaInlinePtx(Value a, Value b, Value c) {
  std::string shape = g.isTf32() ? "m16n8k8.row.col.f32.tf32.tf32.f32"
                                 : "m16n8k16.row.col.f32.bf16.bf16.f32";
  if (g.isInt())
    shape = std::string("m16n8k32.row.col.s32.") +
            (g.aUnsigned ? "u8." : "s8.") + (g.bUnsigned ? "u8" : "s8") +
            ".s32";
  return mmaSyncInlinePtx(rw, loc, shape, a, b, c);
}

Value GemmBuilder::roundToTf32(Value frag) {
  auto type = cast<VectorType>(frag.getType());
  Type i32 = rw.getI32Type();
  Value out = rw.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(type.clone(i32), rw.getI32IntegerAttr(0)));
  for (int64_t i = 0; i < type.getDimSize(0); ++i) {
    Value x = rw.create<vector::ExtractOp>(loc, frag, ArrayRef<int64_t>{i, 0});
    Value r = rw.create<LLVM::InlineAsmOp>(
                    loc, i32, ValueRange{x}, "cvt.rna.tf32.f32 $0, $1;",
                    "=r,f", /*has_side_effects=*/false,
                    /*is_align_stack=*/false,
                    LLVM::AsmDialectAttr::get(rw.getContext(),
                                              LLVM::AsmDialect::AD_ATT),
                    ArrayAttr())
                  ->getResult(0);
    out = rw.create<vector::InsertOp>(loc, r, out, ArrayRef<int64_t>{i, 0});
  }
  return out;
}

/// f32 `x` rounded to TF32 (10 mantissa bits) to nearest, ties away from
/// zero: what cvt.rna.tf32.f32 does to finite values.
Value emulateTf32(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value bits = b.create<arith::BitcastOp>(loc, i32, x);
  bits = b.create<arith::AddIOp>(
      loc, bits, b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(0x1000)));
  bits = b.create<arith::AndIOp>(
      loc, bits,
      b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(~0x1FFF)));
  return b.create<arith::BitcastOp>(loc, x.getType(), bits);
}

void GemmBuilder::computeEmulated(Value slot) {
  Value stageBase = ix.mul(slot, cfg.stageElems());
  int64_t mt = cfg.mTiles(), nt = cfg.nTiles();
  auto load = [&](Value mem, Value at) -> Value {
    return rw.create<memref::LoadOp>(loc, mem, ValueRange{at});
  };
  auto store = [&](Value v, Value mem, Value at) {
    rw.create<memref::StoreOp>(loc, v, mem, ValueRange{at});
  };
  for (int64_t kk = 0; kk < kSteps(); ++kk) {
    // ldmatrix: register j of lane l comes from the 8x8 (16-bit) matrix j
    // whose row addresses lanes 8j..8j+7 provide: bytes 4 (l % 4) .. + 3
    // of row l / 4, i.e. `er` elements.
    int64_t er = perReg();
    forEachThread([&](Value tid) {
      Value lane = ix.rem(tid, 32), quad = ix.rem(lane, 4);
      auto [wr, wc] = warpOrigin(ix, cfg, tid);
      for (int64_t mi = 0; mi < mt; ++mi)
        for (int64_t j = 0; j < 4; ++j) {
          Value src = ix.add(ix.div(lane, 4), 8 * j);
          auto [row, chunk] = s.aLdmatrix(ix, wr, src, mi, kk);
          Value at = ix.add(ix.add(stageBase, s.aTile.element(ix, row, chunk)),
                            ix.mul(quad, er));
          for (int64_t h = 0; h < er; ++h)
            store(load(smem, ix.add(at, h)), fragA,
                  ix.add(ix.mul(tid, mt * 4 * er), (mi * 4 + j) * er + h));
        }
      for (int64_t nj = 0; nj < nt / 2; ++nj)
        for (int64_t j = 0; j < 4; ++j)
          for (int64_t h = 0; h < er; ++h) {
            Value at;
            if (g.bTransposed) {
              Value src = ix.add(ix.div(lane, 4), 8 * j);
              auto [row, chunk] = s.bLdmatrix(ix, wc, src, nj, kk);
              at = ix.add(ix.add(stageBase, s.bTile.element(ix, row, chunk)),
                          ix.add(ix.mul(quad, er), h));
            } else {
              // .trans (16-bit only): element (2 (l % 4) + h, l / 4) of
              // matrix j.
              Value src = ix.add(ix.mul(quad, 2), 8 * j + h);
              auto [row, chunk] = s.bLdmatrix(ix, wc, src, nj, kk);
              at = ix.add(ix.add(stageBase, s.bTile.element(ix, row, chunk)),
                          ix.div(lane, 4));
            }
            int64_t tile = 2 * nj + j / 2, reg = j % 2;
            store(load(smem, at), fragB,
                  ix.add(ix.mul(tid, nt * 2 * er), (tile * 2 + reg) * er + h));
          }
    });
    // mma.sync m16n8k16 (f16/bf16, er = 2) and m16n8k32 (i8, er = 4), with
    // q = 4 er the k covered by one register column: A(r, k) is in lane
    // (r % 8) * 4 + (k % q) / er, register r / 8 + 2 (k / q), element
    // k % er; B(k, c) in lane c * 4 + (k % q) / er, register k / q.
    forEachThread([&](Value tid) {
      Value lane = ix.rem(tid, 32);
      Value warpBase = ix.mul(ix.div(tid, 32), 32);
      int64_t q = 4 * er;
      forEachAccumulator([&](Value mi, Value ni, Value r, Value reg, int64_t) {
            auto [row, col] = s.accElement(ix, lane, r);
            Value accAt = accSlot(tid, reg);
            auto loop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(2 * q),
                                              ix.c(1),
                                              ValueRange{load(accMem, accAt)});
            {
              OpBuilder::InsertionGuard guard(rw);
              rw.setInsertionPointToStart(loop.getBody());
              Value kq = loop.getInductionVar();
              Value half = ix.div(ix.rem(kq, q), er), odd = ix.rem(kq, er),
                    hi = ix.div(kq, q);
              Value aLane = ix.add(ix.mul(ix.rem(row, 8), 4), half);
              Value aElem = ix.add(
                  ix.mul(ix.add(ix.div(row, 8), ix.mul(hi, 2)), er), odd);
              Value bLane = ix.add(ix.mul(col, 4), half);
              Value bElem = ix.add(ix.mul(hi, er), odd);
              Value av = load(fragA, ix.add(ix.add(ix.mul(ix.add(warpBase, aLane),
                                                          mt * 4 * er),
                                                   ix.mul(mi, 4 * er)),
                                            aElem));
              Value bv = load(fragB, ix.add(ix.add(ix.mul(ix.add(warpBase, bLane),
                                                          nt * 2 * er),
                                                   ix.mul(ni, 2 * er)),
                                            bElem));
              Value sum = mulAdd(loop.getRegionIterArgs()[0], av, bv);
              rw.create<scf::YieldOp>(loc, sum);
            }
            store(loop.getResult(0), accMem, accAt);
          });
    });
  }
}

Value GemmBuilder::mulAdd(Value acc, Value a, Value b) {
  if (g.isInt()) {
    auto ext = [&](Value v, bool isUnsigned) -> Value {
      if (isUnsigned)
        return rw.create<arith::ExtUIOp>(loc, g.accType(), v);
      return rw.create<arith::ExtSIOp>(loc, g.accType(), v);
    };
    return rw.create<arith::AddIOp>(
        loc, acc,
        rw.create<arith::MulIOp>(loc, ext(a, g.aUnsigned),
                                 ext(b, g.bUnsigned)));
  }
  if (g.isTf32())
    return rw.create<arith::AddFOp>(
        loc, acc,
        rw.create<arith::MulFOp>(loc, emulateTf32(rw, loc, a),
                                 emulateTf32(rw, loc, b)));
  return rw.create<arith::AddFOp>(
      loc, acc,
      rw.create<arith::MulFOp>(loc, rw.create<arith::ExtFOp>(loc, f32(), a),
                               rw.create<arith::ExtFOp>(loc, f32(), b)));
}

//===----------------------------------------------------------------------===//
// wgmma (sm_90a)
//===----------------------------------------------------------------------===//
//
// An operand tile in shared memory is what wgmma calls K-major with 128-byte
// swizzling: rows of 128 bytes of k, 8-row groups 1024 bytes apart, the
// 16-byte chunk c of row r stored at chunk c ^ (r % 8) -- the SmemTile
// layout with 8 chunks a row, as cp.async writes it. The swizzle applies to
// address bits, so the stages start 1024-byte aligned. One wgmma takes 32
// bytes of k (k16 f16/bf16, k32 i8); its descriptor's start address moves
// 32 bytes per k-step inside the swizzled rows.

Value GemmBuilder::wgmmaTileAddress(Value slot, const SmemTile &tile,
                                    Value row0, int64_t kk) {
  int64_t eb = g.elementBytes();
  Value elem = ix.add(ix.add(ix.mul(slot, cfg.stageElems()), tile.base),
                      ix.mul(row0, tile.rowChunks * tile.chunkElems));
  return ix.add(ix.add(smemAddr, ix.mul(elem, eb)), kk * 32);
}

Value GemmBuilder::wgmmaDescriptor(Value addr) {
  Type i64 = rw.getI64Type();
  auto c = [&](int64_t v) {
    return rw.create<arith::ConstantOp>(loc, rw.getI64IntegerAttr(v));
  };
  Value a = rw.create<arith::IndexCastUIOp>(loc, i64, addr);
  // Bits 0-13: address >> 4; 16-29: leading byte offset >> 4 (unused when
  // the k extent lies within the swizzled row; 1 by convention); 32-45:
  // stride byte offset >> 4 (between 8-row groups: 8 rows of 128, 64 or 32
  // bytes); 62-63: swizzle mode, 1 = 128 bytes, 2 = 64, 3 = 32.
  Value start = rw.create<arith::ShRUIOp>(
      loc, rw.create<arith::AndIOp>(loc, a, c(0x3FFFF)), c(4));
  int64_t mode = rowBytes() == 128 ? 1 : rowBytes() == 64 ? 2 : 3;
  int64_t fixed =
      (int64_t(1) << 16) | (int64_t(8 * rowBytes() >> 4) << 32) | (mode << 62);
  return rw.create<arith::OrIOp>(loc, start, c(fixed));
}

Value GemmBuilder::wgmmaElement(Value desc, Value row, Value kByte) {
  auto c = [&](int64_t v) {
    return rw.create<arith::ConstantOp>(loc, rw.getI64IntegerAttr(v));
  };
  // A 14-bit field of `desc` at `shift`, times 16.
  auto field = [&](int64_t shift) -> Value {
    Value f = rw.create<arith::AndIOp>(
        loc, rw.create<arith::ShRUIOp>(loc, desc, c(shift)), c(0x3FFF));
    return rw.create<arith::IndexCastUIOp>(
        loc, rw.getIndexType(), rw.create<arith::ShLIOp>(loc, f, c(4)));
  };
  Value stride = field(32);
  // The swizzle mode (bits 62-63): 1, rows of 128 bytes, address bits 4-6
  // ^= bits 7-9; 2, rows of 64 bytes, bits 4-5 ^= bits 7-8; 3, rows of 32
  // bytes, bit 4 ^= bit 7. Row bytes 256 >> mode, swizzle period 16 >> mode.
  Value mode = rw.create<arith::IndexCastUIOp>(
      loc, rw.getIndexType(), rw.create<arith::ShRUIOp>(loc, desc, c(62)));
  Value rowBytes = rw.create<arith::ShRUIOp>(loc, ix.c(256), mode);
  Value period = rw.create<arith::ShRUIOp>(loc, ix.c(16), mode);
  Value addr = ix.add(
      ix.add(field(0), rw.create<arith::MulIOp>(loc, ix.div(row, 8), stride)),
      ix.add(rw.create<arith::MulIOp>(loc, ix.rem(row, 8), rowBytes), kByte));
  Value swizzled = ix.xori(
      addr,
      ix.mul(rw.create<arith::RemUIOp>(loc, ix.div(addr, 128), period), 16));
  return ix.div(swizzled, g.elementBytes());
}

SmallVector<Value> GemmBuilder::accumulatorAsm(StringRef text,
                                               ValueRange acc,
                                               ValueRange inputs,
                                               StringRef inputConstraints) {
  SmallVector<Value> operands(inputs.begin(), inputs.end());
  for (Value frag : acc)
    for (int64_t r = 0; r < 4; ++r)
      operands.push_back(rw.create<vector::ExtractOp>(
          loc, frag, ArrayRef<int64_t>{r / 2, r % 2}));
  int64_t n = acc.size() * 4;
  std::string constraints;
  const char *kind = g.isInt() ? "=r" : "=f";
  for (int64_t i = 0; i < n; ++i)
    constraints += std::string(i ? "," : "") + kind;
  constraints += inputConstraints.str();
  for (int64_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Type> types(n, g.accType());
  Value out = rw.create<LLVM::InlineAsmOp>(
                    loc, LLVM::LLVMStructType::getLiteral(rw.getContext(), types),
                    operands, text, constraints, /*has_side_effects=*/true,
                    /*is_align_stack=*/false,
                    LLVM::AsmDialectAttr::get(rw.getContext(),
                                              LLVM::AsmDialect::AD_ATT),
                    ArrayAttr())
                  ->getResult(0);
  SmallVector<Value> result;
  for (size_t f = 0; f < acc.size(); ++f) {
    Value frag = acc[f];
    for (int64_t r = 0; r < 4; ++r)
      frag = rw.create<vector::InsertOp>(
          loc, rw.create<LLVM::ExtractValueOp>(loc, out, f * 4 + r), frag,
          ArrayRef<int64_t>{r / 2, r % 2});
    result.push_back(frag);
  }
  return result;
}

SmallVector<Value> GemmBuilder::wgmmaInlinePtx(Value descA, Value descB,
                                               ValueRange acc) {
  // D register 4 j + r of a lane: row lane / 4 + 8 (r / 2) of the warp's 16,
  // column 8 j + 2 (lane % 4) + r % 2 -- the n8 fragments in order.
  std::string shape = "m64n" + std::to_string(cfg.bn);
  if (g.isInt())
    shape += std::string("k32.s32.") + (g.aUnsigned ? "u8." : "s8.") +
             (g.bUnsigned ? "u8" : "s8");
  else if (g.elementType.isF16())
    shape += "k16.f32.f16.f16";
  else
    shape += "k16.f32.bf16.bf16";
  int64_t n = acc.size() * 4;
  std::string regs;
  for (int64_t i = 0; i < n; ++i)
    regs += (i ? ", $" : "$") + std::to_string(i);
  // scale-d is a predicate: always accumulate (the registers start at 0).
  // Float forms also take scale-a, scale-b and the transposes (none: both
  // operands K-major).
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned." +
                     shape + " {" + regs + "}, $" + std::to_string(n) +
                     ", $" + std::to_string(n + 1) + ", p" +
                     (g.isInt() ? "" : ", 1, 1, 0, 0") + ";\n}";
  return accumulatorAsm(text, acc, {descA, descB}, ",l,l");
}

SmallVector<Value> GemmBuilder::computeWgmma(Value slot, ValueRange acc) {
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  Value wgRow0 = ix.mul(ix.div(tid, 128), cfg.bm / cfg.warpGroups);
  int64_t nt = cfg.nTiles();
  // The accumulators were last written by the wgmma ops themselves; the
  // fence orders this k-tile's after them.
  SmallVector<Value> next = accumulatorAsm("wgmma.fence.sync.aligned;", acc);
  for (int64_t kk = 0; kk < kSteps(); ++kk) {
    Value descB =
        wgmmaDescriptor(wgmmaTileAddress(slot, s.bTile, ix.c(0), kk));
    for (int64_t mi = 0; mi < cfg.mTiles(); ++mi) {
      Value descA = wgmmaDescriptor(
          wgmmaTileAddress(slot, s.aTile, ix.add(wgRow0, mi * 64), kk));
      MutableArrayRef<Value> block(next.data() + mi * nt, nt);
      SmallVector<Value> d = wgmmaInlinePtx(descA, descB, block);
      llvm::copy(d, block.begin());
    }
  }
  next = accumulatorAsm("wgmma.commit_group.sync.aligned;", next);
  // The k-tile before this one is done: its slot may be refilled.
  return accumulatorAsm("wgmma.wait_group.sync.aligned 1;", next);
}

void GemmBuilder::computeWgmmaEmulated(Value slot) {
  int64_t eb = g.elementBytes();
  for (int64_t kk = 0; kk < kSteps(); ++kk) {
    forEachThread([&](Value tid) {
      Value lane = ix.rem(tid, 32), warp = ix.div(tid, 32);
      Value wgRow0 = ix.mul(ix.div(warp, 4), cfg.bm / cfg.warpGroups);
      Value descB =
          wgmmaDescriptor(wgmmaTileAddress(slot, s.bTile, ix.c(0), kk));
      forEachAccumulator([&](Value mi, Value ni, Value r, Value reg, int64_t) {
        Value descA = wgmmaDescriptor(wgmmaTileAddress(
            slot, s.aTile, ix.add(wgRow0, ix.mul(mi, 64)), kk));
        auto [row, col] = s.accElement(ix, lane, r);
        row = ix.add(row, ix.mul(ix.rem(warp, 4), 16));
        col = ix.add(col, ix.mul(ni, 8));
        Value accAt = accSlot(tid, reg);
        auto loop = rw.create<scf::ForOp>(
            loc, ix.c(0), ix.c(32 / eb), ix.c(1),
            ValueRange{rw.create<memref::LoadOp>(loc, accMem,
                                                 ValueRange{accAt})});
        OpBuilder::InsertionGuard guard(rw);
        rw.setInsertionPointToStart(loop.getBody());
        Value kByte = ix.mul(loop.getInductionVar(), eb);
        Value av = rw.create<memref::LoadOp>(
            loc, smem, ValueRange{wgmmaElement(descA, row, kByte)});
        Value bv = rw.create<memref::LoadOp>(
            loc, smem, ValueRange{wgmmaElement(descB, col, kByte)});
        rw.create<scf::YieldOp>(
            loc, mulAdd(loop.getRegionIterArgs()[0], av, bv));
        rw.setInsertionPointAfter(loop);
        rw.create<memref::StoreOp>(loc, loop.getResult(0), accMem,
                                   ValueRange{accAt});
      });
    });
  }
}

//===----------------------------------------------------------------------===//
// TMA (sm_90a)
//===----------------------------------------------------------------------===//
//
// A k-tile's box of an operand is BK elements (128 bytes) of k by BM or BN
// rows. With the 128-byte swizzle TMA stores box row r at byte r * 128 of
// the tile and its 16-byte chunk c at chunk c ^ (r % 8) (on address bits,
// from a 1024-byte aligned base): the SmemTile layout that cp.async writes
// and wgmma's descriptors read.

int64_t GemmBuilder::tmaStageBytes() const {
  return (tmaA ? boxBytes(*tmaA) : 0) + (tmaB ? boxBytes(*tmaB) : 0);
}

Value GemmBuilder::barrierAddress(Value slot, bool empty) {
  // The mbarriers (8 bytes each) follow the stages: full, then empty.
  return ix.add(ix.add(smemAddr, stagesBytes() + (empty ? cfg.stages * 8 : 0)),
                ix.mul(slot, 8));
}

/// The tensor map's address, from the argument it arrives in.
static Value mapPointer(OpBuilder &b, Location loc, const TmaOperand &op) {
  return b.create<arith::IndexCastUIOp>(
      loc, b.getI64Type(),
      b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, op.map));
}

void GemmBuilder::trapUnless(Value ok) {
  Value bad = rw.create<arith::XOrIOp>(
      loc, ok, rw.create<arith::ConstantOp>(loc, rw.getBoolAttr(true)));
  auto ifOp = rw.create<scf::IfOp>(loc, bad, false);
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  rw.create<LLVM::Trap>(loc);
}

void GemmBuilder::initBarriers() {
  if (emulate) {
    tmaState = rw.create<memref::AllocaOp>(
        loc, MemRefType::get({cfg.stages * kStateFields}, rw.getI64Type()));
    Value zero = rw.create<arith::ConstantOp>(loc, rw.getI64IntegerAttr(0));
    buildLoop(rw, loc, cfg.stages * kStateFields, [&](Value i) {
      rw.create<memref::StoreOp>(loc, zero, tmaState, ValueRange{i});
    });
    producerNext = rw.create<memref::AllocaOp>(
        loc, MemRefType::get({1}, rw.getIndexType()));
    rw.create<memref::StoreOp>(loc, ix.c(0), producerNext, ValueRange{ix.c(0)});
    return;
  }
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  auto first = rw.create<scf::IfOp>(
      loc,
      rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid, ix.c(0)),
      false);
  {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(first.thenBlock()->getTerminator());
    // A full barrier's phase ends with one arrival (the thread that arms
    // the transaction; with gathering producers, one from each producer
    // thread) and the bytes; an empty one's with an arrival from each
    // consumer warp.
    for (int64_t slot = 0; slot < cfg.stages; ++slot) {
      sideEffectAsm("mbarrier.init.shared.b64 [$0], " +
                        std::to_string(fullArrivals()) + ";",
                    "r", {i32(barrierAddress(ix.c(slot)))});
      if (specialized())
        sideEffectAsm("mbarrier.init.shared.b64 [$0], " +
                          std::to_string(cfg.threads() / 32) + ";",
                      "r", {i32(barrierAddress(ix.c(slot), true))});
    }
    // The copies complete transactions through the async proxy.
    sideEffectAsm("fence.mbarrier_init.release.cluster;");
  }
  // The runtime wrote the maps with a host copy (the generic proxy); TMA
  // reads them through the tensormap proxy. Whichever thread issues the
  // copies acquires them.
  Value issuer = ix.c(specialized() ? cfg.threads() : 0);
  auto acquire = rw.create<scf::IfOp>(
      loc, rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid, issuer),
      false);
  {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(acquire.thenBlock()->getTerminator());
    for (const std::optional<TmaOperand> &op : {tmaA, tmaB})
      if (op)
        sideEffectAsm("fence.proxy.tensormap::generic.acquire.gpu [$0], 128;",
                      "l", {mapPointer(rw, loc, *op)});
  }
  barrier();
}

void GemmBuilder::issueTma(Value kt, Value slot, Value issue) {
  Value cond = issue;
  if (!emulate)
    cond =
        ix.andi(issue, rw.create<arith::CmpIOp>(
                           loc, arith::CmpIPredicate::eq,
                           rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x),
                           ix.c(0)));
  auto ifOp = rw.create<scf::IfOp>(loc, cond, false);
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  armAndCopy(kt, slot);
}

void GemmBuilder::armAndCopy(Value kt, Value slot) {
  Value k0 = ix.mul(kt, cfg.bk);
  int64_t eb = g.elementBytes();
  OpBuilder::InsertionGuard outer(rw);
  if (gatherers()) {
    // Each producer thread gathers its share of A, has the barrier track
    // those copies (cp.async.mbarrier.arrive: one pending arrival more until
    // they land) and arrives; the first arms B's bytes with its arrival and
    // issues B's copy. The arrivals release the padding's plain stores.
    Value padding = paddingValue();
    SmallVector<Value> tokens;
    int64_t threads = producerThreads();
    if (emulate) {
      buildLoop(rw, loc, threads, [&](Value p) {
        copyChunks(kt, slot, p, threads, padding, tokens);
        addState(slot, kFullArrivals, 1);
      });
    } else {
      Value p = rw.create<arith::SubIOp>(
          loc, rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x),
          ix.c(cfg.threads()));
      copyChunks(kt, slot, p, threads, padding, tokens);
      Value bar = i32(barrierAddress(slot));
      sideEffectAsm("cp.async.mbarrier.arrive.shared::cta.b64 [$0];", "r",
                    {bar});
      auto first = rw.create<scf::IfOp>(
          loc,
          rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, p, ix.c(0)),
          /*withElseRegion=*/true);
      rw.setInsertionPoint(first.elseBlock()->getTerminator());
      arrive(bar);
      rw.setInsertionPoint(first.thenBlock()->getTerminator());
    }
  }
  if (emulate) {
    // The full barrier's transaction count: armed with the stage's bytes,
    // each copy completes its box's; the phase ends once the count is zero
    // and every arrival it was initialized for came (the arming thread's
    // here, the gatherers' above): with fewer the GPU's wait would hang,
    // and waitForTma traps.
    addState(slot, kTx, tmaStageBytes());
    if (!gatherers())
      addState(slot, kFullArrivals, 1);
    if (tmaA) {
      tmaCopyEmulated(true, *tmaA, slot, tileRow0, k0);
      addState(slot, kTx, -boxBytes(*tmaA));
    }
    if (tmaB) {
      tmaCopyEmulated(false, *tmaB, slot, tileCol0, k0);
      addState(slot, kTx, -boxBytes(*tmaB));
    }
    auto i64 = [&](int64_t v) {
      return rw.create<arith::ConstantOp>(loc, rw.getI64IntegerAttr(v));
    };
    auto done = rw.create<scf::IfOp>(
        loc,
        ix.andi(rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                         loadState(slot, kTx), i64(0)),
                rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                         loadState(slot, kFullArrivals),
                                         i64(fullArrivals()))),
        false);
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(done.thenBlock()->getTerminator());
    addState(slot, kFullArrivals, -fullArrivals());
    addState(slot, kFullPhases, 1);
    return;
  }
  Value bar = i32(barrierAddress(slot));
  sideEffectAsm("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r",
                {bar, rw.create<arith::ConstantOp>(
                          loc, rw.getI32IntegerAttr(tmaStageBytes()))});
  auto copy = [&](const TmaOperand &op, const SmemTile &tile,
                  SmallVector<Value> coords, ArrayRef<Value> offsets = {}) {
    Value dst = i32(
        ix.add(smemAddr,
               ix.mul(ix.add(ix.mul(slot, cfg.stageElems()), tile.base), eb)));
    size_t rank = coords.size();
    std::string text = "cp.async.bulk.tensor." + std::to_string(rank) + "d" +
                       ".shared::cluster.global." +
                       (offsets.empty() ? "tile" : "im2col") +
                       ".mbarrier::complete_tx::bytes [$0], [$1, {";
    std::string constraints = "r,l,r";
    SmallVector<Value> operands{dst, mapPointer(rw, loc, op), bar};
    for (size_t i = 0; i < rank; ++i) {
      text += (i ? ", $" : "$") + std::to_string(3 + i);
      constraints += ",r";
      operands.push_back(i32(coords[i]));
    }
    text += "}], [$2]";
    // im2col: the kernel offsets, 16-bit, innermost first.
    for (size_t i = 0; i < offsets.size(); ++i) {
      text += (i ? ", $" : ", {$") + std::to_string(3 + rank + i);
      constraints += ",h";
      operands.push_back(
          rw.create<arith::TruncIOp>(loc, rw.getI16Type(), i32(offsets[i])));
    }
    text += offsets.empty() ? ";" : "};";
    sideEffectAsm(text, constraints, operands);
  };
  // Coordinates innermost first: k, then the row, then batch indices.
  auto innermostFirst = [](SmallVector<Value> v) {
    std::reverse(v.begin(), v.end());
    return v;
  };
  if (tmaA && tmaA->im2col) {
    auto [coords, offsets] = im2colCoordinates(*tmaA, tileRow0, k0);
    copy(*tmaA, s.aTile, coords, offsets);
  } else if (tmaA)
    copy(*tmaA, s.aTile,
         g.conv
             ? SmallVector<Value>{k0, tileRow0}
             : innermostFirst(operandIndices(ix, g.aMap, batch, tileRow0, k0)));
  if (tmaB)
    copy(*tmaB, s.bTile,
         g.conv
             ? SmallVector<Value>{k0, tileCol0}
             : innermostFirst(operandIndices(ix, g.bMap, batch, tileCol0, k0)));
}

void GemmBuilder::waitParity(Value bar, Value parity) {
  sideEffectAsm("{\n.reg .pred p;\nLAB_WAIT:\n"
                "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
                "@!p bra LAB_WAIT;\n}",
                "r,r", {i32(bar), i32(parity)});
}

void GemmBuilder::waitForTma(Value j, Value slot) {
  Value fill = ix.div(j, cfg.stages);
  if (emulate) {
    // The GPU's wait for this fill's parity returns once the fill's phase
    // has ended and before the next one could: exactly fill + 1 phases;
    // anything else would hang there or pass on a stale fill.
    trapUnless(rw.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, loadState(slot, kFullPhases),
        rw.create<arith::IndexCastUIOp>(loc, rw.getI64Type(),
                                        ix.add(fill, 1))));
    return;
  }
  waitParity(barrierAddress(slot), ix.rem(fill, 2));
}

void GemmBuilder::runProducerEmulated(Value total,
                                      function_ref<Value(Value)> kTileOf) {
  // while (t < kCount && (t < stages || the slot's fill t / stages - 1 was
  // released)) issue(t++). The producer's parity wait for that release
  // passes exactly when fill - 1 empty phases ended before it; more would
  // alias the parity.
  OpBuilder::InsertionGuard guard(rw);
  Type i1 = rw.getI1Type(), index = rw.getIndexType();
  auto loop = rw.create<scf::WhileOp>(loc, TypeRange{index, i1}, ValueRange{});
  rw.setInsertionPointToStart(rw.createBlock(&loop.getBefore()));
  Value t = rw.create<memref::LoadOp>(loc, producerNext, ValueRange{ix.c(0)});
  Value slot = ix.rem(t, cfg.stages);
  Value phases = loadState(slot, kEmptyPhases);
  Value fill =
      rw.create<arith::IndexCastUIOp>(loc, rw.getI64Type(), ix.div(t, cfg.stages));
  Value first = ix.lt(t, ix.c(cfg.stages));
  auto released = [&](arith::CmpIPredicate p) -> Value {
    return rw.create<arith::OrIOp>(
        loc, first, rw.create<arith::CmpIOp>(loc, p, phases, fill));
  };
  Value go = ix.andi(ix.lt(t, total), released(arith::CmpIPredicate::sge));
  // For a refill: exactly `fill` releases.
  Value exact = released(arith::CmpIPredicate::eq);
  rw.create<scf::ConditionOp>(loc, go, ValueRange{t, exact});
  Block *after = rw.createBlock(&loop.getAfter(), {}, {index, i1}, {loc, loc});
  rw.setInsertionPointToStart(after);
  t = after->getArgument(0);
  trapUnless(after->getArgument(1));
  armAndCopy(kTileOf(t), ix.rem(t, cfg.stages));
  rw.create<memref::StoreOp>(loc, ix.add(t, 1), producerNext,
                             ValueRange{ix.c(0)});
  rw.create<scf::YieldOp>(loc, ValueRange{});
}

void GemmBuilder::releaseEmulated(Value slot) {
  int64_t consumerWarps = cfg.threads() / 32;
  buildLoop(rw, loc, consumerWarps, [&](Value) {
    addState(slot, kEmptyArrivals, 1);
    auto done = rw.create<scf::IfOp>(
        loc,
        rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                 loadState(slot, kEmptyArrivals),
                                 rw.create<arith::ConstantOp>(
                                     loc, rw.getI64IntegerAttr(consumerWarps))),
        false);
    OpBuilder::InsertionGuard inner(rw);
    rw.setInsertionPoint(done.thenBlock()->getTerminator());
    addState(slot, kEmptyArrivals, -consumerWarps);
    addState(slot, kEmptyPhases, 1);
  });
}

void GemmBuilder::release(Value slot, Value when) {
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  Value lane0 = rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                         ix.rem(tid, 32), ix.c(0));
  auto ifOp = rw.create<scf::IfOp>(loc, ix.andi(when, lane0), false);
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  arrive(i32(barrierAddress(slot, true)));
}

SmallVector<Value> GemmBuilder::consumeStep(Value q, Value notFirst,
                                            ValueRange acc) {
  Value slot = ix.rem(q, cfg.stages);
  waitForTma(q, slot);
  // The producers' cp.async copies wrote through the generic proxy; wgmma
  // reads through the async one.
  if (gatherers())
    sideEffectAsm("fence.proxy.async.shared::cta;");
  SmallVector<Value> results = computeWgmma(slot, acc);
  release(ix.rem(rw.create<arith::SubIOp>(loc, q, ix.c(1)), cfg.stages),
          notFirst);
  return results;
}

void GemmBuilder::consumeStepEmulated(Value q, Value notFirst) {
  Value slot = ix.rem(q, cfg.stages);
  waitForTma(q, slot);
  computeWgmmaEmulated(slot);
  // Each consumer warp releases the slot of k-tile q - 1.
  OpBuilder::InsertionGuard guard(rw);
  auto ifOp = rw.create<scf::IfOp>(loc, notFirst, false);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  releaseEmulated(
      ix.rem(rw.create<arith::SubIOp>(loc, q, ix.c(1)), cfg.stages));
}

void GemmBuilder::produceStep(Value t, Value kt) {
  Value slot = ix.rem(t, cfg.stages), fill = ix.div(t, cfg.stages);
  auto refill =
      rw.create<scf::IfOp>(loc, ix.lt(ix.c(cfg.stages - 1), t), false);
  {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(refill.thenBlock()->getTerminator());
    // The consumers' release of the slot's previous fill (fill - 1).
    waitParity(barrierAddress(slot, true), ix.rem(ix.add(fill, 1), 2));
  }
  armAndCopy(kt, slot);
}

scf::IfOp GemmBuilder::specializedRoles(Value tid) {
  return rw.create<scf::IfOp>(loc, ix.lt(tid, ix.c(cfg.threads())),
                              /*withElseRegion=*/true);
}

void GemmBuilder::growConsumers() {
  if (auto split = registerSplit())
    sideEffectAsm("setmaxnreg.inc.sync.aligned.u32 " +
                  std::to_string(split->second) + ";");
}

void GemmBuilder::enterProducer(scf::IfOp roles, Value tid) {
  rw.setInsertionPoint(roles.elseBlock()->getTerminator());
  if (auto split = registerSplit())
    sideEffectAsm("setmaxnreg.dec.sync.aligned.u32 " +
                  std::to_string(split->first) + ";");
  // Gathering producers all copy.
  if (gatherers())
    return;
  auto one = rw.create<scf::IfOp>(
      loc,
      rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid,
                               ix.c(cfg.threads())),
      false);
  rw.setInsertionPoint(one.thenBlock()->getTerminator());
}

void GemmBuilder::buildSpecialized(Value kBegin, Value kCount, ValueRange acc) {
  if (emulate) {
    auto loop = rw.create<scf::ForOp>(loc, ix.c(0), kCount, ix.c(1));
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPoint(loop.getBody()->getTerminator());
      Value j = loop.getInductionVar();
      runProducerEmulated(kCount, [&](Value t) { return ix.add(kBegin, t); });
      consumeStepEmulated(j, ix.lt(ix.c(0), j));
    }
    checkAllFillsConsumed(kCount);
    finish({});
    return;
  }
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  scf::IfOp roles = specializedRoles(tid);
  {
    // Consumers: wait for the fill, multiply, release the k-tile before.
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(roles.thenBlock()->getTerminator());
    growConsumers();
    auto loop = rw.create<scf::ForOp>(loc, ix.c(0), kCount, ix.c(1), acc);
    // With iter_args the builder added no yield.
    rw.setInsertionPointToStart(loop.getBody());
    Value j = loop.getInductionVar();
    rw.create<scf::YieldOp>(
        loc, consumeStep(j, ix.lt(ix.c(0), j), loop.getRegionIterArgs()));
    rw.setInsertionPointAfter(loop);
    SmallVector<Value> done(loop.getResults());
    finish(accumulatorAsm("wgmma.wait_group.sync.aligned 0;", done));
  }
  {
    // The producer: one thread of the warp after the consumers (or every
    // gathering producer thread).
    OpBuilder::InsertionGuard guard(rw);
    {
      OpBuilder::InsertionGuard inner(rw);
      enterProducer(roles, tid);
      auto loop = rw.create<scf::ForOp>(loc, ix.c(0), kCount, ix.c(1));
      rw.setInsertionPoint(loop.getBody()->getTerminator());
      Value t = loop.getInductionVar();
      produceStep(t, ix.add(kBegin, t));
    }
    if (clusterSplit()) {
      // The producer warps take part in the consumers' two cluster
      // barriers rather than relying on their exit to release them (their
      // lanes may be diverged here: no .aligned).
      rw.setInsertionPoint(roles.elseBlock()->getTerminator());
      for (int i = 0; i < 2; ++i)
        sideEffectAsm("barrier.cluster.arrive.release;\n"
                      "barrier.cluster.wait.acquire;");
    }
  }
}

void GemmBuilder::buildPersistent(ValueRange acc) {
  int64_t ctas = persistentCtas, kTiles = s.kTiles;
  // The CTA's tiles: cta, cta + P, ... below the grid's tile count.
  Value tiles = ix.div(
      rw.create<arith::SubIOp>(loc, ix.c(tileCount() + ctas - 1), cta), ctas);
  Value fills = ix.mul(tiles, kTiles);
  auto tileOf = [&](Value i) { return ix.add(cta, ix.mul(i, ctas)); };
  // The slot of the tile's last k-tile, released before its epilogue.
  auto lastSlot = [&](Value base) {
    return ix.rem(ix.add(base, kTiles - 1), cfg.stages);
  };
  if (emulate) {
    Value zero = rw.create<arith::ConstantOp>(loc, rw.getZeroAttr(g.accType()));
    auto tileLoop = rw.create<scf::ForOp>(loc, ix.c(0), tiles, ix.c(1));
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(tileLoop.getBody()->getTerminator());
    Value i = tileLoop.getInductionVar();
    setTile(tileOf(i));
    Value row0 = tileRow0, col0 = tileCol0;
    SmallVector<Value> batch0(batch);
    forEachThread([&](Value tid) {
      forEachAccumulator([&](Value, Value, Value, Value reg, int64_t) {
        rw.create<memref::StoreOp>(loc, zero, accMem,
                                   ValueRange{accSlot(tid, reg)});
      });
    });
    // k-tiles counted over the CTA's tiles: q = i * kTiles + j.
    Value base = ix.mul(i, kTiles);
    auto loop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(kTiles), ix.c(1));
    {
      OpBuilder::InsertionGuard inner(rw);
      rw.setInsertionPoint(loop.getBody()->getTerminator());
      Value j = loop.getInductionVar();
      // The producer runs ahead into the CTA's next tiles.
      runProducerEmulated(fills, [&](Value t) {
        setTile(tileOf(ix.div(t, kTiles)));
        return ix.rem(t, kTiles);
      });
      tileRow0 = row0;
      tileCol0 = col0;
      batch = batch0;
      consumeStepEmulated(ix.add(base, j), ix.lt(ix.c(0), j));
    }
    releaseEmulated(lastSlot(base));
    epilogue({});
    rw.setInsertionPointAfter(tileLoop);
    checkAllFillsConsumed(fills);
    return;
  }
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  scf::IfOp roles = specializedRoles(tid);
  {
    // Consumers: per tile, the k-loop, the release of its last slot (the
    // producer refills it with the next tile's k-tile during the
    // epilogue), the epilogue.
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(roles.thenBlock()->getTerminator());
    growConsumers();
    auto tileLoop = rw.create<scf::ForOp>(loc, ix.c(0), tiles, ix.c(1));
    rw.setInsertionPoint(tileLoop.getBody()->getTerminator());
    Value i = tileLoop.getInductionVar();
    setTile(tileOf(i));
    Value base = ix.mul(i, kTiles);
    auto loop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(kTiles), ix.c(1), acc);
    {
      OpBuilder::InsertionGuard inner(rw);
      // With iter_args the builder added no yield.
      rw.setInsertionPointToStart(loop.getBody());
      Value j = loop.getInductionVar();
      rw.create<scf::YieldOp>(loc,
                              consumeStep(ix.add(base, j), ix.lt(ix.c(0), j),
                                          loop.getRegionIterArgs()));
    }
    SmallVector<Value> done =
        accumulatorAsm("wgmma.wait_group.sync.aligned 0;",
                       SmallVector<Value>(loop.getResults()));
    release(lastSlot(base),
            rw.create<arith::ConstantOp>(loc, rw.getBoolAttr(true)));
    epilogue(done);
  }
  {
    // The producer: the CTA's k-tiles, tile after tile, each as soon as
    // the consumers released its slot's previous fill.
    OpBuilder::InsertionGuard guard(rw);
    enterProducer(roles, tid);
    auto tileLoop = rw.create<scf::ForOp>(loc, ix.c(0), tiles, ix.c(1));
    rw.setInsertionPoint(tileLoop.getBody()->getTerminator());
    Value i = tileLoop.getInductionVar();
    setTile(tileOf(i));
    auto loop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(kTiles), ix.c(1));
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    Value j = loop.getInductionVar();
    produceStep(ix.add(ix.mul(i, kTiles), j), j);
  }
}

void GemmBuilder::tmaCopyEmulated(bool isA, const TmaOperand &op, Value slot,
                                  Value row0, Value k0) {
  if (op.im2col)
    return im2colCopyEmulated(op, slot, row0, k0);
  const SmemTile &tile = isA ? s.aTile : s.bTile;
  int64_t rows = isA ? g.m : g.n;
  Value base = ix.add(ix.mul(slot, cfg.stageElems()), tile.base);
  buildLoop(rw, loc, op.boxRows, [&](Value r) {
    buildLoop(rw, loc, cfg.bk, [&](Value c) {
      Value gr = ix.add(row0, r), gc = ix.add(k0, c);
      Value valid = ix.andi(ix.lt(gr, ix.c(rows)), ix.lt(gc, ix.c(g.k)));
      Value sr = ix.minu(gr, ix.c(rows - 1)), sc = ix.minu(gc, ix.c(g.k - 1));
      storeBoxElement(base, r, c,
                      loadOrZero(isA ? g.a : g.b,
                                 isA ? aIndices(sr, sc) : bIndices(sr, sc),
                                 valid));
    });
  });
}

std::pair<SmallVector<Value>, SmallVector<Value>>
GemmBuilder::im2colCoordinates(const TmaOperand &op, Value row0, Value k0) {
  const GemmKernel::Conv &cv = *g.conv;
  SmallVector<Value> p = outputPixel(row0);
  auto [ky, kx, ch] = windowPosition(k0);
  Value w = ix.add(ix.mul(p[2], cv.sw), op.im2col->lowerW);
  Value h = ix.add(ix.mul(p[1], cv.sh), op.im2col->lowerH);
  return {{ch, w, h, p[0]}, {ix.mul(kx, cv.dw), ix.mul(ky, cv.dh)}};
}

void GemmBuilder::im2colCopyEmulated(const TmaOperand &op, Value slot,
                                     Value row0, Value k0) {
  const GemmKernel::Conv &cv = *g.conv;
  const TmaOperand::Im2col &box = *op.im2col;
  int64_t c = op.dims[0], inW = op.dims[1], inH = op.dims[2], n = op.dims[3];
  // Corners in the box: its extent over the traversal stride, rounded up.
  int64_t boxW = llvm::divideCeil(inW + box.upperW - box.lowerW, cv.sw);
  int64_t boxH = llvm::divideCeil(inH + box.upperH - box.lowerH, cv.sh);
  auto [coords, offsets] = im2colCoordinates(op, row0, k0);
  // The first pixel's place in the traversal, from which each next one
  // steps on: W within the box, then H, then the image.
  Value first =
      ix.add(ix.mul(ix.add(ix.mul(coords[3], boxH),
                           ix.div(ix.add(coords[2], -box.lowerH), cv.sh)),
                    boxW),
             ix.div(ix.add(coords[1], -box.lowerW), cv.sw));
  Value base = ix.add(ix.mul(slot, cfg.stageElems()), s.aTile.base);
  buildLoop(rw, loc, op.boxRows, [&](Value r) {
    Value t = ix.add(first, r);
    Value img = ix.div(t, boxW * boxH);
    Value y =
        ix.add(ix.add(ix.mul(ix.rem(ix.div(t, boxW), boxH), cv.sh), box.lowerH),
               offsets[1]);
    Value x =
        ix.add(ix.add(ix.mul(ix.rem(t, boxW), cv.sw), box.lowerW), offsets[0]);
    // Signed compares: corners left of or above the input are negative.
    auto within = [&](Value v, int64_t end) {
      return ix.andi(
          rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, v, ix.c(0)),
          rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, v,
                                   ix.c(end)));
    };
    Value pixelIn =
        ix.andi(ix.andi(within(x, inW), within(y, inH)), ix.lt(img, ix.c(n)));
    auto clamp = [&](Value v, int64_t end) {
      return rw.create<arith::MinSIOp>(
          loc, rw.create<arith::MaxSIOp>(loc, v, ix.c(0)), ix.c(end - 1));
    };
    buildLoop(rw, loc, cfg.bk, [&](Value e) {
      Value ce = ix.add(coords[0], e);
      Value valid = ix.andi(pixelIn, ix.lt(ce, ix.c(c)));
      storeBoxElement(base, r, e,
                      loadOrZero(g.a,
                                 {ix.minu(img, ix.c(n - 1)), clamp(y, inH),
                                  clamp(x, inW), ix.minu(ce, ix.c(c - 1))},
                                 valid));
    });
  });
}

bool GemmBuilder::isKernelLocal(Value buffer) {
  auto it = localCache.find(buffer);
  if (it != localCache.end())
    return it->second;
  auto arg = dyn_cast<BlockArgument>(rootBuffer(buffer));
  bool local = arg && isCallLocalArgument(g.calls, arg.getArgNumber());
  localCache[buffer] = local;
  return local;
}

SmallVector<Value> GemmBuilder::accIndices(Value row, Value col) {
  SmallVector<Value> coords(batch);
  if (g.conv)
    coords = outputPixel(row);
  else
    coords.push_back(row);
  coords.push_back(col);
  return coords;
}

Value GemmBuilder::accLinearIndex(Value buffer, Value row, Value col,
                                  int64_t w) {
  ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
  // A conv's [N, OH, OW, C] output is its GEMM's [M, C] row-major: row * C
  // + col, without taking the pixel apart and putting it back together
  // (64-bit divisions whose registers the staged epilogues spilled).
  if (g.conv && shape == cast<ShapedType>(g.acc.getType()).getShape())
    return ix.mul(ix.div(ix.add(ix.mul(row, shape.back()), col), w), w);
  return alignedLinearIndex(ix, shape, accIndices(row, col), w);
}

SmallVector<std::pair<Value, Value>>
GemmBuilder::epilogueValues(ArrayRef<Value> coords, Value value,
                            const DenseMap<Value, Value> *preloaded) {
  SmallVector<std::pair<Value, Value>> stores;
  auto loadAt = [&](Value buffer, AffineMap map) -> Value {
    SmallVector<Value> at;
    for (AffineExpr e : map.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        at.push_back(coords[d.getPosition()]);
      else
        at.push_back(ix.c(cast<AffineConstantExpr>(e).getValue()));
    }
    return rw.create<memref::LoadOp>(loc, buffer, at);
  };
  DenseMap<Value, Value> forwarded; // buffer root -> this element's value
  // One elementwise op's body at this element.
  auto apply = [&](linalg::GenericOp e) -> Value {
    Block &body = e.getRegion().front();
    IRMapping map;
    for (OpOperand &operand : e->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      auto it = forwarded.find(rootBuffer(operand.get()));
      if (it != forwarded.end()) {
        map.map(arg, it->second);
        continue;
      }
      if (preloaded)
        if (auto pre = preloaded->find(operand.get()); pre != preloaded->end()) {
          map.map(arg, pre->second);
          continue;
        }
      map.map(arg, loadAt(operand.get(), e.getMatchingIndexingMap(&operand)));
    }
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        map.map(index.getResult(), coords[index.getDim()]);
        continue;
      }
      rw.clone(op, map);
    }
    return map.lookupOrDefault(
        cast<linalg::YieldOp>(body.getTerminator()).getValues()[0]);
  };

  for (Value scale : g.scales)
    value = rw.create<arith::MulFOp>(loc, value, scale);
  Value init;
  if (!g.init) {
    init = rw.create<memref::LoadOp>(loc, g.acc, coords);
  } else if (auto fill = dyn_cast<linalg::FillOp>(g.init.getOperation())) {
    Value v = fill.getInputs()[0];
    if (!matchPattern(v, m_Zero()) && !matchPattern(v, m_PosZeroFloat()))
      init = v;
  } else {
    init = apply(cast<linalg::GenericOp>(g.init.getOperation()));
  }
  if (init && g.isInt())
    value = rw.create<arith::AddIOp>(loc, init, value);
  else if (init)
    value = rw.create<arith::AddFOp>(loc, init, value);
  forwarded[rootBuffer(g.acc)] = value;
  if (!isKernelLocal(g.acc))
    stores.push_back({g.acc, value});
  for (linalg::GenericOp e : g.epilogue) {
    Value result = apply(e);
    Value out = e.getDpsInits()[0];
    forwarded[rootBuffer(out)] = result;
    if (!isKernelLocal(out))
      stores.push_back({out, result});
  }
  return stores;
}

void GemmBuilder::epilogueElement(Value row, Value col, Value value,
                                  ArrayRef<Value> staged) {
  SmallVector<Value> coords = accIndices(row, col);
  for (auto [buffer, v] : epilogueValues(coords, value)) {
    const Value *it = llvm::find(staged, buffer);
    if (it == staged.end()) {
      rw.create<memref::StoreOp>(loc, v, buffer, coords);
      continue;
    }
    rw.create<memref::StoreOp>(
        loc, v, stageMem,
        ValueRange{stagedAt(it - staged.begin(), ix.sub(row, tileRow0),
                            ix.sub(col, tileCol0))});
  }
}

bool GemmBuilder::pairLoadable(linalg::GenericOp e, OpOperand *operand) {
  Value buffer = operand->get();
  auto type = dyn_cast<MemRefType>(buffer.getType());
  AffineMap map = e.getMatchingIndexingMap(operand);
  Block &body = e.getRegion().front();
  return type && !body.getArgument(operand->getOperandNumber()).use_empty() &&
         map.isIdentity() &&
         map.getNumResults() == cast<ShapedType>(g.acc.getType()).getRank() &&
         isIdentityLayout(buffer) && type.hasStaticShape() &&
         type.getShape().back() % 2 == 0 &&
         !llvm::is_contained(llvm::map_to_vector(epilogueOutputs(), rootBuffer),
                             rootBuffer(buffer));
}

void GemmBuilder::epiloguePair(Value row, Value col, Value v0, Value v1,
                               ArrayRef<Value> staged,
                               ArrayRef<Value> stagedIn) {
  SmallVector<Value> at0 = accIndices(row, col),
                     at1 = accIndices(row, ix.add(col, 1));
  // Inputs read at the element itself (a residual) that the epilogue does
  // not write: one 2-element load for both, as the pair is stored (two
  // scalar loads LLVM joined only sometimes; bert's residuals).
  DenseMap<Value, Value> pre0, pre1;
  auto preload = [&](linalg::GenericOp e) {
    for (OpOperand *operand : e.getDpsInputOperands()) {
      Value buffer = operand->get();
      if (pre0.count(buffer) || !pairLoadable(e, operand))
        continue;
      auto type = cast<MemRefType>(buffer.getType());
      auto pairType = VectorType::get({2}, type.getElementType());
      Value pair;
      if (const Value *it = llvm::find(stagedIn, buffer); it != stagedIn.end())
        pair = rw.create<vector::LoadOp>(
            loc, pairType, smem,
            ValueRange{stagedAt(staged.size() + (it - stagedIn.begin()),
                                ix.sub(row, tileRow0), ix.sub(col, tileCol0))});
      else
        pair = rw.create<vector::LoadOp>(
            loc, pairType, flatView(buffer),
            ValueRange{accLinearIndex(buffer, row, col, 2)});
      pre0[buffer] = rw.create<vector::ExtractOp>(loc, pair, 0);
      pre1[buffer] = rw.create<vector::ExtractOp>(loc, pair, 1);
    }
  };
  if (auto init = dyn_cast_if_present<linalg::GenericOp>(
          g.init ? g.init.getOperation() : nullptr))
    preload(init);
  for (linalg::GenericOp e : g.epilogue)
    preload(e);
  // The second element's epilogue reads nothing the first one writes: the
  // epilogue reads written buffers only at its own element.
  SmallVector<std::pair<Value, Value>> first = epilogueValues(at0, v0, &pre0);
  SmallVector<std::pair<Value, Value>> second =
      epilogueValues(at1, v1, &pre1);
  for (auto [a, b] : llvm::zip_equal(first, second)) {
    if (const Value *it = llvm::find(staged, a.first); it != staged.end()) {
      // The tile's row in the stage memory (col even: the pair aligned).
      Value pair = rw.create<vector::FromElementsOp>(
          loc, VectorType::get({2}, a.second.getType()),
          ValueRange{a.second, b.second});
      rw.create<vector::StoreOp>(
          loc, pair, stageMem,
          ValueRange{stagedAt(it - staged.begin(), ix.sub(row, tileRow0),
                              ix.sub(col, tileCol0))});
      continue;
    }
    // A vector needs the two elements adjacent and the pair aligned: the
    // column is the buffer's innermost, unit-stride index (identity layout,
    // an even innermost extent, `col` even), and the buffer starts aligned
    // (arena, weight and I/O buffers are; a view would not have an
    // identity layout).
    auto type = cast<MemRefType>(a.first.getType());
    bool vectorize = at0.back() == col && isIdentityLayout(a.first) &&
                     type.hasStaticShape() && type.getShape().back() % 2 == 0;
    if (!vectorize) {
      rw.create<memref::StoreOp>(loc, a.second, a.first, at0);
      rw.create<memref::StoreOp>(loc, b.second, b.first, at1);
      continue;
    }
    auto vecType = VectorType::get({2}, a.second.getType());
    Value pair = rw.create<vector::FromElementsOp>(
        loc, vecType, ValueRange{a.second, b.second});
    // Through the buffer's 1-D view at 2 * (linear / 2) (the linear index
    // is even), so that LLVM proves the pair aligned (flatView), even where
    // it merged the epilogues of several programs behind phis.
    rw.create<vector::StoreOp>(
        loc, pair, flatView(a.first),
        ValueRange{accLinearIndex(a.first, row, col, 2)});
  }
}

Value GemmBuilder::flatView(Value buffer) {
  Value &flat = flatViews[buffer];
  if (!flat)
    flat = dlc::flatView(rw, loc, buffer);
  return flat;
}

SmallVector<Value> GemmBuilder::stagedOutputs() {
  stagedType = g.elementType;
  stageMem = smem;
  if (!stageEpilogue || split || persistent())
    return {};
  // Those of the operands' type; where there are none, those of the first
  // other type of 1 or 2 bytes, which a lane would store 2 or 4 bytes of a
  // 32-byte sector at a time (f32 pairs fill theirs: 8 bytes a lane, 4
  // lanes a sector).
  SmallVector<Value> same, other;
  Type otherType;
  auto consider = [&](Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    Type t = type.getElementType();
    if (isKernelLocal(buffer) || !isIdentityLayout(buffer) ||
        !type.hasStaticShape() || type.getShape().back() != g.n ||
        llvm::is_contained(same, buffer) || llvm::is_contained(other, buffer))
      return;
    if (t == g.elementType) {
      same.push_back(buffer);
      return;
    }
    unsigned bits = t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 0;
    if ((bits == 8 || bits == 16) && (!otherType || t == otherType)) {
      otherType = t;
      other.push_back(buffer);
    }
  };
  for (Value buffer : epilogueOutputs())
    consider(buffer);
  SmallVector<Value> outputs = same.empty() ? other : same;
  if (outputs.empty())
    return {};
  stagedType = same.empty() ? otherType : g.elementType;
  int64_t bytes = int64_t(outputs.size()) * cfg.bm * stagedRow() *
                  stagedType.getIntOrFloatBitWidth() / 8;
  if (g.n % stagedChunkElems() || bytes > stagesBytes()) {
    stagedType = g.elementType;
    return {};
  }
  if (stagedType != g.elementType) {
    int64_t elems = stagesBytes() * 8 / stagedType.getIntOrFloatBitWidth();
    stageMem = emulate
                   ? rw.create<memref::AllocaOp>(
                           loc, MemRefType::get({elems}, stagedType))
                         .getResult()
                   : sharedView(rw, loc, smemRaw, smemShift, elems, stagedType);
  }
  return outputs;
}

/// The registers a thread's accumulators and staged input pairs may take.
constexpr int64_t kStagedInputRegisters = 96;

SmallVector<Value> GemmBuilder::stagedInputs(ArrayRef<Value> staged) {
  // Their regions follow the staged outputs' rows of the operands' type.
  if (!stageInputs || split || persistent() || g.n % g.chunkElems() ||
      stagedType != g.elementType)
    return {};
  SmallVector<Value> inputs;
  auto consider = [&](linalg::GenericOp e) {
    for (OpOperand *operand : e.getDpsInputOperands()) {
      Value buffer = operand->get();
      if (llvm::is_contained(inputs, buffer) || !pairLoadable(e, operand))
        continue;
      auto type = cast<MemRefType>(buffer.getType());
      if (type.getElementType() == g.elementType &&
          type.getShape().back() == g.n)
        inputs.push_back(buffer);
    }
  };
  if (auto init = dyn_cast_if_present<linalg::GenericOp>(
          g.init ? g.init.getOperation() : nullptr))
    consider(init);
  for (linalg::GenericOp e : g.epilogue)
    consider(e);
  int64_t region = cfg.bm * stagedRow() * g.elementBytes();
  int64_t fit = stagesBytes() / region - int64_t(staged.size());
  // ptxas issues every fragment's shared-memory pair load ahead of the
  // arithmetic, a register each: beside 128 accumulator registers (128x256
  // tiles, resnet50 b32's layer2 conv3) that spilled 1 KB a thread.
  fit = std::min(fit, (kStagedInputRegisters - accRegs()) / (accRegs() / 2));
  if (fit < int64_t(inputs.size()))
    inputs.resize(std::max<int64_t>(fit, 0));
  return inputs;
}

void GemmBuilder::forEachStagedChunk(
    int64_t count,
    function_ref<void(int64_t, Value, Value, Value, Value)> body) {
  int64_t chunks = tileChunks(), threads = cfg.threads();
  forEachThread([&](Value tid) {
    for (int64_t i = 0; i < count; ++i) {
      auto copy = [&](Value q) {
        auto [row, col] = chunkOrigin(q);
        Value gr = ix.add(tileRow0, row), gc = ix.add(tileCol0, col);
        Value in = ix.andi(ix.lt(gr, ix.c(g.m)), ix.lt(gc, ix.c(g.n)));
        if (chunks % threads)
          in = ix.andi(in, ix.lt(q, ix.c(chunks)));
        auto ifOp = rw.create<scf::IfOp>(loc, in, false);
        OpBuilder::InsertionGuard guard(rw);
        rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        body(i, row, col, gr, gc);
      };
      int64_t perThread = llvm::divideCeil(chunks, threads);
      if (!emulate) {
        for (int64_t k = 0; k < perThread; ++k)
          copy(ix.add(tid, k * threads));
        continue;
      }
      buildLoop(rw, loc, perThread,
                [&](Value k) { copy(ix.add(tid, ix.mul(k, threads))); });
    }
  });
}

void GemmBuilder::prefetchInputs() {
  if (!prefetchStagedInputs || split || persistent() || g.n % 2)
    return;
  SmallVector<Value> outputs = stagedOutputs();
  SmallVector<Value> inputs = stagedInputs(outputs);
  if (inputs.empty())
    return;
  int64_t region = cfg.bm * stagedRow();
  int64_t base = std::max(usedSlots() * cfg.stageElems(),
                          int64_t(outputs.size()) * region);
  if (base + int64_t(inputs.size()) * region > cfg.stages * cfg.stageElems())
    return;
  prefetched = inputs;
  prefetchBase = base;
  prefetchFirstRegion = outputs.size();
  // The flat views (cached) here, where they dominate every later use.
  for (Value buffer : inputs)
    flatView(buffer);
  if (emulate) {
    copyInputs(inputs, prefetchFirstRegion);
    return;
  }
  // The consumer threads (not a producer) copy, as copyInputs would after
  // the k-loop, each chunk by cp.async; one group, committed before the
  // prologue's, so a cp.async k-loop's first wait covers it too.
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  auto consumers = rw.create<scf::IfOp>(loc, ix.lt(tid, ix.c(cfg.threads())),
                                        /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(consumers.thenBlock()->getTerminator());
  int64_t ce = g.chunkElems();
  forEachStagedChunk(
      inputs.size(), [&](int64_t i, Value row, Value col, Value gr, Value gc) {
        Value buffer = inputs[i];
        rw.create<nvgpu::DeviceAsyncCopyOp>(
            loc, nvgpu::DeviceAsyncTokenType::get(rw.getContext()), smem,
            ValueRange{stagedAt(prefetchFirstRegion + i, row, col)},
            flatView(buffer), ValueRange{accLinearIndex(buffer, gr, gc, ce)},
            rw.getIndexAttr(ce), Value(), rw.getUnitAttr());
      });
  // (The copies sit in the chunks' bounds checks: no token reaches here.)
  sideEffectAsm("cp.async.commit_group;");
}

void GemmBuilder::copyInputs(ArrayRef<Value> inputs, int64_t firstRegion) {
  int64_t ce = g.chunkElems();
  int64_t chunks = tileChunks(), threads = cfg.threads();
  auto vecType = VectorType::get({ce}, g.elementType);
  auto load = [&](Value buffer, Value gr, Value gc) -> Value {
    return rw.create<vector::LoadOp>(
        loc, vecType, flatView(buffer),
        ValueRange{accLinearIndex(buffer, gr, gc, ce)});
  };
  if (emulate || g.m % cfg.bm || g.n % cfg.bn || chunks % threads) {
    forEachStagedChunk(inputs.size(), [&](int64_t i, Value row, Value col,
                                          Value gr, Value gc) {
      rw.create<vector::StoreOp>(
          loc, load(inputs[i], gr, gc), smem,
          ValueRange{stagedAt(firstRegion + i, row, col)});
    });
    return;
  }
  // Whole tiles: every chunk in bounds, all of a thread's loads in flight
  // before the first store.
  forEachThread([&](Value tid) {
    SmallVector<std::pair<Value, Value>> copies; // (value, stage offset)
    for (auto [i, buffer] : llvm::enumerate(inputs)) {
      for (int64_t k = 0; k < chunks / threads; ++k) {
        auto [row, col] = chunkOrigin(ix.add(tid, k * threads));
        copies.push_back(
            {load(buffer, ix.add(tileRow0, row), ix.add(tileCol0, col)),
             stagedAt(firstRegion + i, row, col)});
      }
    }
    for (auto [v, at] : copies)
      rw.create<vector::StoreOp>(loc, v, smem, ValueRange{at});
  });
}

void GemmBuilder::consumersBarrier() {
  if (emulate)
    return;
  if (specialized())
    sideEffectAsm("bar.sync 1, " + std::to_string(cfg.threads()) + ";");
  else
    barrier();
}

void GemmBuilder::copyStaged(ArrayRef<Value> staged) {
  int64_t ce = stagedChunkElems();
  auto vecType = VectorType::get({ce}, stagedType);
  forEachStagedChunk(
      staged.size(), [&](int64_t i, Value row, Value col, Value gr, Value gc) {
        Value v = rw.create<vector::LoadOp>(loc, vecType, stageMem,
                                            ValueRange{stagedAt(i, row, col)});
        rw.create<vector::StoreOp>(
            loc, v, flatView(staged[i]),
            ValueRange{accLinearIndex(staged[i], gr, gc, ce)});
      });
}

void GemmBuilder::epilogue(ValueRange acc) {
  bool guarded = g.m % cfg.bm || g.n % cfg.bn;
  // Registers 2j and 2j + 1 of a fragment hold adjacent columns of a row;
  // with N even, both are in bounds when the first is.
  bool pairs = (!split || split->cluster) && g.n % 2 == 0;
  SmallVector<Value> staged = stagedOutputs();
  SmallVector<Value> stagedIn;
  if (pairs)
    stagedIn = stagedInputs(staged);
  // Prefetched inputs: each consumer waits for its own copies before the
  // barrier that frees the stages (a cp.async k-loop's freeStages waits
  // for all of them anyway).
  if (!prefetched.empty() && !emulate && allTma())
    sideEffectAsm("cp.async.wait_all;");
  if (!staged.empty() || !stagedIn.empty())
    freeStages();
  if (!stagedIn.empty() && prefetched.empty()) {
    copyInputs(stagedIn, staged.size());
    consumersBarrier();
  }
  forEachThread([&](Value tid) {
    Value lane = ix.rem(tid, 32);
    auto [wr, wc] = warpOrigin(ix, cfg, tid);
    auto accValue = [&](Value reg, int64_t regIndex) -> Value {
      if (emulate)
        return rw.create<memref::LoadOp>(loc, accMem,
                                         ValueRange{accSlot(tid, reg)});
      return rw.create<vector::ExtractOp>(
          loc, acc[regIndex / 4],
          ArrayRef<int64_t>{regIndex % 4 / 2, regIndex % 2});
    };
    forEachAccumulator(
        [&](Value mi, Value ni, Value r, Value reg, int64_t regIndex) {
          auto [row, col] = s.accElement(ix, lane, r);
          Value gr = ix.add(
              ix.add(tileRow0, ix.add(wr, ix.mul(mi, cfg.mStride()))), row);
          Value fragCol0 = ix.add(tileCol0, ix.add(wc, ix.mul(ni, 8)));
          // A pair's column is built as 2 * c: LLVM then sees it even (and
          // the vector store aligned) however deep the tile arithmetic is,
          // beyond the few levels its known-bits analysis looks through.
          Value gc =
              pairs ? ix.mul(ix.add(ix.div(fragCol0, 2), ix.rem(lane, 4)), 2)
                    : ix.add(fragCol0, col);
          OpBuilder::InsertionGuard guard(rw);
          Value in;
          if (guarded)
            in = ix.andi(ix.lt(gr, ix.c(g.m)), ix.lt(gc, ix.c(g.n)));
          if (clusterSplit())
            in = in ? ix.andi(in, ownsFragment(reg)) : ownsFragment(reg);
          if (in) {
            auto ifOp = rw.create<scf::IfOp>(loc, in, false);
            rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
          }
          Value v = accValue(reg, regIndex);
          if (pairs) {
            epiloguePair(gr, gc, v, accValue(ix.add(reg, 1), regIndex + 1),
                         staged, stagedIn);
          } else if (split && !split->cluster) {
            SmallVector<Value> at{splitIndex};
            llvm::append_range(at, accIndices(gr, gc));
            rw.create<memref::StoreOp>(loc, v, split->workspace, at);
          } else {
            epilogueElement(gr, gc, v, staged);
          }
        },
        pairs ? 2 : 1);
  });
  if (!staged.empty()) {
    consumersBarrier();
    copyStaged(staged);
  }
}

int64_t GemmBuilder::build() {
  Block &body = g.func.getBody().front();
  rw.setInsertionPoint(body.getTerminator());
  int64_t ctas = tileCount() * (split ? split->splits : 1);
  // A cluster's ranks are consecutive CTAs (the split innermost); emulated,
  // a work item is a whole cluster, running its ranks in turn.
  int64_t ranks = clusterSplit() ? split->splits : 1;
  int64_t workItems = persistent() ? persistentCtas
                      : emulate    ? ctas / ranks
                                   : ctas;
  auto par = rw.create<scf::ParallelOp>(loc, ValueRange{ix.c(0)},
                                        ValueRange{ix.c(workItems)},
                                        ValueRange{ix.c(1)});
  rw.setInsertionPoint(par.getBody()->getTerminator());
  cta = par.getInductionVars()[0];
  if (clusterSplit() && !emulate) {
    splitIndex = ix.rem(cta, ranks);
    cta = ix.div(cta, ranks);
  }
  if (!persistent()) {
    Value rest = setTile(cta);
    if (split && !split->cluster)
      splitIndex = rest;
  }

  Type e = g.elementType;
  int64_t smemElems = cfg.stages * cfg.stageElems();
  if (emulate) {
    auto scratch = [&](int64_t n, Type t) -> Value {
      return rw.create<memref::AllocaOp>(loc, MemRefType::get({n}, t));
    };
    smem = scratch(smemElems, e);
    smemAddr = ix.c(0);
    accMem = scratch(cfg.threads() * accRegs(), g.accType());
    if (clusterSplit())
      clusterAcc = scratch(ranks * cfg.threads() * accRegs(), g.accType());
    if (!cfg.wgmma()) {
      fragA = scratch(cfg.threads() * cfg.mTiles() * 4 * perReg(), e);
      fragB = scratch(cfg.threads() * cfg.nTiles() * 2 * perReg(), e);
    }
  } else {
    Value raw = dynamicSharedMemory(rw, loc);
    Value shift = ix.c(0);
    smemRaw = raw;
    if (cfg.wgmma()) {
      // The stages start at the next 1024-byte boundary (the 128-byte
      // swizzle repeats every 8 rows of 128 bytes, on address bits).
      Value addr =
          rw.create<memref::ExtractAlignedPointerAsIndexOp>(loc, raw);
      shift = ix.rem(rw.create<arith::SubIOp>(loc, ix.c(1024),
                                              ix.rem(addr, 1024)),
                     1024);
      smemAddr = ix.add(addr, shift);
    }
    smem = sharedView(rw, loc, raw, shift, smemElems, e);
    smemShift = shift;
  }
  scf::ForOp rankLoop;
  if (clusterSplit() && emulate) {
    rankLoop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(ranks), ix.c(1));
    rw.setInsertionPoint(rankLoop.getBody()->getTerminator());
    splitIndex = rankLoop.getInductionVar();
  }
  // The CTA's k-tiles: [kBegin, kBegin + kCount).
  Value kBegin = ix.c(0), kCount = ix.c(s.kTiles);
  if (split) {
    kBegin = ix.mul(splitIndex, split->tilesPerSplit);
    kCount = ix.minu(ix.c(split->tilesPerSplit),
                     rw.create<arith::SubIOp>(loc, ix.c(s.kTiles), kBegin));
  }
  buildCta(kBegin, kCount);
  if (rankLoop) {
    // The sums: rank 0's accumulators plus the other ranks', in rank order
    // (what each fragment's owner adds on the GPU).
    rw.setInsertionPointAfter(rankLoop);
    forEachThread([&](Value tid) {
      forEachAccumulator([&](Value, Value, Value, Value reg, int64_t) {
        Value slot = accSlot(tid, reg);
        Value sum = rw.create<memref::LoadOp>(loc, clusterAcc, slot);
        int64_t stride = cfg.threads() * accRegs();
        for (int64_t r = 1; r < ranks; ++r) {
          Value v = rw.create<memref::LoadOp>(
              loc, clusterAcc, ValueRange{ix.add(slot, r * stride)});
          sum = g.isInt() ? rw.create<arith::AddIOp>(loc, sum, v).getResult()
                          : rw.create<arith::AddFOp>(loc, sum, v).getResult();
        }
        rw.create<memref::StoreOp>(loc, sum, accMem, slot);
      });
    });
    // Each rank writes the fragments it owns.
    buildLoop(rw, loc, ranks, [&](Value rank) {
      splitIndex = rank;
      epilogue({});
    });
  }
  return workItems;
}

Value GemmBuilder::setTile(Value tile) {
  // Tile t of a batch entry: groups of cfg.groupM tile rows, column-major
  // within a group (row-major when groupM is 1).
  Value t = ix.rem(tile, s.tilesN * s.tilesM);
  Value inGroup = ix.rem(t, cfg.groupM * s.tilesN);
  tileCol0 = ix.mul(ix.div(inGroup, cfg.groupM), cfg.bn);
  tileRow0 = ix.mul(ix.add(ix.mul(ix.div(t, cfg.groupM * s.tilesN), cfg.groupM),
                           ix.rem(inGroup, cfg.groupM)),
                    cfg.bm);
  Value rest = ix.div(tile, s.tilesN * s.tilesM);
  batch.assign(g.batchShape.size(), Value());
  for (int64_t d = g.batchShape.size() - 1; d >= 0; --d) {
    batch[d] = ix.rem(rest, g.batchShape[d]);
    rest = ix.div(rest, g.batchShape[d]);
  }
  return rest;
}

void GemmBuilder::buildCta(Value kBegin, Value kCount) {
  // The accumulators start at zero; the init (fill or Gemm's C) is added
  // in the epilogue.
  Value zero = rw.create<arith::ConstantOp>(loc, rw.getZeroAttr(g.accType()));
  SmallVector<Value> acc;
  if (emulate) {
    forEachThread([&](Value tid) {
      forEachAccumulator([&](Value, Value, Value, Value reg, int64_t) {
        rw.create<memref::StoreOp>(loc, zero, accMem,
                                   ValueRange{accSlot(tid, reg)});
      });
    });
  } else {
    auto fragType = VectorType::get({2, 2}, g.accType());
    Value init = rw.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(fragType, rw.getZeroAttr(g.accType())));
    acc.assign(cfg.mTiles() * cfg.nTiles(), init);
  }

  if (anyTma())
    initBarriers();
  if (persistent()) {
    buildPersistent(acc);
    return;
  }
  prefetchInputs();
  if (specialized()) {
    buildSpecialized(kBegin, kCount, acc);
    return;
  }
  // Prologue: `lookahead` k-tiles in flight (those past K zero-fill;
  // TMA copies only the CTA's own).
  int64_t ahead = cfg.lookahead();
  for (int64_t st = 0; st < ahead; ++st)
    loadStage(ix.add(kBegin, st), ix.c(st), ix.lt(ix.c(st), kCount));
  Value firstToken = asyncToken;

  auto loop = rw.create<scf::ForOp>(loc, ix.c(0), kCount, ix.c(1),
                                    acc);
  {
    OpBuilder::InsertionGuard guard(rw);
    // Without iter_args (the emulation) the builder added the yield.
    if (!loop.getBody()->empty())
      rw.eraseOp(loop.getBody()->getTerminator());
    rw.setInsertionPointToStart(loop.getBody());
    // j counts the CTA's k-tiles (and picks the slots); kt is the k-tile.
    Value j = loop.getInductionVar();
    Value slot = ix.rem(j, cfg.stages);
    if (!emulate) {
      // Tile kt has landed once at most ahead - 1 newer groups are pending.
      if (!allTma())
        rw.create<nvgpu::DeviceAsyncWaitOp>(loc, firstToken,
                                            rw.getI32IntegerAttr(ahead - 1));
      if (anyTma())
        waitForTma(j, slot);
      // wgmma reads shared memory through the async proxy, cp.async wrote
      // it through the generic one.
      if (cfg.wgmma() && !allTma())
        sideEffectAsm("fence.proxy.async.shared::cta;");
      // The barrier also frees the slot read in iteration kt - 1 (mma.sync)
      // or kt - 2 (wgmma, which waits for kt - 1 after issuing kt).
      barrier();
    } else if (anyTma()) {
      waitForTma(j, slot);
    }
    Value nextTile = ix.add(ix.add(kBegin, j), ahead);
    Value nextSlot = ix.rem(ix.add(j, ahead), cfg.stages);
    Value issue = ix.lt(ix.add(j, ahead), kCount);
    SmallVector<Value> results;
    if (!cfg.wgmma())
      loadStage(nextTile, nextSlot, issue);
    if (emulate && cfg.wgmma())
      computeWgmmaEmulated(slot);
    else if (emulate)
      computeEmulated(slot);
    else if (cfg.wgmma())
      results = computeWgmma(slot, loop.getRegionIterArgs());
    else
      results = compute(slot, loop.getRegionIterArgs());
    if (cfg.wgmma())
      loadStage(nextTile, nextSlot, issue);
    rw.create<scf::YieldOp>(loc, results);
  }
  SmallVector<Value> results(loop.getResults());
  if (emulate && anyTma())
    checkAllFillsConsumed(kCount);
  if (cfg.wgmma() && !emulate)
    results = accumulatorAsm("wgmma.wait_group.sync.aligned 0;", results);
  finish(results);
}

void GemmBuilder::finish(ValueRange acc) {
  if (!clusterSplit()) {
    epilogue(acc);
    return;
  }
  if (emulate) {
    // Rank splitIndex's accumulators, kept for rank 0's sum.
    Value base = ix.mul(splitIndex, cfg.threads() * accRegs());
    forEachThread([&](Value tid) {
      forEachAccumulator([&](Value, Value, Value, Value reg, int64_t) {
        Value slot = accSlot(tid, reg);
        rw.create<memref::StoreOp>(loc,
                                   rw.create<memref::LoadOp>(loc, accMem, slot),
                                   clusterAcc, ValueRange{ix.add(base, slot)});
      });
    });
    return;
  }
  // Every rank adds up and writes its share of the fragments.
  epilogue(clusterReduce(acc));
}

Value GemmBuilder::ownsFragment(Value reg) {
  int64_t frags = accRegs() / 4;
  Value owner = ix.div(ix.mul(ix.div(reg, 4), split->splits), frags);
  return rw.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, owner,
                                        splitIndex);
}

SmallVector<Value> GemmBuilder::clusterReduce(ValueRange acc) {
  freeStages();
  // Fragment f of thread t: 16 bytes at (f x threads + t) x 16, so that a
  // warp's v4 accesses are contiguous.
  Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  auto fragAddr = [&](int64_t f) {
    return i32(
        ix.add(smemAddr, ix.mul(ix.add(ix.c(f * cfg.threads()), tid), 16)));
  };
  bool isInt = g.isInt();
  std::string v4 = isInt ? "b32" : "f32";
  {
    std::string text = "st.shared.v4." + v4 + " [$0], {$1, $2, $3, $4};";
    std::string constraints = isInt ? "r,r,r,r,r" : "r,f,f,f,f";
    for (auto [f, frag] : llvm::enumerate(acc)) {
      SmallVector<Value> operands{fragAddr(f)};
      for (int64_t r = 0; r < 4; ++r)
        operands.push_back(rw.create<vector::ExtractOp>(
            loc, frag, ArrayRef<int64_t>{r / 2, r % 2}));
      sideEffectAsm(text, constraints, operands);
    }
  }
  // Every rank has stored (release) before any reads (acquire).
  std::string clusterSync = "barrier.cluster.arrive.release.aligned;\n"
                            "barrier.cluster.wait.acquire.aligned;";
  sideEffectAsm(clusterSync);
  // Rank q's fragment at this thread's address, loaded (`add` false) or
  // added to the operand.
  auto remote = [&](Value into, int64_t f, int64_t q, bool add) {
    std::string text = "{\n.reg .b32 ra;\n.reg ." + v4 +
                       " t<4>;\nmapa.shared::cluster.u32 ra, $4, " +
                       std::to_string(q) + ";\nld.shared::cluster.v4." + v4 +
                       " {t0, t1, t2, t3}, [ra];\n";
    for (int64_t i = 0; i < 4; ++i)
      text += add ? (isInt ? "add.s32 $" : "add.f32 $") + std::to_string(i) +
                        ", $" + std::to_string(i) + ", t" + std::to_string(i) +
                        ";\n"
                  : "mov.b32 $" + std::to_string(i) + ", t" +
                        std::to_string(i) + ";\n";
    text += "}";
    return accumulatorAsm(text, {into}, {fragAddr(f)}, ",r")[0];
  };
  // The owner of fragment f (ownsFragment) adds the ranks' fragments in
  // rank order, its own among them, so the sum is the same whoever adds.
  SmallVector<Value> sums;
  for (auto [f, frag] : llvm::enumerate(acc)) {
    // As ownsFragment, on constants.
    int64_t owner = int64_t(f) * split->splits / (accRegs() / 4);
    auto mine = rw.create<scf::IfOp>(
        loc, TypeRange{frag.getType()},
        rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, splitIndex,
                                 ix.c(owner)),
        true);
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(mine.thenBlock());
      Value sum = owner == 0 ? frag : remote(frag, f, 0, false);
      for (int64_t q = 1; q < split->splits; ++q) {
        if (q != owner)
          sum = remote(sum, f, q, true);
        else if (isInt)
          sum = rw.create<arith::AddIOp>(loc, sum, frag);
        else
          sum = rw.create<arith::AddFOp>(loc, sum, frag);
      }
      rw.create<scf::YieldOp>(loc, sum);
      rw.setInsertionPointToStart(mine.elseBlock());
      rw.create<scf::YieldOp>(loc, frag);
    }
    sums.push_back(mine.getResult(0));
  }
  // Every rank is done reading before any exits (its shared memory).
  sideEffectAsm(clusterSync);
  return sums;
}

/// The CTAs a thread-block cluster holds on every sm_90 GPU (portable).
constexpr int64_t kMaxCluster = 8;

struct TileGemmKernelsPass
    : dlc::impl::TileGemmKernelsPassBase<TileGemmKernelsPass> {
  using TileGemmKernelsPassBase::TileGemmKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (stageEpilogueInputs != "none" && stageEpilogueInputs != "int8" &&
        stageEpilogueInputs != "all") {
      module.emitError("dlc-tile-gemm-kernels: stage-epilogue-inputs must be "
                       "none, int8 or all, not '")
          << stageEpilogueInputs << "'";
      return signalPassFailure();
    }
    if (gatherProducerWarps != 0 && gatherProducerWarps != 1 &&
        gatherProducerWarps != 2 && gatherProducerWarps != 4) {
      module.emitError("dlc-tile-gemm-kernels: gather-producer-warps must be "
                       "0, 1, 2 or 4, not ")
          << int64_t(gatherProducerWarps);
      return signalPassFailure();
    }
    if (!tile.empty() && !isTileName(tile)) {
      module.emitError("dlc-tile-gemm-kernels: unknown tile '")
          << tile << "' (expected BMxBN of a tensor-core tile shape, e.g. "
          << tileName(kWgmmaConfigs[0]) << ")";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(attrs::kKernel) && !func.isExternal())
        kernels.push_back(func);
    KernelCalls calls(module);
    for (func::FuncOp func : kernels) {
      FailureOr<GemmKernel> g = matchGemmKernel(func, calls, allowTf32);
      if (failed(g))
        continue;
      if (foldPadding)
        foldConvPadding(*g);
      // wgmma reads both operands K-major from shared memory (a 16-bit
      // [K, N] B would need its MN-major layouts); TF32 keeps mma.sync,
      // whose operands are rounded (cvt.rna) on the way to the registers.
      bool useWgmma = wgmma && g->bTransposed && !g->isTf32();
      TileConfig cfg = im2colKTiles(
          *g, chooseConfig(*g, smCount, useWgmma, tile, shortKTiles));
      std::optional<SplitK> split = chooseSplitK(*g, cfg, smCount);
      if (!split && gatherSplitK && clusterSplitK && useWgmma && tile.empty())
        if (auto plan = chooseGatherSplit(*g, cfg, smCount)) {
          cfg = plan->first;
          split = plan->second;
        }
      if (!split) {
        if (deepenStages && useWgmma && tile.empty() && g->conv)
          cfg = deepened(*g, cfg, smCount);
        bool shared = sharesSms(*g, cfg);
        tileKernel(rewriter, *g, cfg, std::nullopt, shared ? minCtasPerSm : 1);
        if (shared)
          func->setAttr(attrs::kMinCtasPerSm,
                        rewriter.getI64IntegerAttr(minCtasPerSm));
        continue;
      }
      // wgmma: the splits of a tile are one cluster (at most the 8 CTAs a
      // cluster portably holds) reducing through distributed shared memory.
      if (clusterSplitK && cfg.wgmma() &&
          GemmBuilder::accumulatorsFitStages(*g, cfg)) {
        int64_t kTiles = llvm::divideCeil(g->k, cfg.bk);
        int64_t per = llvm::divideCeil(
            kTiles, std::min<int64_t>(split->splits, kMaxCluster));
        split = SplitK{int64_t(llvm::divideCeil(kTiles, per)), per, Value(),
                       /*cluster=*/true};
        tileKernel(rewriter, *g, cfg, split);
        func->setAttr(attrs::kClusterCtas,
                      rewriter.getI64IntegerAttr(split->splits));
        continue;
      }
      // The partial products go to a copy of the kernel; this one adds
      // them up and keeps its init and epilogue, in the one-thread-per-
      // element form.
      func::FuncOp partial = addSplitKKernel(*g, *split, calls);
      FailureOr<GemmKernel> pg = matchGemmKernel(partial, calls, allowTf32);
      if (failed(pg)) {
        partial.emitError("split-K copy of a GEMM kernel no longer matches");
        return signalPassFailure();
      }
      if (g->conv && g->conv->foldsPadding)
        foldConvPadding(*pg);
      split->workspace = partial.getArguments().back();
      tileKernel(rewriter, *pg, cfg, split);
    }
    erasePaddingCopies();
  }

  /// The zero-padding copies whose convolutions now read their input (and
  /// nothing else reads their output), then their kernels once uncalled.
  void erasePaddingCopies() {
    ModuleOp module = getOperation();
    SetVector<Operation *> callees;
    for (func::CallOp pad : paddingCopies) {
      auto isCopyOrDealloc = [&](Operation *user) {
        return user == pad.getOperation() || isa<memref::DeallocOp>(user);
      };
      Value padded;
      for (Value v : pad.getOperands())
        if (auto alloc = v.getDefiningOp<memref::AllocOp>();
            alloc && llvm::all_of(v.getUsers(), isCopyOrDealloc))
          padded = v;
      if (!padded)
        continue;
      callees.insert(
          SymbolTable::lookupNearestSymbolFrom(pad, pad.getCalleeAttr()));
      for (Operation *user : llvm::make_early_inc_range(padded.getUsers()))
        user->erase();
      padded.getDefiningOp()->erase();
    }
    for (Operation *callee : callees)
      if (callee && SymbolTable::symbolKnownUseEmpty(callee, module))
        callee->erase();
    paddingCopies.clear();
  }
  /// The zero-padding calls some convolution no longer reads from.
  SetVector<func::CallOp> paddingCopies;

  /// Replaces the kernel's ops with the CTA program.
  void tileKernel(IRRewriter &rewriter, GemmKernel &g, const TileConfig &cfg,
                  std::optional<SplitK> split, int64_t ctasPerSm = 1) {
    func::FuncOp func = g.func;
    std::optional<TmaOperand> tmaA, tmaB;
    if (tma && cfg.wgmma()) {
      tmaA = tmaOperand(g, g.a, cfg.bm, cfg);
      if (!tmaA && im2colLoads(g, cfg))
        tmaA = im2colOperand(g, cfg);
      tmaB = tmaOperand(g, g.b, cfg.bn, cfg);
    }
    if (!g.padValues.empty()) {
      // The padding value's buffer, passed on from the padding's calls.
      g.padValue = g.appendArgument(
          g.padValues.front().getType(), {}, func.getLoc(),
          [&](size_t i, func::CallOp) { return g.padValues[i]; });
    }
    int64_t persistentCtas = 0;
    if (persistent && warpSpecialize && tmaA && tmaB && !split)
      persistentCtas = persistentCtaCount(g, cfg);
    bool stageInputs = stageEpilogueInputs == "all" ||
                       (stageEpilogueInputs == "int8" && g.isInt());
    GemmBuilder builder(rewriter, g, cfg, emulate, split, tmaA, tmaB,
                        warpSpecialize, persistentCtas, stageEpilogue,
                        stageInputs, gatherProducerWarps, producerWarpgroup);
    builder.setCtasPerSm(ctasPerSm);
    builder.setPrefetchInputs(prefetchEpilogueInputs);
    int64_t ctas = builder.build();
    for (linalg::GenericOp e : llvm::reverse(g.epilogue))
      rewriter.eraseOp(e);
    rewriter.eraseOp(g.contraction);
    if (g.init)
      rewriter.eraseOp(g.init);
    if (g.conv && g.conv->foldsPadding) {
      // The program reads the unpadded input: retype A and pass it.
      auto arg = cast<BlockArgument>(g.a);
      arg.setType(g.unpaddedInputs.front().getType());
      func.setType(FunctionType::get(&getContext(),
                                     func.getBody().getArgumentTypes(),
                                     func.getResultTypes()));
      for (auto [call, input, pad] :
           llvm::zip_equal(g.calls, g.unpaddedInputs, g.padCalls)) {
        call->setOperand(arg.getArgNumber(), input);
        paddingCopies.insert(pad);
      }
    }
    Builder b(&getContext());
    func->setAttr(attrs::kWorkItems, b.getI64IntegerAttr(ctas));
    func->setAttr(attrs::kCtaThreads, b.getI64IntegerAttr(builder.ctaThreads()));
    func->setAttr(attrs::kSharedBytes,
                  b.getI64IntegerAttr(builder.sharedBytes()));
    if (persistentCtas)
      func->setAttr(attrs::kPersistent, b.getUnitAttr());
    if (builder.givesRegisters())
      func->setAttr(attrs::kMinCtasPerSm, b.getI64IntegerAttr(1));
    // The tensor-map arguments replace the operands' own where the kernel
    // reads those no more.
    if (!emulate && (tmaA || tmaB))
      dropUnreadOperands(g);
    dropDeadBufferArguments(func, g.calls);
  }

  /// Erases A's and B's arguments (once, when they are one) from `g`'s
  /// kernel and its calls where the kernel no longer reads them.
  static void dropUnreadOperands(GemmKernel &g) {
    SmallVector<Value, 2> operands{g.a};
    if (g.b != g.a)
      operands.push_back(g.b);
    for (Value operand : operands) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || !arg.use_empty() ||
          arg.getOwner() != &g.func.getBody().front())
        continue;
      unsigned i = arg.getArgNumber();
      for (func::CallOp call : g.calls)
        call->eraseOperand(i);
      (void)g.func.eraseArgument(i);
    }
  }

  /// Persistent CTAs for `g` on `cfg` tiles: 0 when one wave of CTAs (SMs
  /// times the CTAs an SM holds) covers the tiles, else the fewest CTAs
  /// that need no more waves than one CTA per tile would, ceil(tiles /
  /// waves), so that every CTA runs the same number of tiles but the last.
  int64_t persistentCtaCount(const GemmKernel &g, const TileConfig &cfg) {
    int64_t tiles = gridTiles(g, cfg);
    int64_t wave = smCount * ctasPerSm(g, cfg);
    if (tiles <= wave)
      return 0;
    return llvm::divideCeil(tiles, llvm::divideCeil(tiles, wave));
  }

  /// The TMA box of operand `v` (A or [N, K] B, `rows` rows a tile) when TMA
  /// can load it: a whole kernel argument, row-major, rows a multiple of 16
  /// bytes, not a convolution's im2col window (unless it is the input as it
  /// is); the [O, KH, KW, C] weight of a convolution is the [O, K] matrix. On
  /// the GPU the kernel and its calls get the buffer once more, as the argument
  /// marked with the map.
  std::optional<TmaOperand> tmaOperand(GemmKernel &g, Value v, int64_t rows,
                                       const TileConfig &cfg) {
    bool isA = v == g.a;
    auto arg = dyn_cast<BlockArgument>(v);
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!arg || arg.getOwner() != &g.func.getBody().front() || !type ||
        !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        g.calls.empty() || (isA && g.conv && !isPointwiseConv(g, type)) ||
        (!isA && !g.bTransposed))
      return std::nullopt;
    SmallVector<int64_t> dims;
    if (g.conv && isA)
      dims = {g.k, g.m};
    else if (g.conv)
      dims = {g.k, g.n};
    else
      dims.assign(type.getShape().rbegin(), type.getShape().rend());
    // A box may not be larger than the tensor in any dimension (the
    // descriptor would be invalid, and the copies fault). A k-tile needs
    // the full 128 bytes of k; rows past a short operand's end stay stale
    // in shared memory, which only the discarded rows (A) or columns (B)
    // of the output read.
    if (dims.size() > 5 || (dims[0] * g.elementBytes()) % 16 ||
        dims[0] < cfg.bk)
      return std::nullopt;
    TmaOperand op{Value(), dims, std::min(rows, dims[1])};
    if (emulate)
      return op;
    SmallVector<int64_t> box(dims.size(), 1);
    box[0] = cfg.bk;
    box[1] = op.boxRows;
    op.map = g.appendArgument(type, tensorMapAttrs(g, cfg, dims, box),
                              arg.getLoc(), [&](size_t, func::CallOp call) {
                                return call.getOperand(arg.getArgNumber());
                              });
    return op;
  }

  /// A tensor-map argument's attributes: dlc.tensor_map = {dims, box,
  /// swizzle (a k-tile's bytes)[, im2col]}, innermost first.
  DictionaryAttr tensorMapAttrs(const GemmKernel &g, const TileConfig &cfg,
                                ArrayRef<int64_t> dims, ArrayRef<int64_t> box,
                                DictionaryAttr im2col = {}) {
    Builder b(&getContext());
    SmallVector<NamedAttribute> spec{
        b.getNamedAttr("dims", b.getDenseI64ArrayAttr(dims)),
        b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
        b.getNamedAttr("swizzle",
                       b.getI64IntegerAttr(cfg.bk * g.elementBytes()))};
    if (im2col)
      spec.push_back(b.getNamedAttr("im2col", im2col));
    return b.getDictionaryAttr(
        {b.getNamedAttr(attrs::kTensorMap, b.getDictionaryAttr(spec))});
  }

  /// The input a convolution's im2col windows read: the unpadded input
  /// where its padding is folded into the loads, else A.
  static MemRefType convInputType(const GemmKernel &g) {
    return cast<MemRefType>(g.conv->foldsPadding
                                ? g.unpaddedInputs.front().getType()
                                : g.a.getType());
  }

  /// Whether TMA's im2col mode loads convolution `g`'s A on `cfg` tiles
  /// (tma-im2col): a window that is not the input itself, over a whole
  /// kernel argument of static [N, H, W, C] shape, padded with zeros (TMA
  /// fills nothing else: an int8 input's zero point keeps cp.async), each
  /// k-tile within one window position (C a multiple of BK), strides of 8
  /// at most, corners and kernel offsets TMA can encode.
  bool im2colLoads(const GemmKernel &g, const TileConfig &cfg) const {
    if (!tmaIm2col || !tma || !cfg.wgmma() || !g.conv || g.calls.empty() ||
        !g.padValues.empty())
      return false;
    const GemmKernel::Conv &cv = *g.conv;
    auto arg = dyn_cast<BlockArgument>(g.a);
    auto aType = dyn_cast<MemRefType>(g.a.getType());
    // A whole argument: of the kernel's body block, the contraction's.
    if (!arg || arg.getOwner() != g.contraction->getBlock() || !aType ||
        isPointwiseConv(g, aType))
      return false;
    MemRefType type = convInputType(g);
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getRank() != 4 || type.getDimSize(3) != cv.c ||
        type.getDimSize(0) != cv.batch || cv.c % cfg.bk || cv.sh > 8 ||
        cv.sw > 8)
      return false;
    TmaOperand::Im2col box = im2colBox(g);
    auto corner = [](int64_t v) { return v >= -128 && v <= 127; };
    return corner(box.lowerW) && corner(box.lowerH) && corner(box.upperW) &&
           corner(box.upperH) && (cv.kw - 1) * cv.dw < 256 &&
           (cv.kh - 1) * cv.dh < 256;
  }

  /// `c` with k-tiles of one window position where `g`'s positions are 64
  /// or 32 bytes of channels and TMA's im2col mode then loads its A: a
  /// 128-byte k-tile would span several positions, which one copy cannot.
  /// 64 bytes: int8 resnet50's layer1 3x3 convolutions over 64 channels; 32:
  /// the f16 stems in space-to-depth form (4x4 over 16 channels), whose
  /// cp.async gather was resnet50 b32's longest kernel (78 us of the int8
  /// build's 1.15 ms under ncu). The k-tiles take the swizzle of their
  /// width, and as many more stages as keep the bytes in flight.
  TileConfig im2colKTiles(const GemmKernel &g, TileConfig c) const {
    int64_t eb = g.elementBytes();
    int64_t position = g.conv ? g.conv->c * eb : 0;
    if (c.bk * eb != 128 || (position != 64 && position != 32))
      return c;
    TileConfig shorter = c;
    shorter.bk = position / eb;
    shorter.stages =
        std::min(c.stages * (128 / position), fillableStages(g, shorter));
    return im2colLoads(g, shorter) ? shorter : c;
  }

  /// The bounding box of `g`'s window corners: from the first output
  /// pixel's (minus the folded padding) to one past the last's, so that it
  /// holds exactly the output's OH x OW corners at the strides.
  static TmaOperand::Im2col im2colBox(const GemmKernel &g) {
    const GemmKernel::Conv &cv = *g.conv;
    MemRefType type = convInputType(g);
    int64_t lowerH = cv.foldsPadding ? -cv.padTop : 0;
    int64_t lowerW = cv.foldsPadding ? -cv.padLeft : 0;
    return {lowerW, lowerH,
            lowerW + (cv.ow - 1) * cv.sw + 1 - type.getDimSize(2),
            lowerH + (cv.oh - 1) * cv.sh + 1 - type.getDimSize(1)};
  }

  /// `g`'s A loaded by TMA in im2col mode (im2colLoads holds): BM pixels of
  /// BK channels a copy. On the GPU the kernel and its calls get the input
  /// (the unpadded one where the padding is folded) once more, marked with
  /// the map: dlc.tensor_map's `im2col` holds the corners (W, H), the
  /// traversal strides (innermost first), channels and pixels.
  std::optional<TmaOperand> im2colOperand(GemmKernel &g,
                                          const TileConfig &cfg) {
    const GemmKernel::Conv &cv = *g.conv;
    MemRefType type = convInputType(g);
    SmallVector<int64_t> dims(llvm::reverse(type.getShape()));
    TmaOperand op{Value(), dims, cfg.bm, im2colBox(g)};
    if (emulate)
      return op;
    Builder b(&getContext());
    const TmaOperand::Im2col &box = *op.im2col;
    auto im2col = b.getDictionaryAttr(
        {b.getNamedAttr("lower",
                        b.getDenseI64ArrayAttr({box.lowerW, box.lowerH})),
         b.getNamedAttr("upper",
                        b.getDenseI64ArrayAttr({box.upperW, box.upperH})),
         b.getNamedAttr("strides",
                        b.getDenseI64ArrayAttr({1, cv.sw, cv.sh, 1})),
         b.getNamedAttr("channels", b.getI64IntegerAttr(cfg.bk)),
         b.getNamedAttr("pixels", b.getI64IntegerAttr(cfg.bm))});
    auto arg = cast<BlockArgument>(g.a);
    op.map = g.appendArgument(
        type, tensorMapAttrs(g, cfg, dims, {cfg.bk, 1, 1, 1}, im2col),
        arg.getLoc(), [&](size_t i, func::CallOp call) {
          return cv.foldsPadding ? g.unpaddedInputs[i]
                                 : call.getOperand(arg.getArgNumber());
        });
    return op;
  }

  /// Split-K when the output tiles leave at least half the SMs idle and
  /// there are k-tiles to share: as many splits as fill the SMs, each of 4
  /// k-tiles at least (fewer would not hide the pipeline's fill), at most
  /// 32 (the workspace's traffic grows with the splits).
  std::optional<SplitK> chooseSplitK(const GemmKernel &g,
                                     const TileConfig &cfg,
                                     int64_t smCount) {
    if (!splitK || !g.scales.empty() || g.calls.empty())
      return std::nullopt;
    int64_t ctas = gridTiles(g, cfg);
    int64_t kTiles = llvm::divideCeil(g.k, cfg.bk);
    int64_t splits = std::min({smCount / ctas, kTiles / 4, int64_t(32)});
    if (2 * ctas > smCount || splits < 2)
      return std::nullopt;
    int64_t per = llvm::divideCeil(kTiles, splits);
    return SplitK{int64_t(llvm::divideCeil(kTiles, per)), per, Value()};
  }

  /// `c` with as many pipeline stages as an SM's shared memory holds (8 at
  /// most, no more than K fills) when its CTAs fit one wave, one an SM:
  /// no other CTA competes for that memory there, and each stage more is a
  /// k-tile more of prefetch to hide a k-tile's latency behind (resnet50
  /// b32's layer3 and layer4 1x1 convolutions: 98 and 104 CTAs with 2 of
  /// their 16 to 32 k-tiles ahead). wgmma (sm_90a) only: the 227 KiB are
  /// an H100's, an A100 has 164. Convolutions only: dlc-merge-launches
  /// later makes one launch of GEMMs of one launch shape (BERT's Q, K and
  /// V projections at batch 8: 3 x 128 CTAs), which a wave of one CTA an
  /// SM no longer holds.
  TileConfig deepened(const GemmKernel &g, TileConfig c, int64_t smCount) {
    if (gridTiles(g, c) > smCount)
      return c;
    TileConfig more = c;
    while (more.stages < std::min<int64_t>(fillableStages(g, c), 8)) {
      ++more.stages;
      if (ctasBySharedMemory(ctaSharedBytes(g, more)) < 1)
        break;
      c = more;
    }
    return c;
  }

  /// With `minCtasPerSm` (2 or more), wgmma tiles `c` and `g`'s tiles more
  /// than one wave of CTAs, one an SM: drops stages of `c`, down to 3 (one
  /// k-tile in flight beside the one its wgmma reads), until `minCtasPerSm`
  /// CTAs' shared memory fits an SM's 228 KiB (1 KiB of it reserved per
  /// CTA); returns whether it fits, `c` unchanged if not. wgmma (sm_90a)
  /// only: the 228 KiB are an H100's, an A100 has 164. Short-K GEMMs are
  /// latency-bound: int8 resnet50 b32's 1x1 convolutions over 128 channels are
  /// one k-tile, loaded, multiplied and written by one CTA an SM while the SM's
  /// other half of shared memory (3 stages of 32 KiB) sat idle for want of
  /// registers (122 a thread of 288).
  bool sharesSms(const GemmKernel &g, TileConfig &c) const {
    if (minCtasPerSm < 2 || !c.wgmma() || gridTiles(g, c) <= smCount)
      return false;
    // Producer warps that gather (gather-producer-warps) make the CTA
    // larger: its registers must still fit the accumulators and ~32 more
    // a thread (int8 128x128 tiles with 4 gathering warps, 384 threads: 80
    // a thread for two CTAs, and ptxas needs 90 for the wgmma). A TMA
    // producer stays one warp where CTAs share an SM (producerThreads).
    if (warpSpecialize && gatherProducerWarps > 0 && gathersA(g, c) &&
        consumerRegisters(c.threads(), 32 * gatherProducerWarps, minCtasPerSm,
                          producerRegisters(true)) <
            c.bm * c.bn / c.threads() + 32)
      return false;
    auto fits = [&](const TileConfig &t) {
      return ctasBySharedMemory(ctaSharedBytes(g, t)) >= minCtasPerSm;
    };
    TileConfig t = c;
    while (!fits(t) && t.stages > 3)
      --t.stages;
    if (!fits(t))
      return false;
    c = t;
    return true;
  }

  /// Whether `g` gathers its A operand with cp.async on `c` tiles (an
  /// im2col window other than the input itself, which TMA's im2col mode
  /// does not load).
  bool gathersA(const GemmKernel &g, const TileConfig &c) const {
    auto type = dyn_cast<MemRefType>(g.a.getType());
    return g.conv && (!type || !isPointwiseConv(g, type)) && !im2colLoads(g, c);
  }

  /// A tile and cluster split-K for a convolution gathering its A operand
  /// whose tiles (`chosen`) fill between half and one wave of SMs (fewer
  /// are split by chooseSplitK): there each SM runs one CTA, whose k-tiles
  /// take a gather's turnaround rather than their MMAs' time (resnet50
  /// b32's layer4 3x3 convolutions: 104 CTAs of 128x64 at ~1/5 of the
  /// tensor cores' rate). Larger tiles do more MMA per turnaround and the
  /// splits keep the SMs busy; the plan with the fewest estimated cycles
  /// (estimateCycles with the gather's latency and the clusters'
  /// reduction) wins over `chosen`, if one does.
  std::optional<std::pair<TileConfig, SplitK>>
  chooseGatherSplit(const GemmKernel &g, const TileConfig &chosen,
                    int64_t smCount) {
    if (!gathersA(g, chosen) || !g.scales.empty() || g.calls.empty())
      return std::nullopt;
    int64_t ctas = gridTiles(g, chosen);
    if (2 * ctas <= smCount || ctas >= smCount)
      return std::nullopt;
    double best = estimateCycles(g, chosen, smCount, 1, true);
    std::optional<std::pair<TileConfig, SplitK>> plan;
    for (TileConfig c : kWgmmaConfigs) {
      c = forOperands(c, g, /*wgmma=*/true, shortKTiles);
      if (!GemmBuilder::accumulatorsFitStages(g, c))
        continue;
      int64_t kTiles = llvm::divideCeil(g.k, c.bk);
      for (int64_t splits = 2; splits <= kMaxCluster; ++splits) {
        // Each CTA keeps 4 k-tiles at least (fewer do not hide the fill);
        // splits that round to the same share as fewer are skipped.
        int64_t per = llvm::divideCeil(kTiles, splits);
        if (per < 4 || (int64_t)llvm::divideCeil(kTiles, per) != splits)
          continue;
        double cycles = estimateCycles(g, c, smCount, splits, true);
        if (cycles < best) {
          best = cycles;
          c.groupM = chooseGroupM(batchEntries(g), llvm::divideCeil(g.m, c.bm),
                                  llvm::divideCeil(g.n, c.bn), c, smCount);
          plan = {c, SplitK{splits, per, Value()}};
        }
      }
    }
    return plan;
  }

  /// Adds the workspace to `g`'s kernel and its calls, copies the kernel
  /// (the copy, returned, computes the partial sums), calls the copy before
  /// each call, and replaces the contraction with the sum over the splits.
  func::FuncOp addSplitKKernel(GemmKernel &g, const SplitK &split,
                               KernelCalls &calls) {
    func::FuncOp func = g.func;
    MLIRContext *ctx = &getContext();
    Location loc = g.contraction.getLoc();
    auto accType = cast<MemRefType>(g.acc.getType());
    SmallVector<int64_t> wsShape{split.splits};
    llvm::append_range(wsShape, accType.getShape());
    auto wsType = MemRefType::get(wsShape, accType.getElementType());

    // Each call gets a workspace of its own, freed after it.
    Value ws = g.appendArgument(wsType, {}, loc, [&](size_t, func::CallOp call) {
      OpBuilder cb(call);
      return cb.create<memref::AllocOp>(call.getLoc(), wsType,
                                        cb.getI64IntegerAttr(64));
    });
    OpBuilder b(func);
    b.setInsertionPointAfter(func);
    auto partial = cast<func::FuncOp>(b.clone(*func));
    SymbolTable(getOperation()).insert(partial);
    for (func::CallOp call : g.calls) {
      OpBuilder cb(call);
      calls.add(
          cb.create<func::CallOp>(call.getLoc(), partial, call.getOperands()));
      cb.setInsertionPointAfter(call);
      cb.create<memref::DeallocOp>(call.getLoc(), call.getOperands().back());
    }

    // acc (+)= sum over s of ws[s, ...], s innermost.
    b.setInsertionPoint(g.contraction);
    int64_t rank = accType.getRank();
    SmallVector<AffineExpr> wsExprs{getAffineDimExpr(rank, ctx)};
    for (int64_t d = 0; d < rank; ++d)
      wsExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps{
        AffineMap::get(rank + 1, 0, wsExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    bool isInt = g.isInt();
    b.create<linalg::GenericOp>(
        loc, TypeRange{}, ValueRange{ws}, ValueRange{g.acc}, maps, iters,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value sum = isInt ? nb.create<arith::AddIOp>(l, args[1], args[0])
                                  .getResult()
                            : nb.create<arith::AddFOp>(l, args[1], args[0])
                                  .getResult();
          nb.create<linalg::YieldOp>(l, sum);
        });
    g.contraction.erase();
    // The sum reads neither operand: dropping them lets a padding copy that
    // only the partial kernel's convolution read go (foldConvPadding).
    dropUnreadOperands(g);
    return partial;
  }
};
} // namespace
