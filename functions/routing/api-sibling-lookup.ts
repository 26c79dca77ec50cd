import { MAX_SIBLINGS } from "../toolnet/api-siblings";
import type { StateSources } from "./routing-state";

/** What the lookup reads of the registry. */
type SiblingRows = Pick<StateSources["catalog"], "apiSiblingsOf" | "anyApiSiblings">;

/**
 * Same-API siblings (api-siblings.ts) read tool by tool, for a route that needs those of the few
 * dozen tools it ranks: making every tool's (ApiFamilies) reads every tool's server URL, which grows
 * with the catalog and was 40 % of a cold first step at 10,000 tools. Answers are those of
 * `apiSiblings` over every tool (same grouping by server URL, same bound, same order), kept for the
 * state's lifetime: a change of the tools makes a new state's lookup (loaded-routing.ts).
 */
export class ApiSiblingLookup {
  readonly #rows: SiblingRows;
  readonly #known = new Map<string, readonly string[]>();
  #any: boolean | undefined;

  constructor(rows: SiblingRows) {
    this.#rows = rows;
  }

  /** Whether any tool has siblings (when none, a search weighs no API evidence). */
  any(): boolean {
    this.#any ??= this.#rows.anyApiSiblings(MAX_SIBLINGS);
    return this.#any;
  }

  /** The other operations of `tool`'s API; empty when it is alone or its API is too big. */
  of(tool: string): readonly string[] {
    let siblings = this.#known.get(tool);
    if (siblings === undefined) {
      siblings = this.any() ? this.#rows.apiSiblingsOf(tool, MAX_SIBLINGS) : [];
      this.#known.set(tool, siblings);
    }
    return siblings;
  }
}
