#!/bin/sh
# Builds tools/jolt-compare/build/jolt_compare against a Jolt Physics source tree (the folder
# holding `Jolt/`), with the system C++ compiler; no CMake needed. Opt-in: not part of
# `cargo test` or CI. About 10 minutes on 2 cores the first time (Jolt itself), seconds after.
#   tools/jolt-compare/build.sh /path/to/JoltPhysics
set -eu
JOLT=${1:?usage: build.sh /path/to/JoltPhysics}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/build
CXX=${CXX:-g++}
FLAGS="-std=c++17 -O2 -DNDEBUG -I$JOLT"
mkdir -p "$OUT/obj"
cd "$JOLT"
find Jolt -name '*.cpp' | while read -r f; do
  o="$OUT/obj/$(echo "$f" | tr / _).o"
  [ -f "$o" ] || echo "$f $o"
done | xargs -r -n 2 -P "$(nproc)" sh -c "$CXX $FLAGS -c \"\$0\" -o \"\$1\""
$CXX $FLAGS "$HERE/jolt_compare.cpp" "$OUT"/obj/*.o -lpthread -o "$OUT/jolt_compare"
echo "$OUT/jolt_compare"
