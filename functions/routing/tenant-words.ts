import { attributeRequest, type EvidenceKind } from "../toolnet/learned-attribution";
import { exampleWords } from "../toolnet/learned-examples";
import { LEARNING_SETTING, learningSettingsOf } from "../toolnet/implicit-learning-settings";
import type { Ranked } from "../toolnet/retrieval";
import type { TenantSettings } from "../storage/tenant-settings";
import { LearnedWords, type LearnedWordsView } from "./learned-words";
import type { Loaded } from "./loaded-routing";

/**
 * Each tool's learned field as the routing store wires it in (learned-words.ts keeps the field):
 * what a request teaches the tools that served it, and the field's ranking for a task at the
 * weight this tenant's learning setting gives it.
 */
export class TenantWords {
  readonly #words: LearnedWords;
  readonly #settings: TenantSettings;
  /** The learned field's weight as last parsed, by the stored setting's text. */
  #fieldWeight: { json: string | undefined; weight: number } | undefined;

  /** `changed` runs after every change of the field: rankings remembered for tasks no longer hold. */
  constructor(sql: SqlStorage, settings: TenantSettings, changed: () => void) {
    this.#words = new LearnedWords(sql, changed);
    this.#settings = settings;
  }

  /** `source` (a conversation, a trajectory) shows that `task` needed `tools`: each tool learns its part of the task's words (learned-attribution.ts). */
  learn(state: Loaded, source: string, task: string, tools: readonly string[], kind: EvidenceKind, failed?: ReadonlySet<string>): void {
    const known = tools.filter((tool) => state.defs.has(tool));
    if (known.length === 0) return;
    const affinity = (part: string, chosen: readonly string[]) =>
      state.index.termImpacts(part, chosen).map((impacts) => impacts.reduce((sum, impact) => sum + impact, 0));
    this.#words.learn(source, attributeRequest(task, { tools: known, ...(failed === undefined ? {} : { failed }) }, kind, affinity));
  }

  /** An explicit score for `tool` in `source` raises (positive) or takes away (negative) the words the source taught it. */
  score(source: string, tool: string, score: number): void {
    this.#words.score(source, tool, score);
  }

  /** Take away the words `sources` taught. */
  forget(sources: readonly string[]): void {
    this.#words.forget(sources);
  }

  /** `requests` teach a registered `tool` their words as its example requests, replacing those it had (learned-examples.ts). */
  teachExamples(state: Loaded, tool: string, requests: readonly string[]): void {
    if (state.defs.has(tool)) this.#words.replaceExamples(tool, exampleWords(requests));
  }

  /** Of `tools`, those that learned words from example requests. */
  withExamples(tools: readonly string[]): Set<string> {
    return this.#words.withExamples(tools);
  }

  /** `tools` (deleted, or changed) lose what their example requests taught them. */
  forgetExamples(tools: readonly string[]): void {
    this.#words.forgetExamples(tools);
  }

  /** A tool's strongest learned words, from how many sources, and how many came from use and from examples. */
  view(tool: string, count?: number): LearnedWordsView {
    return this.#words.view(tool, count);
  }

  /** The learned field for a task's first step at this tenant's weight, or undefined when it is off. */
  forTask(state: Loaded, task: string): { ranking: () => Ranked[]; weight: number } | undefined {
    const json = this.#settings.get(LEARNING_SETTING);
    const parsed =
      this.#fieldWeight?.json === json && this.#fieldWeight !== undefined ? this.#fieldWeight : { json, weight: learningSettingsOf(json).fieldWeight };
    this.#fieldWeight = parsed;
    const weight = parsed.weight;
    return weight <= 0 ? undefined : { ranking: () => this.#words.search(task, state.index.size), weight };
  }
}
