/** The configurations every ranked list is answered in, and each cell's tokens in each. */
import type { Cell, Ranked } from "./cell";
import { answerTokens, tokens } from "./tokens";
import { budgeted, floorEntry, fullAnswer, ViewCache } from "./views";

/**
 * The configurations every ranked list is answered in, one rule added at a time. Each maps a
 * ranked list to the tokens of what that answer returns.
 */
export const CONFIGURATIONS: readonly { name: string; tokens: (list: Ranked, cache: ViewCache, cell: Cell) => number }[] = [
  {
    name: "full definitions + described prompt (before compact views)",
    tokens: (list, _cache, cell) => answerTokens(fullAnswer(list.ranked, list.previous, cell.defs)),
  },
  { name: "full definitions, tools only", tokens: (list, _cache, cell) => answerTokens({ tools: fullAnswer(list.ranked, list.previous, cell.defs).tools }) },
  {
    name: "branch start: compact views, prompt + tools",
    tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "start", ["tools", "prompt"])),
  },
  { name: "+ include default tools only", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "start", ["tools"])) },
  { name: "+ optional-parameters-named-only", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "named-only", ["tools"])) },
  {
    name: "+ restating-descriptions-dropped",
    tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "restating-descriptions-dropped", ["tools"])),
  },
  { name: "+ described-defaults-dropped (service default now)", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "now", ["tools"])) },
  {
    name: "  (now, with prompt: include tools + prompt)",
    tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "now", ["tools", "prompt"])),
  },
  { name: "  (now, prompt alone: eq. 4 list)", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "now", ["prompt"])) },
  {
    name: "floor: envelope + name + required types only",
    tokens: (list, _cache, cell) =>
      tokens(
        JSON.stringify(
          list.ranked.flatMap((r) => {
            const def = cell.defs.get(r.tool);
            return def === undefined ? [] : [floorEntry(def)];
          }),
        ),
      ),
  },
];
export const BEFORE = CONFIGURATIONS[0]?.name ?? "";
export const SERVICE_DEFAULT = CONFIGURATIONS.find((c) => c.name.endsWith("(service default now)"))?.name ?? "";
export const FULL_TOOLS = CONFIGURATIONS[1]?.name ?? "";

/** Every configuration's tokens for each of the cell's ranked lists. */
export function configurationTokens(cell: Cell): void {
  const cache = new ViewCache(cell.defs);
  for (const configuration of CONFIGURATIONS)
    cell.configurations.set(
      configuration.name,
      cell.rankedLists.map((list) => configuration.tokens(list, cache, cell)),
    );
}
