// Runs the Khronos glTF validator on one file and prints its report as JSON (every message,
// errors, warnings, infos and hints): tests/tools/rigged.rs reads it.
import { readFile } from "node:fs/promises";
import validator from "gltf-validator";

const path = process.argv[2];
if (!path) {
  console.error("usage: node validate.mjs FILE.glb");
  process.exit(2);
}
const bytes = new Uint8Array(await readFile(path));
const report = await validator.validateBytes(bytes, {
  uri: path,
  maxIssues: 0,
  writeTimestamp: false,
});
console.log(JSON.stringify(report, null, 2));
