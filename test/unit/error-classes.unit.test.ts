import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The house has one error model: domain code fails with `Failure` (or returns an `Outcome`) with a
 * declared code (functions/common/failures.ts). An `Error` subclass of its own is kept only where
 * something must unwind (a sandbox, a run), at most MAX_EXPORTED_ERROR_CLASSES exported in all,
 * each with a comment saying why it must be an Error. This test keeps the house so.
 */
const MAX_EXPORTED_ERROR_CLASSES = 3;

const root = fileURLToPath(new URL("../..", import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((path) => (path.endsWith(".ts") && !path.endsWith(".d.ts")) || path.endsWith(".tsx"))
    .map((path) => join(root, folder, path));
}

interface ErrorClass {
  where: string;
  name: string;
  exported: boolean;
  documented: boolean;
}

/** Names a class extends: `extends Error`, `extends TypeError`, `extends SomeOtherClass`. */
function superName(node: ts.ClassDeclaration, source: ts.SourceFile): string | undefined {
  const clause = node.heritageClauses?.find((c) => c.token === ts.SyntaxKind.ExtendsKeyword);
  return clause?.types[0]?.expression.getText(source);
}

/** Every class declared in `text`, with what it extends and whether the module exports it. */
function classesOf(file: string, text: string): (ErrorClass & { extends: string | undefined })[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const exportedNames = new Set<string>();
  const classes: (ErrorClass & { extends: string | undefined })[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isExportDeclaration(node) && node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.moduleSpecifier === undefined) {
      for (const element of node.exportClause.elements) exportedNames.add((element.propertyName ?? element.name).text);
    }
    if (ts.isClassDeclaration(node) && node.name !== undefined) {
      const exported = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      classes.push({
        where: `${relative(root, file)}:${line}`,
        name: node.name.text,
        exported,
        documented: (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).length > 0,
        extends: superName(node, source),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return classes.map((c) => (exportedNames.has(c.name) ? { ...c, exported: true } : c));
}

/** The classes that are errors: they extend a built-in error, or a class of the product that does. */
function errorClasses(files: { file: string; text: string }[]): ErrorClass[] {
  const all = files.flatMap(({ file, text }) => classesOf(file, text));
  const errorNames = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const c of all) {
      const base = c.extends;
      if (base === undefined || errorNames.has(c.name)) continue;
      if (/(^|\.)\w*Error$/.test(base) || base === "ErrorCtor" || errorNames.has(base)) {
        errorNames.add(c.name);
        grew = true;
      }
    }
  }
  return all.filter((c) => errorNames.has(c.name));
}

describe("error classes", () => {
  const files = [...sourceFiles("functions"), ...sourceFiles("durable-objects")].map((file) => ({ file, text: readFileSync(file, "utf8") }));

  it(`at most ${MAX_EXPORTED_ERROR_CLASSES} exported Error subclasses in functions/ and durable-objects/`, () => {
    expect(files.length).toBeGreaterThan(100);
    const exported = errorClasses(files).filter((c) => c.exported);
    const list = exported.map((c) => `${c.where} ${c.name}`).join("\n  ");
    expect(exported.length, `exported Error subclasses:\n  ${list}`).toBeLessThanOrEqual(MAX_EXPORTED_ERROR_CLASSES);
  });

  it("each exported Error subclass says why it must be an Error", () => {
    const undocumented = errorClasses(files).filter((c) => c.exported && !c.documented);
    expect(undocumented.map((c) => `${c.where} ${c.name}`)).toEqual([]);
  });

  it("finds error classes however they extend Error, exported directly or later", () => {
    const text = [
      "export class A extends Error {}",
      "class B extends TypeError {}",
      "export { B };",
      "/** why */",
      "export class C extends A {}",
      "class D extends Error {}",
      "export class E {}",
    ].join("\n");
    const found = errorClasses([{ file: join(root, "example.ts"), text }]);
    expect(found.map((c) => [c.name, c.exported, c.documented])).toEqual([
      ["A", true, false],
      ["B", true, false],
      ["C", true, true],
      ["D", false, false],
    ]);
  });
});
