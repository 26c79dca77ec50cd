import { attributeRequest, type EvidenceKind, RIVAL_DEPTH, rivalWords, WORDS_FIND_DEPTH } from "../toolnet/learned-attribution";
import { exampleWords } from "../toolnet/learned-examples";
import { LEARNING_SETTING, type LearningSettings, learningSettingsOf } from "../toolnet/implicit-learning-settings";
import type { Ranked } from "../toolnet/retrieval";
import { withLearnedField } from "../toolnet/retrieval/learned-field";
import type { TenantSettings } from "../storage/tenant-settings";
import { wordsSourceOfTrajectory } from "../storage/tenant-observed";
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
  /** The learning setting as last parsed, by the stored setting's text. */
  #parsed: { json: string | undefined; settings: LearningSettings } | undefined;

  /** `changed` runs after every change of the field: rankings remembered for tasks no longer hold. */
  constructor(sql: SqlStorage, settings: TenantSettings, changed: () => void) {
    this.#words = new LearnedWords(sql, changed);
    this.#settings = settings;
  }

  /**
   * `source` (a conversation, a trajectory) shows that `task` needed `tools`: each tool learns its
   * part of the task's words, and in an observed conversation a first tool the words alone did
   * not find learns that too (learned-attribution.ts).
   */
  learn(state: Loaded, source: string, task: string, tools: readonly string[], kind: EvidenceKind, failed?: ReadonlySet<string>): void {
    const known = tools.filter((tool) => state.defs.has(tool));
    if (known.length === 0) return;
    const affinity = (part: string, chosen: readonly string[]) =>
      state.index.termImpacts(part, chosen).map((impacts) => impacts.reduce((sum, impact) => sum + impact, 0));
    // Only a conversation went through a search whose offer its user passed over; a posted
    // trajectory's task never did (and a bulk of them would each cost a search).
    const unmatchedFirst = kind === "observed" && !state.index.search(task, WORDS_FIND_DEPTH).some((ranked) => ranked.name === known[0]);
    const learned = attributeRequest(task, { tools: known, unmatchedFirst, ...(failed === undefined ? {} : { failed }) }, kind, affinity);
    const taken = kind === "observed" ? this.#rivalWords(state, source, task, learned, known[0] ?? "") : new Map();
    this.#words.learn(source, new Map([...learned, ...taken]));
  }

  /**
   * What an observed request takes away from the tools its words ranked above its chosen first
   * tool (learned-attribution.ts rivalWords): the first step's word ranking, each tool's own text
   * plus its learned field at the tenant's weight, the field read as if `source` had taught
   * nothing. Like the search for unmatched first tools, only a conversation pays for it.
   */
  #rivalWords(
    state: Loaded,
    source: string,
    task: string,
    learned: ReadonlyMap<string, ReadonlyMap<string, number>>,
    first: string,
  ): Map<string, Map<string, number>> {
    const weight = this.#fieldSetting();
    if (this.#words.empty || weight <= 0) return new Map();
    const ownText = state.index.search(task, 4 * RIVAL_DEPTH);
    const ranked = withLearnedField(ownText, this.#words.search(task, state.index.size, RIVAL_DEPTH, source), weight).slice(0, RIVAL_DEPTH);
    const above = ranked.findIndex((r) => r.name === first);
    const rivals = (above < 0 ? ranked : ranked.slice(0, above)).map((r) => ({ tool: r.name, fromUse: this.#words.termsFromUse(r.name) }));
    return rivalWords(learned, first, rivals);
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

  /**
   * The learned field for a task's first step at this tenant's setting times `share` (what its
   * replay chose, routing-calibration.ts), or undefined when it is off or muted.
   */
  forTask(state: Loaded, task: string, share: number): { ranking: () => Ranked[]; weight: number } | undefined {
    const weight = this.#fieldSetting() * share;
    return weight <= 0 ? undefined : { ranking: () => this.#words.search(task, state.index.size), weight };
  }

  /**
   * A replayed task's learned-field ranking with what the trajectory `id` taught left out, at the
   * tenant's setting; undefined when the field is off or nothing is learned.
   */
  replayed(state: Loaded, task: string, id: string): { ranking: Ranked[]; weight: number } | undefined {
    const setting = this.#fieldSetting();
    if (setting <= 0 || this.#words.empty) return undefined;
    return { ranking: this.#words.search(task, state.index.size, undefined, wordsSourceOfTrajectory(id)), weight: setting };
  }

  /**
   * The tools this tenant's users chose where the words found nothing (first-step-prior.ts
   * unmatchedChoices), with what `excluding` (a replayed trajectory's id) taught left out; none
   * while the learned field is off (the pseudo-word lives in it).
   */
  unmatchedChoices(state: Loaded, excluding?: string): string[] {
    if (this.#fieldSetting() <= 0) return [];
    return this.#words.unmatchedChoices(state.index.size, excluding === undefined ? undefined : wordsSourceOfTrajectory(excluding));
  }

  /** The tenant's `learning.startsWeight`: how much its usual first tools count before calibration's share (0: off). */
  startsSetting(): number {
    return this.#learningSettings().startsWeight;
  }

  /** The tenant's `learning.fieldWeight` (0: off). */
  #fieldSetting(): number {
    return this.#learningSettings().fieldWeight;
  }

  /** The tenant's learning setting, parsed once per stored text (routes read it). */
  #learningSettings(): LearningSettings {
    const json = this.#settings.get(LEARNING_SETTING);
    if (this.#parsed?.json !== json || this.#parsed === undefined) this.#parsed = { json, settings: learningSettingsOf(json) };
    return this.#parsed.settings;
  }
}
