import { addUsage, ZERO_USAGE } from "../llm/usage";
import type { ToolDefinition } from "../tools/definition";
import { outputOf, rankHelpers } from "./helper-ranking";
import { fillArguments, isInformative, observeValues, type ArgumentSet } from "./instance-discovery";
import {
  describeToolMessages,
  helperSelectionMessages,
  instanceDiscoveryMessages,
  parseHelperSelection,
  parseInstanceAnswer,
  type HelperTool,
  type ProbeMessage,
} from "./prompts";
import type {
  Attempt,
  Cost,
  DirectCallResult,
  Instance,
  ProbeDependencies,
  ProbeEvent,
  ProbeOptions,
  ProbePurpose,
  ProbeReport,
  ProbeTarget,
  ProgramRun,
  ToolProbeResult,
} from "./probe-types";
import { chainExample, directExample, documentProtocol, protocolOverrides, type ProbedProtocol } from "./protocol";
import { describeCall, message, preview, programOutcome } from "./probe-outcome";
import { type ProbeSettings, probeSettings } from "./probe-settings";

interface ProbedEntry {
  definition: ToolDefinition;
  protocol: ProbedProtocol;
  iteration: number;
  resumed: boolean;
}

/**
 * The state of one chain-of-probing pass and its probes (the paper's LLMProb, zero-token part and
 * model part): H, the probed tools with their protocols; what each tool has cost; the last error of
 * each unprobed tool; and the black box, the tools still unprobed.
 */
export class ProbingSession {
  readonly settings: ProbeSettings;
  /** Tools by name, first occurrence wins (names are unique in a registry). */
  readonly targets = new Map<string, ProbeTarget>();
  /** H: probed tools with their protocols, in probing order (resumed ones first). */
  readonly probed = new Map<string, ProbedEntry>();
  readonly lastErrors = new Map<string, string>();
  /** Tools the model has been asked about. */
  readonly modelTried = new Set<string>();
  /** Tools not probed yet, in the order they failed. */
  readonly blackBox: ProbeTarget[] = [];
  readonly #costs = new Map<string, Cost>();
  readonly #deps: ProbeDependencies;

  constructor(tools: readonly ProbeTarget[], already: ReadonlyMap<string, ProbedProtocol>, deps: ProbeDependencies, options: ProbeOptions) {
    this.settings = probeSettings(options);
    this.#deps = deps;
    for (const t of tools) if (!this.targets.has(t.definition.name)) this.targets.set(t.definition.name, t);
    for (const [name, target] of this.targets) {
      const protocol = already.get(name);
      // A protocol of another version of the tool documents something else: probe again.
      if (protocol !== undefined && protocol.definitionHash === target.hash)
        this.probed.set(name, { definition: target.definition, protocol, iteration: 0, resumed: true });
    }
  }

  emit(event: ProbeEvent): void {
    this.#deps.onProgress?.(event);
  }

