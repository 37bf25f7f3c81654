# -*- Python -*-
import os
import lit.formats

config.name = "dlc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".onnxtxt", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlc_obj_root, "test")
config.excludes = ["e2e", "unit", "lit.cfg.py", "CMakeLists.txt", "Inputs"]

config.environment["PATH"] = os.pathsep.join(
    [config.dlc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["PYTHONPATH", "HOME", "DLC_PTXAS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%onnx2pb", config.python_executable + " " +
                             os.path.join(config.test_source_root, "tools", "onnx_text_to_pb.py")))
config.substitutions.append(("%ptxas", config.ptxas))
if config.ptxas:
    config.available_features.add("ptxas")
