import type { SampleValue } from "../probing/protocol";
import { nameWords, normalized } from "../probing/vocabulary";
import { type FlowTool, isFillable } from "./flow-rules";
import { samplePath } from "./output-fields";

/**
 * The outputs data flow blocks on (data-flow.ts): which tools return which fields (OutputIndex),
 * and which of a tool's output samples can ever be offered to a consumer (FlowSamples).
 */

/** Tools named by one key of an output index: counted without reading them, read in order. */
export interface ToolNames extends Iterable<string> {
  readonly size: number;
}

/**
 * What data flow reads of an output index: the producers of a leaf, or of an owner word. Made
 * in memory (OutputIndex), or read key by key out of a stored flow state (stored-flow-state.ts),
 * so that a cold route of a big catalog does not make it from every tool's samples.
 */
export interface OutputLookup {
  readonly byLeaf: { get(leaf: string): ToolNames | undefined };
  readonly byOwner: { get(word: string): ToolNames | undefined };
}

/**
 * Which tools return what, for blocking: output leaf name → producing tools; owner word of an id
 * field (its keys, the tool's name and path) → producing tools. Filled one tool at a time, so its
 * maker need not hold every tool's outputs (or definition) at once.
 */
export class OutputIndex implements OutputLookup {
  readonly byLeaf = new Map<string, Set<string>>();
  readonly byOwner = new Map<string, Set<string>>();
  /**
   * Each distinct sample path read once: one API's operations share their paths (Microsoft Graph's
   * `value[0].id` is nearly everyone's), and splitting them into words again for every tool was
   * most of a cold Graph route's data-flow load.
   */
  readonly #paths = new Map<string, ReadPath>();

  /** The index over each tool's kept samples (a tool not in `tools` is left out). */
  static over(tools: ReadonlyMap<string, FlowTool>, samples: ReadonlyMap<string, readonly SampleValue[]>): OutputIndex {
    const index = new OutputIndex();
    for (const [name, kept] of samples) {
      const tool = tools.get(name);
      if (tool !== undefined) index.add(tool, kept);
    }
    return index;
  }

  add(tool: Pick<FlowTool, "name" | "path">, samples: readonly SampleValue[]): void {
    let toolWords: readonly string[] | undefined;
    // A tool's owner words once, however many of its id fields name them (the sets are the same).
    const owners = new Set<string>();
    for (const sample of samples) {
      const { leaf, keyWords } = this.#read(sample.path);
      addTo(this.byLeaf, leaf, tool.name);
      if (keyWords === undefined) continue;
      toolWords ??= nameWords(`${tool.name} ${tool.path}`);
      for (const word of toolWords) owners.add(word);
      for (const word of keyWords) owners.add(word);
    }
    for (const word of owners) addTo(this.byOwner, word, tool.name);
  }

  #read(path: string): ReadPath {
    let read = this.#paths.get(path);
    if (read === undefined) {
      const { keys, leaf, isId } = samplePath(path);
      read = { leaf: normalized(leaf), keyWords: isId ? keys.flatMap((key) => nameWords(key)) : undefined };
      this.#paths.set(path, read);
    }
    return read;
  }
}

/** A sample path as the index reads it: its leaf, normalised; for an id field, its keys' words. */
interface ReadPath {
  leaf: string;
  keyWords: readonly string[] | undefined;
}

function addTo(map: Map<string, Set<string>>, key: string, tool: string): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([tool]));
  else set.add(tool);
}

/**
 * The output samples data flow can ever offer, per tool: those whose field is named like some
 * tool's required input, and identifier fields (offered by their owners' words). The others are
 * never offered to a consumer (see DataFlowIndex `#link`), so a tool's links are the same from
 * these alone. Equal samples are shared between tools (Graph's `value[0].id` is everyone's).
 */
export class FlowSamples {
  readonly #inputNames = new Set<string>();
  readonly #shared = new Map<string, SampleValue>();

  constructor(tools: Iterable<FlowTool>) {
    for (const tool of tools) for (const p of tool.parameters) if (isFillable(p)) this.#inputNames.add(normalized(p.name));
  }

  /** The samples of `samples` that can be offered, each once. */
  offerable(samples: readonly SampleValue[]): SampleValue[] {
    const kept = new Set<SampleValue>();
    for (const sample of samples) {
      const { leaf, isId } = samplePath(sample.path);
      if (!isId && !this.#inputNames.has(normalized(leaf))) continue;
      const key = `${sample.path}\u0000${typeof sample.value}:${String(sample.value)}`;
      let shared = this.#shared.get(key);
      if (shared === undefined) this.#shared.set(key, (shared = sample));
      kept.add(shared);
    }
    return [...kept];
  }
}
