import { collectIdentifiers, isIdentifierName } from "./identifiers";
import { templateParams } from "./path-template";
import type { SeedRule, WorldOperation } from "./types";

/**
 * The seed rule. An entry operation needs no identifier (search, list, discover, trending…), and
 * its documented example is what it always answers, so any caller could have obtained those ids;
 * seeding them keeps a chain working when a Worker isolate was recycled between two calls.
 * Identifiers that only deeper operations hand out (credit ids, review ids…) still must be
 * obtained first. A mount's record set (`recordIds`) is searchable by name, so its ids count as
 * obtainable in the same way.
 */
export function seedIdentifiers(operations: readonly WorldOperation[], rule: SeedRule, recordIds: readonly string[] = []): string[] {
  if (rule === "none") return [];
  const seeds = new Set<string>(recordIds);
  for (const op of operations) {
    if (op.body.kind !== "example") continue;
    if (templateParams(op.path).some(isIdentifierName)) continue;
    collectIdentifiers(op.body.value, seeds);
  }
  return [...seeds].sort();
}
