import { dataFlowCandidates, type ProbedOutput } from "../probing";
import type { SampleValue } from "../probing/protocol";
import { ID_WORDS, isIdLike, nameWords, normalized, parameterEntity } from "../probing/vocabulary";
import type { ToolDefinition, ToolParameter } from "../tools/definition";
import { type FlowTool, GENERIC_FIELD_SHARE, isFillable, isOpaqueInput, MIN_GENERIC_PRODUCERS, sameIssuer, startRank } from "./flow-rules";
import { outputFields, samplePath } from "./output-fields";
import { OutputIndex, type OutputLookup } from "./output-index";

/**
 * Data-flow edges between tools, from what is known of their outputs: a tool whose required
 * input can be filled from a field of another tool's output follows it (`results[].id` of
 * `searchPerson` → `person_id` of `getPersonMovieCredits`), whether or not that transition was
 * ever observed. The matching itself is probing's (instance discovery's data-flow score); this
 * module is the index that finds one tool's successors and producers without scoring every pair.
 * What a tool returns (documented response schema or example, or probed samples) is
 * output-fields.ts's; which inputs may be linked, flow-rules.ts's; the blocking indexes over the
 * outputs, output-index.ts's. Callers import all of data flow from here.
 */
export { type FlowTool, flowTool, GENERIC_FIELD_SHARE, isOpaqueInput, startRank } from "./flow-rules";
export { MAX_ROUTING_SAMPLES, outputFields, schemaFields } from "./output-fields";
export { FlowSamples, OutputIndex, type OutputLookup } from "./output-index";

/** One data-flow successor: `to` takes `parameter` from `field` of the producer's output. */
export interface DataFlowLink {
  readonly to: string;
  readonly parameter: string;
  readonly field: string;
  /** Instance discovery's confidence in [0, 1]. */
  readonly score: number;
}

/** One data-flow predecessor: `from`'s output `field` fills the consumer's `parameter`. */
export interface DataFlowSource {
  readonly from: string;
  readonly parameter: string;
  readonly field: string;
  readonly score: number;
  /** `from` finds what the identifier `parameter` identifies by name: it takes only text inputs and its name or path names that entity (a search). */
  readonly byName: boolean;
}

/** A required input of a tool that another tool's output may fill. */
export interface Consumer {
  readonly tool: FlowTool;
  readonly parameter: ToolParameter;
}

/** Consumers by their input's normalised name, and (identifier inputs) by the entity words it names. */
export interface ConsumerLookup {
  readonly byName: { get(name: string): readonly Consumer[] | undefined };
  readonly byEntity: { get(word: string): readonly Consumer[] | undefined };
}

/**
 * The catalog's consumer indexes, in the tools' order and each tool's inputs' order (the order
 * offers are scored in); stored beside a big catalog's flow state (flow-samples-codec.ts), so a
 * tool's successors read only the consumers its outputs name.
 */
export function consumerIndex(tools: Iterable<FlowTool>): { byName: Map<string, Consumer[]>; byEntity: Map<string, Consumer[]> } {
  const byName = new Map<string, Consumer[]>();
  const byEntity = new Map<string, Consumer[]>();
  const add = (map: Map<string, Consumer[]>, key: string, consumer: Consumer): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [consumer]);
    else list.push(consumer);
  };
  for (const tool of tools) {
    for (const parameter of tool.parameters) {
      if (!isFillable(parameter)) continue;
      const consumer = { tool, parameter };
      add(byName, normalized(parameter.name), consumer);
      if (isIdLike(parameter.name)) for (const word of new Set(parameterEntity(tool, parameter.name))) add(byEntity, word, consumer);
    }
  }
  return { byName, byEntity };
}

/** What a data-flow index may be given, read back from storage, instead of reading every tool for it. */
export interface StoredFlowLookups {
  /** Each tool's start rank (flow-rules.ts `startRank`); undefined for a tool it does not know. */
  readonly startRank?: (tool: string) => number | undefined;
  readonly consumers?: ConsumerLookup;
}

/** Offers one output sample (its path's keys; for an id field, its owners' words) to the consumers it may fill. */
type OfferRule = (
  sample: SampleValue,
  keys: readonly string[],
  owners: ReadonlySet<string> | undefined,
  offer: (consumer: Consumer, sample: SampleValue) => void,
) => void;

/** `DataFlowIndex`'s start ranks of a producer, best first: takes text, needs nothing, needs an identifier. */
const START_RANKS = [0, 1, 2] as const;

