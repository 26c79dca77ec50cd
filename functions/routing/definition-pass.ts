import type { SampleValue } from "../probing/protocol";
import { FlowSamples, flowTool, outputFields, type FlowTool } from "../toolnet/data-flow";
import type { FlowState } from "../toolnet/flow-samples-codec";
import type { ToolDoc } from "../toolnet/retrieval";
import type { ToolDefinition } from "../tools/definition";
import type { RoutingHints, StateSources } from "./routing-state";

/**
 * Routing's preparation after a catalog change, read a piece at a time (issue 42). Making data
 * flow reads every tool's compact form and every definition's outputs; an index rebuilt reads
 * every definition too. Done in one call that held the tenant object for 15 s with Microsoft
 * Graph, every request to it (and locally to every object) waiting. Here one pass over the
 * definitions, in name order, parses a piece whose size is known before it is parsed
 * (PREPARATION_PIECE_CHARS of stored JSON), and keeps what both need: each tool's offerable
 * output samples and, when the index must be made, its document. Between pieces the object is
 * handed back; routes meanwhile use the last good state (last-good-flow.ts).
 */

/** Stored definition JSON parsed per piece: ≈ 1 MB parses and is read for outputs in ≈ 10–30 ms. */
export const PREPARATION_PIECE_CHARS = 1_000_000;

type PassRows = Pick<StateSources["catalog"], "flowRows" | "definitionTextsAfter">;

export class DefinitionPass {
  readonly #rows: PassRows;
  readonly #names: ReadonlySet<string>;
  readonly #hints: ReadonlyMap<string, RoutingHints>;
  readonly #documentOf: ((def: ToolDefinition) => ToolDoc) | undefined;
  readonly #pieceChars: number;
  readonly #tools = new Map<string, FlowTool>();
  readonly #samples = new Map<string, SampleValue[]>();
  /** Each tool's index document, when the pass was asked to make them. */
  readonly documents: Map<string, ToolDoc> | undefined;
  #offerable: FlowSamples | undefined;
  #after = "";
  #done = false;

  /** `documentOf`: make each tool's index document too (the index is not in memory and may have to be rebuilt). */
  constructor(
    rows: PassRows,
    names: ReadonlySet<string>,
    hints: ReadonlyMap<string, RoutingHints>,
    documentOf: ((def: ToolDefinition) => ToolDoc) | undefined,
    pieceChars = PREPARATION_PIECE_CHARS,
  ) {
    this.#rows = rows;
    this.#names = names;
    this.#hints = hints;
    this.#documentOf = documentOf;
    this.#pieceChars = pieceChars;
    this.documents = documentOf === undefined ? undefined : new Map();
  }

  /** Reads the next piece: true when the pass is over (every definition read). */
  step(): boolean {
    if (this.#done) return true;
    if (this.#offerable === undefined) {
      // First piece: the compact forms, read by SQLite out of the stored JSON (no definition parsed here).
      for (const row of this.#rows.flowRows()) if (this.#names.has(row.name)) this.#tools.set(row.name, flowTool(row));
      this.#offerable = new FlowSamples(this.#tools.values());
      return false;
    }
    const piece = this.#rows.definitionTextsAfter(this.#after, this.#pieceChars);
    if (piece.length === 0) {
      this.#done = true;
      return true;
    }
    for (const { name, text } of piece) {
      this.#after = name;
      if (this.#names.has(name)) this.#read(this.#offerable, JSON.parse(text) as ToolDefinition);
    }
    return false;
  }

  #read(offerable: FlowSamples, def: ToolDefinition): void {
    const kept = offerable.offerable(outputFields(def, this.#hints.get(def.name)?.outputs));
    if (kept.length > 0) this.#samples.set(def.name, kept);
    if (this.#documentOf !== undefined) this.documents?.set(def.name, this.#documentOf(def));
  }

  /** What data flow's per-request index and its table are made of (loaded-data-flow.ts), once the pass is over. */
  flowState(): FlowState {
    return { tools: this.#tools, samples: this.#samples };
  }
}
