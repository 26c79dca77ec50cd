import { compareSpecificity, compilePathTemplate, type PathTemplate } from "./path-template";
import type { WorldOperation } from "./types";

/** Where a request lands inside one mount. */
export type Route =
  | { readonly kind: "operation"; readonly operation: WorldOperation; readonly params: Record<string, string> }
  | { readonly kind: "method-not-allowed"; readonly allow: readonly string[] }
  | { readonly kind: "not-found" };

interface Entry {
  readonly operation: WorldOperation;
  readonly template: PathTemplate;
}

/** Matches method + path against a mount's operations, the most literal template winning. */
export class OperationRouter {
  private readonly entries: readonly Entry[];

  constructor(operations: readonly WorldOperation[]) {
    // Most specific first, so `/movie/popular` beats `/movie/{movie_id}` whatever the document order.
    this.entries = operations
      .map((operation) => ({ operation, template: compilePathTemplate(operation.path) }))
      .sort((a, b) => compareSpecificity(b.template.specificity, a.template.specificity));
  }

  /** The operation serving `method path`, or why there is none. */
  route(method: string, path: string): Route {
    const allow = new Set<string>();
    for (const { operation, template } of this.entries) {
      const params = template.match(path);
      if (params === undefined) continue;
      if (operation.method === method) return { kind: "operation", operation, params };
      allow.add(operation.method);
    }
    return allow.size > 0 ? { kind: "method-not-allowed", allow: [...allow].sort() } : { kind: "not-found" };
  }
}