/**
 * Data-flow successors of every tool of a tenant, computed on demand and cached per producer.
 * Rebuild (or `invalidate`) when tools change; it holds no other state. It reads tools in their
 * compact form (`flowTool`) or whole, and their outputs through `outputs`, per tool when needed;
 * an output index made while streaming the tools (or stored) may be given instead of asking every
 * tool's, and (stored) each tool's start rank and the consumer indexes, so that ordering candidates
 * and finding a tool's consumers read none but those asked about.
 */
export class DataFlowIndex<T extends FlowTool = ToolDefinition> {
  readonly #defs: ReadonlyMap<string, T>;
  readonly #outputsOf: (def: T) => readonly SampleValue[];
  /** normalized parameter name → consumers; entity word of an id parameter → consumers. */
  #consumerIndex: ConsumerLookup | undefined;
  readonly #cache = new Map<string, DataFlowLink[]>();
  readonly #producerCache = new Map<string, DataFlowSource[]>();
  readonly #lookupCache = new Map<string, readonly DataFlowSource[]>();
  readonly #feederCache = new Map<string, readonly DataFlowSource[]>();
  #outputIndex: OutputLookup | undefined;
  readonly #givenOutputIndex: OutputLookup | undefined;
  readonly #stored: StoredFlowLookups;
  /** Samples offered to candidate consumers so far (the work linking took; see DataFlowLinks.compute's budget). */
  #offers = 0;

  constructor(
    defs: ReadonlyMap<string, T>,
    outputs: (def: T) => readonly SampleValue[] = (def) => outputFields(def as unknown as ToolDefinition),
    outputIndex?: OutputLookup,
    stored: StoredFlowLookups = {},
  ) {
    this.#defs = defs;
    this.#outputsOf = outputs;
    this.#stored = stored;
    this.#givenOutputIndex = outputIndex;
    this.#outputIndex = outputIndex;
  }

  /** How many samples were offered to candidate consumers so far: the linking work done. */
  get offers(): number {
    return this.#offers;
  }

  /** Forget everything computed (tools or their outputs changed). */
  invalidate(): void {
    this.#consumerIndex = undefined;
    this.#outputIndex = this.#givenOutputIndex;
    this.#producerCache.clear();
    this.#lookupCache.clear();
    this.#feederCache.clear();
    this.#cache.clear();
  }

  /**
   * Tools whose output can fill a required input of `to`, best first: those that themselves need
   * no identifier from another tool (they can start a chain), then those that take a required
   * text input (a lookup by name), then by confidence. Cached per tool.
   */
  producers(to: string): readonly DataFlowSource[] {
    const cached = this.#producerCache.get(to);
    if (cached !== undefined) return cached;
    const sources = this.#sources(to, () => true);
    this.#producerCache.set(to, sources);
    return sources;
  }

  /**
   * The first `count` of `producers(to)` that fill an opaque input (isOpaqueInput), in the same
   * order: candidates are linked one start rank at a time (the order's first key), and the ranks
   * after the one that completes `count` are never linked. In a big API most candidates need an
   * identifier themselves (the last rank): Microsoft Graph's `/users/{user-id}/…` operations
   * all return ids a user's operations take. Cached per tool and count.
   */
  feeders(to: string, count: number): readonly DataFlowSource[] {
    const all = this.#producerCache.get(to);
    if (all !== undefined) return all.filter((s) => isOpaqueInput(s.parameter)).slice(0, count);
    const key = `${count}\u0000${to}`;
    const cached = this.#feederCache.get(key);
    if (cached !== undefined) return cached;
    const found: DataFlowSource[] = [];
    // The candidates once for every rank: in a big API they are thousands of names.
    const candidates = this.#candidates(to);
    for (const rank of START_RANKS) {
      if (found.length >= count) break;
      found.push(...this.#sources(to, (from) => this.#startRank(from) === rank, candidates).filter((s) => isOpaqueInput(s.parameter)));
    }
    const feeders = found.slice(0, count);
    this.#feederCache.set(key, feeders);
    return feeders;
  }

  /** Only tools whose outputs could name one of `to`'s required inputs are scored (blocking). */
  #candidates(to: string): ReadonlySet<string> {
    const consumer = this.#defs.get(to);
    const candidates = new Set<string>();
    if (consumer === undefined) return candidates;
    const { byLeaf, byOwner } = this.#outputs();
    for (const parameter of consumer.parameters) {
      if (!isFillable(parameter)) continue;
      for (const tool of byLeaf.get(normalized(parameter.name)) ?? []) candidates.add(tool);
      if (isIdLike(parameter.name))
        for (const word of parameterEntity(consumer, parameter.name)) for (const tool of byOwner.get(word) ?? []) candidates.add(tool);
    }
    return candidates;
  }

