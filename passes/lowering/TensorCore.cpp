//===- TensorCore.cpp - shared pieces of the tensor-core kernels --*- C++
//-*-===//

#include "passes/lowering/TensorCore.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

void mlir::dlc::buildLoop(OpBuilder &b, Location loc, int64_t n,
                          function_ref<void(Value)> body) {
  Idx ix{b, loc};
  auto loop = b.create<scf::ForOp>(loc, ix.c(0), ix.c(n), ix.c(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(loop.getInductionVar());
}

void mlir::dlc::forEachThread(OpBuilder &b, Location loc, bool emulate,
                              int64_t threads, function_ref<void(Value)> body) {
  if (emulate)
    return buildLoop(b, loc, threads, body);
  body(b.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x));
}

static gpu::AddressSpaceAttr workgroupSpace(OpBuilder &b) {
  return gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
}

Value mlir::dlc::dynamicSharedMemory(OpBuilder &b, Location loc) {
  return b.create<gpu::DynamicSharedMemoryOp>(
      loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                           MemRefLayoutAttrInterface(), workgroupSpace(b)));
}

Value mlir::dlc::sharedView(OpBuilder &b, Location loc, Value raw, Value offset,
                            int64_t elems, Type type) {
  return b.create<memref::ViewOp>(loc,
                                  MemRefType::get({elems}, type,
                                                  MemRefLayoutAttrInterface(),
                                                  workgroupSpace(b)),
                                  raw, offset, ValueRange{});
}

void mlir::dlc::ctaBarrier(OpBuilder &b, Location loc, bool emulate) {
  if (!emulate)
    b.create<gpu::BarrierOp>(loc);
}

Value mlir::dlc::mmaSyncInlinePtx(OpBuilder &rw, Location loc, StringRef shape,
                                  Value a, Value b, Value c) {
  Type i32 = rw.getI32Type();
  Type f = cast<VectorType>(c.getType()).getElementType();
  SmallVector<Value> operands;
  auto regs = [&](Value frag) {
    auto type = cast<VectorType>(frag.getType());
    for (int64_t i = 0; i < type.getDimSize(0); ++i) {
      if (type.getElementType() == i32) { // TF32, already rounded
        operands.push_back(
            rw.create<vector::ExtractOp>(loc, frag, ArrayRef<int64_t>{i, 0}));
        continue;
      }
      operands.push_back(rw.create<LLVM::BitcastOp>(
          loc, i32,
          rw.create<vector::ExtractOp>(loc, frag, ArrayRef<int64_t>{i})));
    }
  };
  regs(a);
  regs(b);
  for (int64_t i = 0; i < 4; ++i)
    operands.push_back(
        rw.create<vector::ExtractOp>(loc, c, ArrayRef<int64_t>{i / 2, i % 2}));
  auto resultType =
      LLVM::LLVMStructType::getLiteral(rw.getContext(), {f, f, f, f});
  bool isInt = f.isInteger(32);
  // Operands: 4 (A) + 2 (B) b32 registers, then the 4 accumulators, which
  // tf32's m16n8k8 (2 + 1 registers) numbers from $7.
  int64_t aRegs = cast<VectorType>(a.getType()).getDimSize(0);
  int64_t bRegs = cast<VectorType>(b.getType()).getDimSize(0);
  std::string constraints = isInt ? "=r,=r,=r,=r" : "=f,=f,=f,=f";
  auto list = [](int64_t first, int64_t n) {
    std::string s;
    for (int64_t i = 0; i < n; ++i)
      s += (i ? ", $" : "$") + std::to_string(first + i);
    return "{" + s + "}";
  };
  for (int64_t i = 0; i < aRegs + bRegs; ++i)
    constraints += ",r";
  for (int64_t i = 0; i < 4; ++i)
    constraints += isInt ? ",r" : ",f";
  Value d = rw.create<LLVM::InlineAsmOp>(
                  loc, resultType, operands,
                  "mma.sync.aligned." + shape.str() + " " + list(0, 4) + ", " +
                      list(4, aRegs) + ", " + list(4 + aRegs, bRegs) + ", " +
                      list(4 + aRegs + bRegs, 4) + ";",
                  constraints, /*has_side_effects=*/false,
                  /*is_align_stack=*/false,
                  LLVM::AsmDialectAttr::get(rw.getContext(),
                                            LLVM::AsmDialect::AD_ATT),
                  ArrayAttr())
                ->getResult(0);
  Value out = c;
  for (int64_t i = 0; i < 4; ++i)
    out = rw.create<vector::InsertOp>(
        loc, rw.create<LLVM::ExtractValueOp>(loc, d, i), out,
        ArrayRef<int64_t>{i / 2, i % 2});
  return out;
}

Value mlir::dlc::flatView(OpBuilder &b, Location loc, Value buffer) {
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = buffer.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(buffer).getOwner());
  auto type = cast<MemRefType>(buffer.getType());
  auto flatType =
      MemRefType::get({type.getNumElements()}, type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  return b.create<memref::ReinterpretCastOp>(
      loc, flatType, buffer, /*offset=*/0,
      ArrayRef<int64_t>{type.getNumElements()}, ArrayRef<int64_t>{1});
}

Value mlir::dlc::alignedLinearIndex(Idx &ix, ArrayRef<int64_t> shape,
                                    ValueRange indices, int64_t w) {
  Value linear = ix.c(0);
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    linear = ix.add(linear, ix.mul(indices[d], stride));
    stride *= shape[d];
  }
  return ix.mul(ix.div(linear, w), w);
}
