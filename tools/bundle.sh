#!/usr/bin/env bash
# Packs dlc, dlc-run, dlc-bench and libdlcrt with every shared library they
# need (but glibc) into one .tar.xz that runs on another x86-64 Linux machine
# with only a C compiler and the CUDA toolkit (no LLVM packages there).
#
#   tools/bundle.sh BUILD_DIR OUT.tar.xz
#   # elsewhere: tar xf dlc-bundle.tar.xz && dlc-bundle/bin/dlc model.onnx -o m.so
set -euo pipefail
build=${1:?usage: bundle.sh BUILD_DIR OUT.tar.xz}
out=${2:?usage: bundle.sh BUILD_DIR OUT.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/dlc-bundle
mkdir -p "$root/bin" "$root/libexec" "$root/lib" "$root/include"

tools="dlc dlc-run dlc-bench dlc-example"
for t in $tools; do
  cp "$build/bin/$t" "$root/libexec/"
  # Each tool runs through a wrapper that points the loader at lib/.
  cat > "$root/bin/$t" <<WRAP
#!/bin/sh
here=\$(dirname "\$(readlink -f "\$0")")
LD_LIBRARY_PATH="\$here/../lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/../libexec/$t" "\$@"
WRAP
  chmod +x "$root/bin/$t"
done
cp "$build"/lib/libdlcrt.so* "$root/lib/"
cp -r runtime/include/. "$root/include/"

# Every library the tools load, but the C library itself (always present and
# tied to the loader) and the CUDA driver (the runtime dlopens the system's).
glibc='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so)'
for t in $tools; do
  ldd "$build/bin/$t" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if ! echo "$name" | grep -Eq "$glibc"; then
    cp -L "$path" "$root/lib/$name"
  fi
done

mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - dlc-bundle | xz -T0 -6 > "$out"
echo "$out: $(du -h "$out" | cut -f1) ($(ls "$root/lib" | wc -l) libraries)"