  /** The producers of `to` among the candidates `admit` lets through, best first. */
  #sources(to: string, admit: (from: string, consumer: T) => boolean, candidates = this.#candidates(to)): DataFlowSource[] {
    const consumer = this.#defs.get(to);
    const sources: DataFlowSource[] = [];
    if (consumer === undefined) return sources;
    for (const from of candidates) {
      if (from === to || !admit(from, consumer)) continue;
      // Another producer's whole successor list is scored only if it was asked for anyway:
      // a common owner word (`user`) names thousands of candidates in a big API. When it was, it
      // is the answer, a link into `to` or none (scoring it again took 12 ms a target at 1,200 tools).
      const known = this.#cache.get(from);
      const link = known !== undefined ? known.find((l) => l.to === to) : this.#linkTo(from, consumer);
      if (link !== undefined)
        sources.push({ from, parameter: link.parameter, field: link.field, score: link.score, byName: this.#findsByName(from, consumer, link) });
    }
    return sources.sort((a, b) => this.#startRank(a.from) - this.#startRank(b.from) || b.score - a.score || (a.from < b.from ? -1 : 1));
  }

  /**
   * `producers(to)` that find its identifier by name, in the same order, scoring only the
   * candidates that could (same server, text inputs only, a name or path word that one of `to`'s
   * inputs names): in one big API, thousands of tools return ids a consumer takes, a handful are
   * searches by name. Cached per tool.
   */
  nameLookups(to: string): readonly DataFlowSource[] {
    const cached = this.#lookupCache.get(to);
    if (cached !== undefined) return cached;
    const all = this.#producerCache.get(to);
    const lookups =
      all !== undefined ? all.filter((s) => s.byName) : this.#sources(to, (from, consumer) => this.#mayFindByName(from, consumer)).filter((s) => s.byName);
    this.#lookupCache.set(to, lookups);
    return lookups;
  }

  /** A superset of the tools `#findsByName` accepts for some link into `consumer`, decided without linking. */
  #mayFindByName(tool: string, consumer: FlowTool): boolean {
    // Rank 0 (text inputs, no identifier) is necessary: thousands of candidates are turned away unread.
    if (this.#startRank(tool) !== 0) return false;
    const def = this.#defs.get(tool);
    if (def === undefined || def.serverUrl !== consumer.serverUrl) return false;
    const required = def.parameters.filter(isFillable);
    if (required.length === 0 || !required.every((p) => !isIdLike(p.name) && (p.schema.type === undefined || p.schema.type === "string"))) return false;
    const words = new Set(nameWords(`${def.name} ${def.path}`));
    return consumer.parameters.some((p) => isFillable(p) && parameterEntity(consumer, p.name).some((word) => words.has(word)));
  }

  /** Output leaf name → producing tools; owner word of an id field (its keys, the tool's name and path) → producing tools. */
  #outputs(): OutputLookup {
    if (this.#outputIndex !== undefined) return this.#outputIndex;
    const index = new OutputIndex();
    for (const def of this.#defs.values()) index.add(def, this.#outputsOf(def));
    this.#outputIndex = index;
    return index;
  }

  /** True for a sample path whose leaf field many of the tenant's tools return (see GENERIC_FIELD_SHARE). */
  #isGenericField(): (path: string) => boolean {
    const { byLeaf } = this.#outputs();
    const limit = Math.max(MIN_GENERIC_PRODUCERS, GENERIC_FIELD_SHARE * this.#defs.size);
    return (path) => {
      return (byLeaf.get(normalized(samplePath(path).leaf))?.size ?? 0) >= limit;
    };
  }

  /**
   * True when `tool` looks `consumer`'s identifier up by name (`link`: the tool's output field
   * that fills it): the field is the same kind of identifier (`results[].id` for `person_id`, not
   * a `key` or `code` for an id; a `key` is as often a credential as a record's name), the tool is
   * of the same API (server) — an identifier is issued by its own API, another API's search
   * returns that API's ids —, all its required inputs are text that is not an identifier, and its
   * name or path names what the identifier identifies (`searchPerson` for `person_id`; a search of
   * something else that happens to return an `id` is not one).
   */
  #findsByName(tool: string, consumer: FlowTool, link: DataFlowLink): boolean {
    const def = this.#defs.get(tool);
    const kind = nameWords(link.parameter).at(-1);
    if (def === undefined || def.serverUrl !== consumer.serverUrl) return false;
    if (kind === undefined || kind === "key" || !ID_WORDS.has(kind) || nameWords(link.field).at(-1) !== kind) return false;
    const parameter = link.parameter;
    const required = def.parameters.filter(isFillable);
    if (required.length === 0 || !required.every((p) => !isIdLike(p.name) && (p.schema.type === undefined || p.schema.type === "string"))) return false;
    const words = new Set(nameWords(`${def.name} ${def.path}`));
    return parameterEntity(consumer, parameter).some((word) => words.has(word));
  }

  /** 0: needs no identifier and takes text; 1: needs nothing; 2: needs an identifier (START_RANKS). */
  #startRank(tool: string): number {
    const known = this.#stored.startRank?.(tool);
    if (known !== undefined) return known;
    const def = this.#defs.get(tool);
    return def === undefined ? 1 : startRank(def);
  }

  /** Offers from the catalog's consumer indexes: by the field's name, and for an id field by its owners' words. */
  #indexedOffers(): OfferRule {
    const { byName, byEntity } = this.#consumers();
    return (sample, keys, owners, offer) => {
      for (const consumer of byName.get(normalized(keys[keys.length - 1] ?? "")) ?? []) offer(consumer, sample);
      if (owners === undefined) return;
      for (const word of owners) for (const consumer of byEntity.get(word) ?? []) offer(consumer, sample);
    };
  }

