import { readFileSync } from "node:fs";
import ts from "typescript";

/**
 * The tenant object's RPC surface as functions/tenant-api/ declares it, read from the source with
 * the TypeScript parser: per store, the method names its face interface picks
 * (`interface RegistryFace extends Pick<TenantRegistry, "authenticate" | …> {}`), the
 * operations `TenantSurface` declares besides the store getters, and the object's admission
 * (`TenantAdmission`). Tests compare what RPC reaches and the docs' table with this, so the
 * declaration is the one list.
 */
export interface DeclaredSurface {
  stores: Record<string, string[]>;
  operations: string[];
  admission: string[];
}

function interfacesOf(path: string): Map<string, ts.InterfaceDeclaration> {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const found = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) found.set(node.name.text, node);
  });
  return found;
}

/** The string literals of `Pick<Store, "a" | "b">` in an interface's heritage clause. */
function pickedNames(declaration: ts.InterfaceDeclaration): string[] {
  const pick = declaration.heritageClauses?.[0]?.types[0];
  const keys = pick?.typeArguments?.[1];
  if (pick === undefined || pick.expression.getText() !== "Pick" || keys === undefined) {
    throw new Error(`${declaration.name.text} is not declared as Pick<Store, names>`);
  }
  const literals = ts.isUnionTypeNode(keys) ? keys.types : [keys];
  return literals.map((literal) => {
    if (!ts.isLiteralTypeNode(literal) || !ts.isStringLiteral(literal.literal)) throw new Error(`${declaration.name.text}: not a method name`);
    return literal.literal.text;
  });
}

function memberNames(declaration: ts.InterfaceDeclaration): [string, ts.TypeElement][] {
  return declaration.members.map((member) => [member.name?.getText() ?? "", member]);
}

export function declaredSurface(root = "."): DeclaredSurface {
  const faces = interfacesOf(`${root}/functions/tenant-api/store-faces.ts`);
  const storeFaces = faces.get("StoreFaces");
  if (storeFaces === undefined) throw new Error("no StoreFaces interface");
  const stores = Object.fromEntries(
    memberNames(storeFaces).map(([store, member]) => {
      const faceName = ts.isPropertySignature(member) ? member.type?.getText() : undefined;
      const face = faceName === undefined ? undefined : faces.get(faceName);
      if (face === undefined) throw new Error(`store ${store}: no face interface ${faceName}`);
      return [store, pickedNames(face)];
    }),
  );
  const api = interfacesOf(`${root}/functions/tenant-api/tenant-api.ts`);
  const surface = api.get("TenantSurface");
  if (surface === undefined) throw new Error("no TenantSurface interface");
  const admission = api.get("TenantAdmission");
  if (admission === undefined) throw new Error("no TenantAdmission interface");
  return { stores, operations: memberNames(surface).map(([name]) => name), admission: memberNames(admission).map(([name]) => name) };
}
