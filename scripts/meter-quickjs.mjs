// Meters the QuickJS wasm so that no work inside it can escape the host: every function entry
// and every loop header spends one unit of fuel from a wasm global, and when the fuel runs out
// the wasm calls the host's `atc.refuel(fuelLeft)`, which counts what was spent, returns the next
// allowance or throws to stop the program. Bulk memory instructions (memory.copy / memory.fill:
// one instruction however many bytes) are routed through one function each, which charges one
// unit per 64 bytes before doing the copy. QuickJS's own interrupt
// handler only runs on bytecode jumps and calls; this also reaches the work inside one built-in
// call (repeat, join, JSON.stringify, sort, regex, string concatenation, the GC).
//
// Written by scripts/build-sandbox.mjs; skipped when neither the input wasm nor this file changed.
import binaryen from "binaryen";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The import the metered wasm calls: module "atc", field "refuel", (fuel left, ≤ 0) -> the next allowance. */
export const REFUEL_IMPORT = { module: "atc", name: "refuel" };

const FEATURES =
  binaryen.Features.MVP |
  binaryen.Features.MutableGlobals |
  binaryen.Features.SignExt |
  binaryen.Features.NontrappingFPToInt |
  binaryen.Features.BulkMemory |
  binaryen.Features.BulkMemoryOpt;

/** Metered copy of the wasm at `input`, written to every path in `outputs`. */
export function meterQuickJs(input, outputs) {
  const bytes = readFileSync(input);
  const sha = (data) => createHash("sha256").update(data).digest("hex");
  const source = sha(Buffer.concat([bytes, readFileSync(fileURLToPath(import.meta.url))]));
  // The stamp names the input and the output it gave; anything else (an output overwritten by
  // another build) is metered again.
  const stampFile = `${outputs[0]}.stamp`;
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, "utf8").split("\n") : [];
  if (stamp[0] === source && outputs.every((o) => existsSync(o) && sha(readFileSync(o)) === stamp[1])) return;

  const module = binaryen.readBinary(bytes);
  try {
    module.setFeatures(FEATURES);
    // Every loop header and function entry gets a call to `log_execution` (binaryen's own
    // instrumentation), replaced below by the fuel check. Then every memory.copy / memory.fill
    // becomes a call to one function (binaryen's lowering pass), whose body is replaced below by
    // a charge by size and the bulk instruction itself.
    module.runPasses(["log-execution", "llvm-memory-copy-fill-lowering"]);
    // The lowering pass switches bulk memory off; the replacements below use it again.
    module.setFeatures(FEATURES);
    module.addGlobal("atc_fuel", binaryen.i32, true, module.i32.const(0));
    module.addFunctionImport("atc_refuel", REFUEL_IMPORT.module, REFUEL_IMPORT.name, binaryen.i32, binaryen.i32);
    const fuel = () => module.global.get("atc_fuel", binaryen.i32);
    const spend = (units) =>
      module.block(null, [
        module.global.set("atc_fuel", module.i32.sub(fuel(), units)),
        module.if(module.i32.le_s(fuel(), module.i32.const(0)), module.global.set("atc_fuel", module.call("atc_refuel", [fuel()], binaryen.i32))),
      ]);
    const replace = (name, params, body) => {
      module.removeFunction(name);
      module.addFunction(name, binaryen.createType(params), binaryen.none, [], body);
    };
    const i32 = binaryen.i32;
    const local = (index) => module.local.get(index, i32);
    const bySize = (size) => module.i32.add(module.i32.shr_u(size, module.i32.const(6)), module.i32.const(1));
    replace("log_execution", [i32], spend(module.i32.const(1)));
    replace("__memory_copy", [i32, i32, i32], module.block(null, [spend(bySize(local(2))), module.memory.copy(local(0), local(1), local(2))]));
    replace("__memory_fill", [i32, i32, i32], module.block(null, [spend(bySize(local(2))), module.memory.fill(local(0), local(1), local(2))]));
    // Inline the check into every call site: a global decrement and a branch, no call.
    binaryen.setAlwaysInlineMaxSize(30);
    module.runPasses(["inlining"]);
    if (!module.validate()) throw new Error("the metered QuickJS wasm does not validate");
    const metered = module.emitBinary();
    for (const output of outputs) writeFileSync(output, metered);
    writeFileSync(stampFile, `${source}\n${sha(metered)}`);
  } finally {
    module.dispose();
  }
}