  #costOf(name: string): Cost {
    let cost = this.#costs.get(name);
    if (cost === undefined) {
      cost = { toolCalls: 0, modelCalls: 0, usage: { ...ZERO_USAGE } };
      this.#costs.set(name, cost);
    }
    return cost;
  }

  async #ask(name: string, messages: ProbeMessage[], purpose: ProbePurpose): Promise<string> {
    const turn = await this.#deps.chat(messages, purpose, name);
    const cost = this.#costOf(name);
    cost.modelCalls++;
    cost.usage = addUsage(cost.usage, turn.usage);
    return turn.content;
  }

  /** Zero-token calls with the given argument sets; an empty answer is kept only if nothing better comes. */
  async #tryDirect(
    def: ToolDefinition,
    sets: readonly ArgumentSet[],
    iteration: number,
    instanceOf: (set: ArgumentSet) => Omit<Instance, "response">,
  ): Promise<Attempt> {
    let fallback: Instance | undefined;
    let error = "no argument set could be proposed";
    for (const set of sets) {
      let result: DirectCallResult;
      try {
        result = await this.#deps.callTool(def.name, set.arguments);
      } catch (e) {
        result = { ok: false, body: undefined, error: message(e) };
      }
      this.#costOf(def.name).toolCalls++;
      this.emit({
        type: "direct_call",
        tool: def.name,
        iteration,
        arguments: set.arguments,
        ok: result.ok,
        status: result.status,
        error: result.ok ? undefined : describeCall(result),
      });
      if (!result.ok) {
        error = `${def.name}(${preview(set.arguments, 200)}) failed: ${describeCall(result)}`;
        continue;
      }
      const instance = { ...instanceOf(set), response: result.body };
      if (isInformative(result.body)) return { instance };
      fallback ??= instance;
    }
    return fallback === undefined ? { error } : { instance: fallback };
  }

  /** I_p, up to N samples: the first sample whose program gets a response from the tool wins. */
  async #tryModel(def: ToolDefinition, helpers: readonly HelperTool[], iteration: number, earlier: readonly string[]): Promise<Attempt> {
    const errors = [...earlier];
    const allowed = [...helpers.map((h) => h.definition.name), def.name];
    let fallback: Instance | undefined;
    for (let sample = 1; sample <= this.settings.samples; sample++) {
      const answer = parseInstanceAnswer(await this.#ask(def.name, instanceDiscoveryMessages(def, helpers, errors), "probe"));
      if (answer.program === undefined) {
        errors.push("the answer contained no program in a ```ts block");
        this.emit({ type: "program", tool: def.name, iteration, sample, ok: false, error: errors[errors.length - 1] });
        continue;
      }
      let run: ProgramRun;
      try {
        run = await this.#deps.runProgram(answer.program, allowed);
      } catch (e) {
        run = { ok: false, error: { message: message(e) }, trace: [] };
      }
      this.#costOf(def.name).toolCalls += run.trace.length;
      const outcome = programOutcome(def, answer.program, answer, run);
      if (outcome.instance !== undefined) {
        this.emit({ type: "program", tool: def.name, iteration, sample, ok: true });
        if (isInformative(outcome.instance.response)) return { instance: outcome.instance };
        fallback ??= outcome.instance;
        errors.push(outcome.error);
        continue;
      }
      errors.push(outcome.error);
      this.emit({ type: "program", tool: def.name, iteration, sample, ok: false, error: outcome.error });
    }
    return fallback === undefined ? { error: errors[errors.length - 1] ?? "no sample" } : { instance: fallback };
  }

  /** LLMProb(t, []), zero-token part: the tool on its own, from its schema. */
  directAlone(def: ToolDefinition): Promise<Attempt> {
    return this.#tryDirect(def, fillArguments(def, { maxCandidates: this.settings.maxCandidates }), 0, (set) => ({
      example: directExample(def, set.arguments),
      helpers: [],
      how: "direct",
    }));
  }

  /** LLMProb(t, []), model part: I_p for the tool alone. */
  modelAlone(def: ToolDefinition, iteration: number): Promise<Attempt> {
    this.modelTried.add(def.name);
    const earlier = this.lastErrors.get(def.name);
    return this.#tryModel(def, [], iteration, earlier === undefined ? [] : [earlier]);
  }

  /** LLMProb(t, subset), zero-token part: arguments filled from probed tools' outputs (data flow). */
  async directWithHelpers(def: ToolDefinition, iteration: number): Promise<Attempt | undefined> {
    const outputs = [...this.probed.values()].filter((p) => p.definition.name !== def.name).map((p) => outputOf(p.definition, p.protocol));
    if (outputs.length === 0) return undefined;
    const maxCandidates = this.settings.maxCandidates;
    // Sets without data flow were already tried alone; sets that fill a required parameter from
    // another tool come first (that is what a tool failing alone usually lacks).
    const required = new Set(def.parameters.filter((p) => p.required).map((p) => p.name));
    const fillsRequired = (s: ArgumentSet): number => (s.dataFlow.some((d) => required.has(d.parameter)) ? 0 : 1);
    const sets = fillArguments(def, { outputs, maxCandidates: maxCandidates * 3 })
      .filter((s) => s.dataFlow.length > 0)
      .map((s, order) => ({ s, order }))
      .sort((a, b) => fillsRequired(a.s) - fillsRequired(b.s) || a.order - b.order)
      .map(({ s }) => s)
      .slice(0, maxCandidates);
    if (sets.length === 0) return undefined;
    this.emit({
      type: "helpers_selected",
      tool: def.name,
      iteration,
      helpers: [...new Set(sets.flatMap((s) => s.dataFlow.map((d) => d.tool)))],
      by: "data_flow",
    });
    return this.#tryDirect(def, sets, iteration, (set) => ({
      example: chainExample(def, set.arguments, set.dataFlow, this.probed),
      helpers: [...new Set(set.dataFlow.map((d) => d.tool))],
      how: "helper_chain",
    }));
  }

  /** LLMProb(t, subset), model part: pre-select helpers by data flow, let the model pick (I_s), then I_p with them. */
  async modelWithHelpers(def: ToolDefinition, iteration: number): Promise<Attempt> {
    const lastError = this.lastErrors.get(def.name) ?? "unknown error";
    const ranked = rankHelpers(def, [...this.probed.values()]);
    // No probed tool to offer: the tool on its own is all the model can try.
    if (ranked.length === 0) return this.modelTried.has(def.name) ? { error: lastError } : this.modelAlone(def, iteration);
    this.modelTried.add(def.name);
    const shortlist = ranked.slice(0, this.settings.shortlistSize);
    const selected = await this.#selectHelpers(def, lastError, shortlist);
    if (selected.length === 0) return { error: lastError };
    this.emit({ type: "helpers_selected", tool: def.name, iteration, helpers: selected, by: "model" });
    const helpers = selected.map((name) => this.#helperTool(name)).filter((h): h is HelperTool => h !== undefined);
    return this.#tryModel(def, helpers, iteration, [lastError]);
  }

  /** I_s: the model picks helpers from the shortlist; data flow decides when it names none (or there is nothing to choose). */
  async #selectHelpers(def: ToolDefinition, lastError: string, shortlist: readonly { name: string; flow: number }[]): Promise<string[]> {
    const maxHelpers = this.settings.maxHelpers;
    // Nothing to choose between: asking the model would only cost tokens.
    if (shortlist.length <= 1) return shortlist.map((r) => r.name);
    const candidates = shortlist.map((r) => this.#helperTool(r.name)).filter((h): h is HelperTool => h !== undefined);
    const answer = await this.#ask(def.name, helperSelectionMessages(def, lastError, candidates, maxHelpers), "select");
    const selected = parseHelperSelection(
      answer,
      shortlist.map((r) => r.name),
      maxHelpers,
    );
    if (selected.length > 0) return selected;
    // An answer naming no listed tool: fall back to the data-flow pre-selection.
    return shortlist
      .filter((r) => r.flow > 0)
      .slice(0, maxHelpers)
      .map((r) => r.name);
  }

  #helperTool(name: string): HelperTool | undefined {
    const p = this.probed.get(name);
    return p === undefined ? undefined : { definition: p.definition, overrides: protocolOverrides(p.protocol) };
  }

  /** Records a found instance as the tool's protocol (asking for a description when it has none and that was wanted). */
  async #record(target: ProbeTarget, instance: Instance, iteration: number): Promise<void> {
    const def = target.definition;
    let modelDescription = instance.description;
    const undocumented = (def.description || def.summary || "").trim() === "";
    const draft = (): ProbedProtocol => {
      const cost = this.#costOf(def.name);
      return documentProtocol({
        definition: def,
        definitionHash: target.hash,
        response: instance.response,
        example: instance.example,
        how: instance.how,
        helpers: instance.helpers,
        usage: { toolCalls: cost.toolCalls, modelCalls: cost.modelCalls, ...cost.usage },
        probedAt: (this.#deps.now?.() ?? new Date()).toISOString(),
        samples: observeValues(instance.response),
        modelDescription,
      });
    };
    if (undocumented && modelDescription === undefined && this.settings.useModel && this.settings.describeUndocumented) {
      const answer = await this.#ask(def.name, describeToolMessages(def, protocolOverrides(draft())), "describe");
      modelDescription = parseInstanceAnswer(answer).description ?? answer.split("\n")[0]?.trim();
    }
    const protocol = draft();
    this.probed.set(def.name, { definition: def, protocol, iteration, resumed: false });
    this.lastErrors.delete(def.name);
    this.emit({ type: "probed", tool: def.name, iteration, how: protocol.how });
    await this.#deps.onProbed?.(protocol);
  }

  /** Takes an attempt's outcome: a found instance is recorded (and leaves the black box), an error is kept. */
  async settle(target: ProbeTarget, attempt: Attempt, iteration: number): Promise<boolean> {
    if ("instance" in attempt) {
      await this.#record(target, attempt.instance, iteration);
      const at = this.blackBox.indexOf(target);
      if (at !== -1) this.blackBox.splice(at, 1);
      return true;
    }
    this.lastErrors.set(target.definition.name, attempt.error);
    return false;
  }

  /** Tells the caller about every tool still unprobed. */
  async reportFailures(): Promise<void> {
    for (const target of this.blackBox) {
      const error = this.lastErrors.get(target.definition.name) ?? "not probed";
      this.emit({ type: "failed", tool: target.definition.name, error });
      await this.#deps.onFailed?.(target.definition.name, error);
    }
  }

  report(iterations: number): ProbeReport {
    const results: ToolProbeResult[] = [...this.targets.values()].map((target) => {
      const name = target.definition.name;
      const cost = this.#costs.get(name) ?? { toolCalls: 0, modelCalls: 0, usage: { ...ZERO_USAGE } };
      const done = this.probed.get(name);
      if (done === undefined) return { tool: name, status: "failed", error: this.lastErrors.get(name) ?? "not probed", ...cost };
      return {
        tool: name,
        status: "probed",
        how: done.protocol.how,
        resumed: done.resumed,
        iteration: done.iteration,
        helpers: done.protocol.helpers,
        ...cost,
        protocol: done.protocol,
      };
    });
    const total = [...this.#costs.values()].reduce<Cost>(
      (sum, c) => ({ toolCalls: sum.toolCalls + c.toolCalls, modelCalls: sum.modelCalls + c.modelCalls, usage: addUsage(sum.usage, c.usage) }),
      { toolCalls: 0, modelCalls: 0, usage: { ...ZERO_USAGE } },
    );
    return {
      results,
      probed: results.filter((r) => r.status === "probed" && !r.resumed).length,
      resumed: results.filter((r) => r.status === "probed" && r.resumed).length,
      failed: results.filter((r) => r.status === "failed").length,
      iterations,
      ...total,
    };
  }
}
