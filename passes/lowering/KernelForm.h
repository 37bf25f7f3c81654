//===- KernelForm.h - the shared linearized kernel form ----------*- C++
//-*-===//
//
// Helpers for the kernel form that dlc-linearize-kernels produces and the
// dlc-map-kernels-to-* passes consume: one scf.parallel over [0, work items).
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_LOWERING_KERNELFORM_H
#define DLC_PASSES_LOWERING_KERNELFORM_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::dlc {
class AttentionKernelOp;

/// Wraps the whole body of `func` (but its terminator) in a one-iteration
/// scf.parallel: the form of a kernel with a single work item.
inline scf::ParallelOp wrapInSingleWorkItem(RewriterBase &rewriter,
                                            func::FuncOp func) {
  Block &body = func.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  Value zero = rewriter.create<arith::ConstantIndexOp>(func.getLoc(), 0);
  Value one = rewriter.create<arith::ConstantIndexOp>(func.getLoc(), 1);
  auto loop = rewriter.create<scf::ParallelOp>(
      func.getLoc(), ValueRange{zero}, ValueRange{one}, ValueRange{one});
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(Block::iterator(loop)),
                            Block::iterator(body.getTerminator()))))
    op.moveBefore(loop.getBody()->getTerminator());
  return loop;
}

/// Lowers every structured op of kernel `func` to loops and fuses their
/// parallel loop nests (upstream parallel loop fusion; distinct kernel
/// arguments never alias). Returns the one parallel loop nest the kernel is
/// made of, or failure when the ops do not fuse into one (no diagnostic:
/// dlc-fuse-kernels uses this as its legality trial).
///
/// With `rowWorkItems` (the host target), a work item covers a whole row of
/// the innermost parallel dim, which becomes the innermost loop (inside the
/// reductions) so that LLVM vectorizes it. An op of too few rows for the
/// threads takes them where its long row splits into panels
/// (splitRowsIntoPanels: a matrix-vector product), which a trial lowering
/// checks; a copy that interleaves rows (byte quadruples) runs its last two
/// dims as loops in a work item. `attentionTile` is lowerAttentionToLoops'
/// `laneTile` for an attention alone in its kernel.
FailureOr<scf::ParallelOp> lowerKernelToLoopNest(RewriterBase &rewriter,
                                                 func::FuncOp func,
                                                 bool rowWorkItems = false,
                                                 int64_t attentionTile = 0);

/// Lowers a dlc.attention_kernel on buffers, in place, to its work item
/// loop nest: an scf.parallel over the batch dims and the query rows. Each
/// work item streams over the keys in blocks with the online softmax
/// (running max m and sum l, an accumulator row rescaled by exp(m_old -
/// m_new)) in private memory (memref.alloca), so the scores are never
/// stored; it writes its output row once at the end.
///
/// With `dotProducts` (the host), a block's scores are dot products over
/// the head dim when K is stored with the head dim innermost (q . k reads
/// both rows contiguously; the sum may reassociate, so LLVM vectorizes
/// it); otherwise the score row is updated one head element at a time.
///
/// A work item takes up to `maxRowGroup` query rows (a power of two that
/// divides them; 1: one): each key block is read for all its rows in turn,
/// while it is in L1, and their running max, sum and output row stay in
/// private memory.
///
/// With `laneTile` > 0 and a group of 8 or 16 rows (the host), the rows are
/// vector lanes instead: the work item holds q transposed ([head, rows]),
/// each score is a vector of the rows' scores for one key, built by FMAs of
/// q's columns with k's broadcast elements, `laneTile` keys at a time in
/// registers, and so is each accumulator column (`laneTile` value columns
/// at a time); the softmax statistics are vectors, nothing reduces across
/// lanes.
FailureOr<scf::ParallelOp> lowerAttentionToLoops(RewriterBase &rewriter,
                                                 AttentionKernelOp op,
                                                 bool dotProducts = false,
                                                 int64_t maxRowGroup = 1,
                                                 int64_t laneTile = 0);

/// Moves the statically shaped memref.alloca ops of a mapped kernel (a work
/// item's private scratch) to the entry block, so that they are allocated
/// once per thread / per host task rather than once per work item: the
/// work items a thread runs are sequential and each initializes its
/// scratch before reading it.
void hoistPrivateAllocas(FunctionOpInterface kernel);

/// The upper bounds of `loop`'s dims when every one runs from 0 with
/// step 1 and constant bounds; nothing otherwise.
std::optional<SmallVector<int64_t>> normalizedExtents(scf::ParallelOp loop);

/// Whether no op in `loop`'s body holds a region: an innermost loop.
bool isInnermostLoop(scf::ForOp loop);

/// Gives each work item `width` consecutive elements of the innermost
/// parallel dim (when it divides it): memory accesses become contiguous
/// groups the backend turns into vector loads, and reductions keep `width`
/// accumulators. Returns the new loop, or `loop` unchanged.
scf::ParallelOp splitInnermostDim(RewriterBase &rewriter, scf::ParallelOp loop,
                                  int64_t width);

/// `index` with the affine.apply ops that spell identity indices (as loop
/// generation writes them) looked through.
Value stripIdentityApply(Value index);

/// The buffer and indices of a memref.load or memref.store; nullopt for
/// any other op.
std::optional<std::pair<Value, ValueRange>> memoryAccess(Operation *op);

