#!/bin/sh
# Builds tools/jolt-compare/build/jolt_compare (the side-by-side example's Jolt half) and
# jolt_bench (Jolt's side of the solver bench) against a Jolt Physics source tree (the folder
# holding `Jolt/`), with the system C++ compiler; no CMake needed. Jolt is compiled with the
# instruction sets its own CMake build enables by default on x86-64 (AVX2, FMA, F16C, LZCNT,
# TZCNT), so the bench compares against Jolt as it ships; set JOLT_ARCH to override.
# Opt-in: not part of `cargo test` or CI. About 10 minutes on 2 cores the first time (Jolt
# itself), seconds after.
#   tools/jolt-compare/build.sh /path/to/JoltPhysics
set -eu
JOLT=${1:?usage: build.sh /path/to/JoltPhysics}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/build
CXX=${CXX:-g++}
ARCH=${JOLT_ARCH:--mavx2 -mfma -mbmi -mlzcnt -mf16c -mpopcnt -msse4.2}
FLAGS="-std=c++17 -O2 -DNDEBUG $ARCH -I$JOLT"
mkdir -p "$OUT/obj"
cd "$JOLT"
find Jolt -name '*.cpp' | grep -v -e /DX12/ -e /VK/ -e /MTL/ | while read -r f; do
  o="$OUT/obj/$(echo "$f" | tr / _).o"
  [ -f "$o" ] || echo "$f $o"
done | xargs -r -n 2 -P "$(nproc)" sh -c "$CXX $FLAGS -c \"\$0\" -o \"\$1\""
for tool in jolt_compare jolt_bench; do
  $CXX $FLAGS "$HERE/$tool.cpp" "$OUT"/obj/*.o -lpthread -o "$OUT/$tool"
  echo "$OUT/$tool"
done
