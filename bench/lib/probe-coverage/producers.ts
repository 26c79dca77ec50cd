/** Which tools' documented results can feed a parameter, the keys that would hold its value, and the helpers' call order. */
import { entityOf, isIdLike, words } from "./plausible-values";
import type { ParamSig, ToolSig } from "./prompt-signatures";

export interface Producer {
  sig: ToolSig;
  variable: string;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * How well a tool's documented result provides `param` (of a tool at `operation`): 4 the very
 * field, 3 a nested `networks: { id }`, 2 the entity's own tool with an `id`, 1 the entity's own
 * tool whose result type says nothing (`string`, `unknown`); 0 when it cannot, or needs the same
 * value itself.
 */
export function produces(producer: ToolSig, param: ParamSig, operation: string): number {
  const entity = entityOf(param.name, operation);
  if (producer.params.some((p) => p.required && p.name === param.name && isIdLike(p.name) && entityOf(p.name, producer.operation) === entity)) return 0;
  if (new RegExp(`\\b${escapeRegExp(param.name)}\\??:`).test(producer.returns)) return 4;
  if (!isIdLike(param.name) || entity === undefined) return 0;
  const plain = entity.replace(/_/g, "");
  if (new RegExp(`\\b(${escapeRegExp(entity)}|${escapeRegExp(plain)})e?s?\\??: \\{[^{}]*?\\bid\\??:`).test(producer.returns)) return 3;
  const about = words(`${producer.name} ${producer.operation}`).join(" ").includes(entity.replace(/_/g, " "));
  if (about && /\bid\??:/.test(producer.returns)) return 2;
  // The entity's own tool with no usable result type: worth a try, its items most likely carry an id.
  if (about && /^(string|unknown\b)/.test(producer.returns.trim())) return 1;
  return 0;
}

/** Keys that would hold a value for `param`, in the order a model would try them. */
export function keysFor(param: ParamSig, entity: string | undefined): string[] {
  const keys = [param.name];
  if (entity !== undefined && isIdLike(param.name)) {
    const plain = entity.replace(/_/g, "");
    keys.push(`${entity}_id`, `${entity.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}Id`, `${plain}s>id`, `${plain}es>id`, `${plain}>id`, "id");
  }
  return [...new Set(keys)];
}

/** Whether a producer's result is a list of `entity` (its path ends in it), so a bare root `id` is someone else's. */
export function listsEntity(sig: ToolSig, entity: string | undefined): boolean {
  // Only a sub-resource (`/movie/{movie_id}/reviews`) has someone else's id at its root.
  if (entity === undefined || !sig.operation.includes("{")) return false;
  const last = sig.operation
    .replace(/^\S+\s+/, "")
    .split("/")
    .filter((s) => s !== "" && !s.startsWith("{"))
    .pop();
  return last !== undefined && words(last).join("_") === entity;
}

/** Helpers in call order: each after the helpers that can feed its own required identifiers. */
export function callOrder(helpers: readonly ToolSig[]): ToolSig[] {
  const ordered: ToolSig[] = [];
  const pending = [...helpers];
  const unmet = (h: ToolSig, from: readonly ToolSig[]) =>
    h.params.filter((p) => p.required && isIdLike(p.name) && !from.some((o) => produces(o, p, h.operation) > 0)).length;
  while (pending.length > 0) {
    let at = pending.findIndex((h) => unmet(h, ordered) === 0);
    if (at === -1) at = pending.map((h) => unmet(h, ordered)).reduce((best, n, i, all) => (n < (all[best] ?? Infinity) ? i : best), 0);
    ordered.push(...pending.splice(at, 1));
  }
  return ordered;
}
