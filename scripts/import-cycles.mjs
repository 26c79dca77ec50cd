// Prints the import cycles among the service's modules (functions/, durable-objects/): each
// strongly connected component of the import graph with its file count, folders and one loop,
// first counting type imports, then run-time imports only. `node scripts/import-cycles.mjs [dir]`
// (dir: a checkout, default the current directory). Exits 0; it reports, the architecture test judges.
import { resolve } from "node:path";
import { crossFolderCycles, folderOf, importCycles, importGraph, loopThrough } from "./import-graph.mjs";

const root = resolve(process.argv[2] ?? ".");

for (const typeImports of [true, false]) {
  const graph = importGraph(root, { typeImports });
  const cycles = importCycles(graph);
  const across = crossFolderCycles(graph);
  const inCycles = cycles.reduce((sum, files) => sum + files.length, 0);
  const acrossFiles = across.reduce((sum, cycle) => sum + cycle.files.length, 0);
  console.log(`\n== ${typeImports ? "all imports (type imports included)" : "run-time imports only (import type left out)"}`);
  console.log(`${graph.size} modules; ${cycles.length} import cycles holding ${inCycles} files; ${across.length} across folders holding ${acrossFiles} files`);
  for (const files of cycles) {
    const folders = [...new Set(files.map(folderOf))].sort();
    console.log(`\n${files.length} files, ${folders.length > 1 ? "across" : "within"} ${folders.join(", ")}`);
    console.log(`  e.g. ${loopThrough(graph, files[0], files).join(" → ")}`);
    for (const file of files) console.log(`  ${file}`);
  }
}
