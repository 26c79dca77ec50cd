// The service's module graph from its static imports (`import … from`, `import type`,
// `export … from`), parsed with the TypeScript compiler and resolved like the bundler does for
// relative paths. Used by scripts/import-cycles.mjs and test/unit/architecture.unit.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** The folders whose modules make up the service (the Worker and its Durable Objects). */
export const SOURCE_ROOTS = ["functions", "durable-objects"];

const SOURCE_FILE = /\.(ts|tsx|mts|mjs|js)$/;
const DECLARATION_FILE = /\.d\.(ts|mts)$/;
/** Build outputs (gitignored) and browser scripts bundled separately are not the Worker's modules. */
const SKIPPED_FOLDERS = new Set(["generated", "client", "node_modules"]);
const RESOLVE_SUFFIXES = ["", ".ts", ".tsx", ".mts", ".mjs", ".js", "/index.ts", "/index.tsx"];

function listSources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : listSources(path);
    return SOURCE_FILE.test(entry.name) && !DECLARATION_FILE.test(entry.name) ? [path] : [];
  });
}

/** Whole-declaration type imports (`import type …`, `export type … from`): gone at run time. */
function typeOnly(statement) {
  return ts.isImportDeclaration(statement) ? statement.importClause?.isTypeOnly === true : statement.isTypeOnly;
}

/** Module specifiers of a file's top-level import and export-from declarations. */
function specifiersOf(path, typeImports) {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, false);
  const specifiers = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    if (statement.moduleSpecifier === undefined || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (typeImports || !typeOnly(statement)) specifiers.push(statement.moduleSpecifier.text);
  }
  return specifiers;
}

function resolveRelative(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier);
  // `./x.js` written for a TypeScript module `./x.ts`
  const candidates = [...RESOLVE_SUFFIXES.map((suffix) => base + suffix), base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx")];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

const toPosix = (path) => path.split(sep).join("/");

/**
 * Every source module under the roots (paths relative to `root`, with `/`) and the modules it
 * imports among them. Package imports and files outside the roots are left out. Type imports
 * count unless `typeImports` is false (a type import ties the modules' code together too).
 */
export function importGraph(root, { roots = SOURCE_ROOTS, typeImports = true } = {}) {
  const files = roots.flatMap((folder) => listSources(resolve(root, folder)));
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const targets = new Set();
    for (const specifier of specifiersOf(file, typeImports)) {
      if (!specifier.startsWith(".")) continue;
      const target = resolveRelative(file, specifier);
      if (target !== undefined && known.has(target)) targets.add(toPosix(relative(root, target)));
    }
    graph.set(toPosix(relative(root, file)), [...targets].sort());
  }
  return graph;
}

/** The folder a module belongs to: `functions/<folder>`, `functions` for the root files, or its top folder. */
export function folderOf(file) {
  const parts = file.split("/");
  if (parts[0] === "functions") return parts.length > 2 ? `functions/${parts[1]}` : "functions";
  return parts[0];
}

/** Strongly connected components with more than one module (Tarjan), each sorted, largest first. */
export function importCycles(graph) {
  let counter = 0;
  const index = new Map();
  const lowlink = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  // Iterative, so a long import chain cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [{ node: start, next: 0 }];
    index.set(start, counter);
    lowlink.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = graph.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (!index.has(target)) {
          index.set(target, counter);
          lowlink.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          lowlink.set(frame.node, Math.min(lowlink.get(frame.node), index.get(target)));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) lowlink.set(parent.node, Math.min(lowlink.get(parent.node), lowlink.get(frame.node)));
      if (lowlink.get(frame.node) === index.get(frame.node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) components.push(component.sort());
      }
    }
  }
  return components.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

/** Cycles whose modules live in more than one folder, with those folders. */
export function crossFolderCycles(graph) {
  return importCycles(graph)
    .map((files) => ({ files, folders: [...new Set(files.map(folderOf))].sort() }))
    .filter((cycle) => cycle.folders.length > 1);
}

/** One shortest loop through `file` inside its component, e.g. [a, b, c, a], to show how a cycle closes. */
export function loopThrough(graph, file, component) {
  const inside = new Set(component);
  const previous = new Map([[file, undefined]]);
  const queue = [file];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (!inside.has(target)) continue;
      if (target === file) {
        const path = [file];
        for (let at = node; at !== file; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, file];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [file];
}