  #consumers(): ConsumerLookup {
    this.#consumerIndex ??= this.#stored.consumers ?? consumerIndex(this.#defs.values());
    return this.#consumerIndex;
  }

  /** Tools that can take a required input from `from`'s output, best first (one link per tool). */
  successors(from: string): readonly DataFlowLink[] {
    const cached = this.#cache.get(from);
    if (cached !== undefined) return cached;
    const producer = this.#defs.get(from);
    const links = producer === undefined ? [] : this.#link(producer);
    this.#cache.set(from, links);
    return links;
  }

  /** The link from `from` into `consumer` alone: what `successors(from)` lists for it, without scoring any other consumer. */
  #linkTo(from: string, consumer: T): DataFlowLink | undefined {
    const producer = this.#defs.get(from);
    if (producer === undefined) return undefined;
    const parameters = consumer.parameters.filter(isFillable).map((parameter) => ({
      consumer: { tool: consumer, parameter },
      name: normalized(parameter.name),
      entity: isIdLike(parameter.name) ? new Set(parameterEntity(consumer, parameter.name)) : undefined,
    }));
    // The offers #link's indexes would make to this consumer's inputs, in the same order.
    return this.#link(producer, (sample, keys, owners, offer) => {
      const leaf = normalized(keys[keys.length - 1] ?? "");
      for (const p of parameters) if (p.name === leaf) offer(p.consumer, sample);
      if (owners === undefined) return;
      for (const word of owners) for (const p of parameters) if (p.entity?.has(word)) offer(p.consumer, sample);
    })[0];
  }

  /**
   * Every consumer's best link from `producer`. Blocking: only consumers named like a field, or
   * (for id fields) whose entity is a word of the field's owners or of the producer's name and
   * path, are scored; `offers` replaces the whole catalog's indexes by one consumer's inputs.
   */
  #link(producer: T, offers: OfferRule = this.#indexedOffers()): DataFlowLink[] {
    const samples = this.#outputsOf(producer);
    if (samples.length === 0) return [];
    const producerWords = new Set(nameWords(`${producer.name} ${producer.path}`));
    // Each candidate consumer is scored on the samples that named it only.
    const candidates = new Map<Consumer, SampleValue[]>();
    const offer = (consumer: Consumer, sample: SampleValue): void => {
      this.#offers += 1;
      const list = candidates.get(consumer);
      if (list === undefined) candidates.set(consumer, [sample]);
      else if (list[list.length - 1] !== sample) list.push(sample);
    };
    for (const sample of samples) {
      const { keys, isId } = samplePath(sample.path);
      offers(sample, keys, isId ? new Set([...producerWords, ...keys.flatMap((key) => nameWords(key))]) : undefined, offer);
    }
    const inputs = producer.parameters.map((p) => p.name);
    const best = new Map<string, DataFlowLink>();
    const generic = this.#isGenericField();
    for (const [{ tool, parameter }, rawOffered] of candidates) {
      if (tool.name === producer.name || !sameIssuer(producer, tool, parameter.name)) continue;
      const offered = isIdLike(parameter.name) ? rawOffered : rawOffered.filter((sample) => !generic(sample.path));
      if (offered.length === 0) continue;
      const output: ProbedOutput = { tool: producer.name, path: producer.path, inputs, samples: offered };
      const top = dataFlowCandidates(tool, parameter, [output])[0];
      if (top?.from === undefined) continue;
      const known = best.get(tool.name);
      if (known === undefined || top.score > known.score) {
        best.set(tool.name, { to: tool.name, parameter: parameter.name, field: top.from.path.replace(/\[0\]/g, "[]"), score: top.score });
      }
    }
    return [...best.values()].sort((a, b) => b.score - a.score || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  }
}
