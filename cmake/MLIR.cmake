# LLVM/MLIR 19 from Debian's packages (see docs/building.md).
find_package(MLIR REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/mlir)
message(STATUS "Using MLIR ${MLIR_PACKAGE_VERSION} from ${MLIR_DIR}")

# CMake >= 3.20 with LLVM's tablegen depfiles reruns every tablegen step on
# every build; the old policy gives "no work to do" again.
cmake_policy(SET CMP0116 OLD)

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
include_directories(${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
add_definitions(${LLVM_DEFINITIONS})

# Link every compiler library against the monolithic libMLIR.so/libLLVM.so:
# as fast to compile as the static archives and relinks about 3x faster.
set(DLC_MLIR_LIBS MLIR LLVM)
set(DLC_LLVM_LIBS LLVM)
