import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The house rule on size, checked: no function of the product (functions/, durable-objects/,
 * the console's `.tsx` views included) is longer than MAX_FUNCTION_LINES, counted from its first
 * line to its last (callbacks, methods and components included). A function that long does several jobs; split it into named steps.
 */
const MAX_FUNCTION_LINES = 80;

const root = fileURLToPath(new URL("../..", import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((path) => (path.endsWith(".ts") && !path.endsWith(".d.ts")) || path.endsWith(".tsx"))
    .map((path) => join(root, folder, path));
}

/** Every function-like node with a body in `file` that spans more than `limit` lines, as "file:line name (n lines)". */
function longFunctions(file: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const name = node.name !== undefined ? node.name.getText(source) : "(anonymous)";
      if (lines > limit) found.push(`${relative(root, file)}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("function length", () => {
  it(`no product function is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    const files = [...sourceFiles("functions"), ...sourceFiles("durable-objects")];
    expect(files.length).toBeGreaterThan(100);
    // The views are Hono JSX: a guard that they are among the files read.
    expect(files.filter((file) => file.endsWith(".tsx")).length).toBeGreaterThan(10);
    const long = files.flatMap((file) => longFunctions(file, readFileSync(file, "utf8"), MAX_FUNCTION_LINES));
    expect(long, `functions over ${MAX_FUNCTION_LINES} lines:\n  ${long.join("\n  ")}`).toEqual([]);
  });

  it("counts a function from its first line to its last, nested ones and callbacks too", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `function short() {\n${body(3)}\n}\nfunction outer() {\n  return [1].map((x) => {\n${body(6)}\n    return x;\n  });\n}\n`;
    expect(longFunctions("example.ts", text, 5)).toEqual([
      expect.stringMatching(/:6 outer \(11 lines\)$/),
      expect.stringMatching(/:7 \(anonymous\) \(9 lines\)$/),
    ]);
    expect(longFunctions("example.ts", text, 11)).toEqual([]);
  });

  it("reads a .tsx view's components as functions", () => {
    const rows = Array.from({ length: 6 }, (_, i) => `      <li>${i}</li>`).join("\n");
    const text = `export function List() {\n  return (\n    <ul>\n${rows}\n    </ul>\n  );\n}\n`;
    expect(longFunctions("view.tsx", text, 5)).toEqual([expect.stringMatching(/view\.tsx:1 List \(12 lines\)$/)]);
  });
});