/// The buffer a memref value is a view of (through expand/collapse_shape
/// and view-like ops, isBufferView): two kernel arguments with the same
/// root alias.
Value rootBuffer(Value v);

/// `m`, or 0 where `m` is -inf: the base an online softmax (running max
/// `m`) takes its exponents from, so that a row that has seen only -inf
/// (masked columns) computes exp(-inf - 0) = 0, not exp(-inf - -inf) = NaN.
Value onlineSoftmaxBase(OpBuilder &b, Location loc, Value m);

/// Whether `op` is a view rootBuffer looks through: a view-like op or an
/// expand/collapse_shape.
bool isBufferView(Operation *op);

/// Whether `type` has static strides and offset and a contiguous innermost
/// dim: an identity layout, or a static subview's with rows of consecutive
/// elements (a padded copy's interior, dlc-fold-padded-copies), which a
/// kernel takes as an operand and vector loads and stores read and write.
bool hasContiguousRows(MemRefType type);

/// The kernel (a `dlc.kernel` function) `op` calls, if it is a call of one.
func::FuncOp calledKernel(Operation *op, SymbolTable &symbols);

/// The users of each function symbol, gathered in one walk of the module
/// (SymbolTable::getSymbolUses per kernel walks the module once per kernel:
/// seconds on bert_base).
class KernelCalls {
public:
  explicit KernelCalls(ModuleOp module);

  /// The calls of `func`; empty when some other op uses it.
  SmallVector<func::CallOp> of(func::FuncOp func) const;

  /// Records a call created after the walk.
  void add(func::CallOp call) {
    users[call.getCalleeAttr().getRootReference()].push_back(call);
  }

private:
  llvm::DenseMap<StringAttr, SmallVector<Operation *>> users;
};

/// Whether the buffer a kernel receives as argument `argNumber` exists for
/// the kernel alone: at each of its `calls` (none: false) an allocation
/// that only that call (and its dealloc) uses, directly or through views.
/// What the kernel writes there nobody reads after it returns.
bool isCallLocalArgument(ArrayRef<func::CallOp> calls, unsigned argNumber);

/// Erases the kernel arguments nothing reads or writes any more when the
/// callers' buffers for them exist only for this call (an allocation the
/// call alone uses, and its deallocations, which go too).
void dropDeadBufferArguments(func::FuncOp func, ArrayRef<func::CallOp> calls);

/// The most arguments a kernel takes: CUDA passes kernel parameters in
/// 4 KiB, and kernels stay far below it with pointers.
constexpr size_t kMaxKernelArgs = 128;

/// Host: an op whose parallel dims but the innermost span fewer rows than
/// this keeps one element a work item (rows would starve the threads).
constexpr int64_t kMinHostRows = 8;

/// Host rows longer than this keep the row form (dlc-vectorize-host-rows,
/// `row-block`) unless they split into panels (splitRowsIntoPanels): 16-lane
/// tiles of a 768-column MatMul row each walked B's column panel a row
/// apart (BERT on two cores: 1.24 s -> 1.95 s before this limit); panels
/// read a packed copy of B instead.
constexpr int64_t kMaxRegisterRow = 256;

/// Host: the length of the rows of a row-form work item (`nest`, from
/// lowerKernelToLoopNest with `rowWorkItems`) when some row reduces (a row
/// loop inside a reduction loop: a MatMul's columns inside its K loop) and
/// is longer than kMaxRegisterRow, and the row's columns are independent,
/// so that splitRowsIntoPanels may give them to different work items: every
/// row loop of the work item runs over the same [0, length), carries no
/// values, and each buffer the work item writes is accessed only inside row
/// loops at the column the row loop is at (last index), never across
/// columns (a LayerNormalization's statistics are). Nothing otherwise.
std::optional<int64_t> splittableRowLength(scf::ParallelOp nest);

/// Splits the rows of `nest` into panels when splittableRowLength holds:
/// the largest multiple of 16 (of 8 failing that) dividing their length
/// and at most `maxPanel` columns. A new outermost parallel dim takes the
/// panel, and every row loop runs over [0, panel) with its column
/// `panel * p + c`. Consecutive work items then take the same panel of B
/// (a MatMul's weights) over consecutive rows, while it is in cache; a row
/// is short enough for registers (`dlc-vectorize-host-rows`). Returns the
/// panel; 0 (and `nest` unchanged) when the rows do not split.
int64_t splitRowsIntoPanels(RewriterBase &rewriter, scf::ParallelOp &nest,
                            int64_t maxPanel);

/// The module's model functions: the defined functions that are not
/// kernels (they call the kernels).
SmallVector<func::FuncOp> modelFunctions(ModuleOp module);

/// Whether `op` may sit between two kernel calls of a model function
/// without ordering them: it defines buffers or views but touches no data.
bool isDataFree(Operation &op);

/// Marks `kernel`'s buffer arguments `llvm.noalias` when the kernel was
/// built from distinct buffers (`dlc.distinct_args`), so LLVM keeps
/// accumulators in registers and uses the read-only data path on CUDA.
void markNoAliasArguments(FunctionOpInterface kernel);

/// Marks `kernel`'s buffer arguments 16-byte aligned (`llvm.align`), which
/// every buffer of a plan is, so the backend may use 128-bit accesses.
void markAlignedArguments(FunctionOpInterface kernel);

} // namespace mlir::dlc

#endif
