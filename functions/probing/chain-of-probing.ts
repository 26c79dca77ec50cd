import { addUsage, ZERO_USAGE, type TokenUsage } from "../llm/usage";
import type { TraceEntry } from "../sandbox/wire";
import type { ToolDefinition } from "../tools/definition";
import {
  dataFlowCandidates,
  fillArguments,
  isInformative,
  nameWords,
  observeValues,
  requiredIdentifiers,
  type ArgumentSet,
  type ProbedOutput,
} from "./instance-discovery";
import {
  describeToolMessages,
  helperSelectionMessages,
  instanceDiscoveryMessages,
  parseHelperSelection,
  parseInstanceAnswer,
  type HelperTool,
  type ProbeMessage,
} from "./prompts";
import { chainExample, directExample, documentProtocol, protocolOverrides, type ProbedProtocol, type ProbeExample, type ProbeHow } from "./protocol";

/**
 * Chain of probing (§4.2, Algorithm 1). Every tool is first probed alone; the tools that fail
 * are probed again with helper tools taken from the probed ones, for up to β iterations. Each
 * probe (the paper's LLMProb) tries the zero-token path first — argument sets from the schema,
 * or, with helpers, from their outputs (data flow) — and only then the model: I_s to pick
 * helpers, I_p for a query and a program, up to N samples. Platform-free: the tool call, the
 * program sandbox and the model are passed in, as in `chain/run-task.ts`.
 */

/** A tool to probe: its definition and the content hash its protocol will be keyed by. */
export interface ProbeTarget {
  definition: ToolDefinition;
  hash: string;
}

/** One direct, safe tool call (arguments validated, credentials injected by the caller). */
export interface DirectCallResult {
  ok: boolean;
  status?: number | undefined;
  body: unknown;
  error?: string | undefined;
}

/** A tool call made by a probing program, as the sandbox trace records it. */
export type ProgramCall = Pick<TraceEntry, "tool" | "arguments" | "ok" | "result" | "error">;

export interface ProgramRun {
  ok: boolean;
  answer?: unknown;
  error?: { message: string } | undefined;
  trace: readonly ProgramCall[];
}

export interface ProbeModelTurn {
  content: string;
  usage: TokenUsage;
  durationMs: number;
}

/** Why a model call is made: I_p (probe), I_s (select), or describing an undocumented tool. */
export type ProbePurpose = "probe" | "select" | "describe";

export type ProbeEvent =
  | { type: "tool_started"; tool: string; iteration: number }
  | {
      type: "direct_call";
      tool: string;
      iteration: number;
      arguments: Record<string, unknown>;
      ok: boolean;
      status?: number | undefined;
      error?: string | undefined;
    }
  | { type: "helpers_selected"; tool: string; iteration: number; helpers: string[]; by: "data_flow" | "model" }
  | { type: "program"; tool: string; iteration: number; sample: number; ok: boolean; error?: string | undefined }
  | { type: "probed"; tool: string; iteration: number; how: ProbeHow }
  | { type: "iteration_finished"; iteration: number; probed: number; remaining: number }
  | { type: "failed"; tool: string; error: string };

export interface ProbeDependencies {
  callTool(name: string, args: Record<string, unknown>): Promise<DirectCallResult>;
  /** Runs a program body that may call only `allowedTools`. */
  runProgram(program: string, allowedTools: string[]): Promise<ProgramRun>;
  /** A model call. Its errors are not caught: a model outage stops the job, which can resume. */
  chat(messages: ProbeMessage[], purpose: ProbePurpose, tool: string): Promise<ProbeModelTurn>;
  onProgress?(event: ProbeEvent): void;
  /** Called once per newly probed tool, before the next tool is probed: persist it here. */
  onProbed?(protocol: ProbedProtocol): void | Promise<void>;
  /** Called once per tool that is still unprobed after the last iteration. */
  onFailed?(tool: string, error: string): void | Promise<void>;
  now?(): Date;
}

export interface ProbeOptions {
  /** N: model samples per probe (§4.1). Default 3. */
  samples?: number;
  /** β: chain-of-probing iterations after the first, single-tool one (§4.2). Default 4; 0 disables the chain. */
  iterations?: number;
  /** Zero-token argument sets tried per probe. Default 3. */
  maxCandidates?: number;
  /** Probed tools shown to the model for helper selection, pre-selected by data flow. Default 6. */
  shortlistSize?: number;
  /** Helper tools the model may select. Default 3. */
  maxHelpers?: number;
  /** Try schema- and data-flow-filled calls before the model. Default true. */
  zeroToken?: boolean;
  /** Use the model when the zero-token path fails. Default true. */
  useModel?: boolean;
  /** Ask the model for a description of tools that have none and were probed without it. Default false. */
  describeUndocumented?: boolean;
}

interface Cost {
  toolCalls: number;
  modelCalls: number;
  usage: TokenUsage;
}

export type ToolProbeResult =
  | {
      tool: string;
      status: "probed";
      how: ProbeHow;
      /** True when the protocol came from `already` and nothing was called. */
      resumed: boolean;
      /** 0 for the single-tool pass, 1…β for chain-of-probing iterations. */
      iteration: number;
      helpers: string[];
      toolCalls: number;
      modelCalls: number;
      usage: TokenUsage;
      protocol: ProbedProtocol;
    }
  | { tool: string; status: "failed"; error: string; toolCalls: number; modelCalls: number; usage: TokenUsage };

export interface ProbeReport {
  /** One entry per input tool, in input order. */
  results: ToolProbeResult[];
  probed: number;
  resumed: number;
  failed: number;
  /** Chain-of-probing iterations actually run. */
  iterations: number;
  toolCalls: number;
  modelCalls: number;
  usage: TokenUsage;
}

interface Instance {
  example: ProbeExample;
  response: unknown;
  helpers: string[];
  how: ProbeHow;
  description?: string | undefined;
}

type Attempt = { instance: Instance } | { error: string };

const DEFAULTS = { samples: 3, iterations: 4, maxCandidates: 3, shortlistSize: 6, maxHelpers: 3 };

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function preview(value: unknown, max = 300): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function describeCall(result: DirectCallResult): string {
  const status = result.status === undefined ? "" : `HTTP ${result.status}: `;
  return `${status}${result.error ?? preview(result.body)}`;
}

/** What a probed tool offers others as data flow. */
function outputOf(definition: ToolDefinition, protocol: ProbedProtocol): ProbedOutput {
  return { tool: protocol.name, path: definition.path, inputs: definition.parameters.map((p) => p.name), samples: protocol.samples };
}

/** Whether two tools talk about the same things: shared words of name, path and description. */
function lexicalAffinity(a: ToolDefinition, b: ToolDefinition): number {
  const words = (d: ToolDefinition) => new Set(nameWords(`${d.name} ${d.path} ${d.summary ?? ""} ${d.description.slice(0, 300)}`).filter((w) => w.length > 2));
  const left = words(a);
  const right = words(b);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const w of left) if (right.has(w)) shared++;
  return shared / Math.sqrt(left.size * right.size);
}

export interface RankedHelper {
  name: string;
  /** Best data-flow score over the target's parameters (optional ones count half). */
  flow: number;
  affinity: number;
}

/**
 * The deterministic pre-selection of helpers: probed tools ranked by how well their outputs fill
 * the target's parameters, then by shared vocabulary. It spares the model a long list (I_s gets
 * the shortlist only) and usually puts the right helper first.
 */
export function rankHelpers(target: ToolDefinition, probed: readonly { definition: ToolDefinition; protocol: ProbedProtocol }[]): RankedHelper[] {
  return probed
    .filter((p) => p.definition.name !== target.name)
    .map((p, order) => {
      const output = outputOf(p.definition, p.protocol);
      let flow = 0;
      for (const param of target.parameters) {
        const best = dataFlowCandidates(target, param, [output])[0];
        if (best !== undefined) flow = Math.max(flow, best.score * (param.required ? 1 : 0.5));
      }
      return { name: p.definition.name, flow, affinity: lexicalAffinity(target, p.definition), order };
    })
    .sort((a, b) => b.flow - a.flow || b.affinity - a.affinity || a.order - b.order)
    .map(({ name, flow, affinity }) => ({ name, flow, affinity }));
}

/** Algorithm 1: probe every tool, alone first, then with helper tools, and document each one. */
export async function probeTools(
  tools: readonly ProbeTarget[],
  already: ReadonlyMap<string, ProbedProtocol>,
  deps: ProbeDependencies,
  options: ProbeOptions = {},
): Promise<ProbeReport> {
  const samples = Math.max(1, options.samples ?? DEFAULTS.samples);
  const beta = Math.max(0, options.iterations ?? DEFAULTS.iterations);
  const maxCandidates = Math.max(1, options.maxCandidates ?? DEFAULTS.maxCandidates);
  const shortlistSize = Math.max(1, options.shortlistSize ?? DEFAULTS.shortlistSize);
  const maxHelpers = Math.max(1, options.maxHelpers ?? DEFAULTS.maxHelpers);
  const zeroToken = options.zeroToken ?? true;
  const useModel = options.useModel ?? true;
  const emit = (event: ProbeEvent): void => deps.onProgress?.(event);

  // Tools by name, first occurrence wins (names are unique in a registry).
  const targets = new Map<string, ProbeTarget>();
  for (const t of tools) if (!targets.has(t.definition.name)) targets.set(t.definition.name, t);

  const costs = new Map<string, Cost>();
  const costOf = (name: string): Cost => {
    let cost = costs.get(name);
    if (cost === undefined) {
      cost = { toolCalls: 0, modelCalls: 0, usage: { ...ZERO_USAGE } };
      costs.set(name, cost);
    }
    return cost;
  };

  // H: probed tools with their protocols, in probing order (resumed ones first).
  const probed = new Map<string, { definition: ToolDefinition; protocol: ProbedProtocol; iteration: number; resumed: boolean }>();
  for (const [name, target] of targets) {
    const protocol = already.get(name);
    // A protocol of another version of the tool documents something else: probe again.
    if (protocol !== undefined && protocol.definitionHash === target.hash)
      probed.set(name, { definition: target.definition, protocol, iteration: 0, resumed: true });
  }
  const lastErrors = new Map<string, string>();

  const ask = async (name: string, messages: ProbeMessage[], purpose: ProbePurpose): Promise<string> => {
    const turn = await deps.chat(messages, purpose, name);
    const cost = costOf(name);
    cost.modelCalls++;
    cost.usage = addUsage(cost.usage, turn.usage);
    return turn.content;
  };

  /** Zero-token calls with the given argument sets; an empty answer is kept only if nothing better comes. */
  const tryDirect = async (
    def: ToolDefinition,
    sets: readonly ArgumentSet[],
    iteration: number,
    instanceOf: (set: ArgumentSet) => Omit<Instance, "response">,
  ): Promise<Attempt> => {
    let fallback: Instance | undefined;
    let error = "no argument set could be proposed";
    for (const set of sets) {
      let result: DirectCallResult;
      try {
        result = await deps.callTool(def.name, set.arguments);
      } catch (e) {
        result = { ok: false, body: undefined, error: message(e) };
      }
      costOf(def.name).toolCalls++;
      emit({
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
  };

  /** I_p, up to N samples: the first sample whose program gets a response from the tool wins. */
  const tryModel = async (def: ToolDefinition, helpers: readonly HelperTool[], iteration: number, earlier: readonly string[]): Promise<Attempt> => {
    const errors = [...earlier];
    const allowed = [...helpers.map((h) => h.definition.name), def.name];
    let fallback: Instance | undefined;
    for (let sample = 1; sample <= samples; sample++) {
      const answer = parseInstanceAnswer(await ask(def.name, instanceDiscoveryMessages(def, helpers, errors), "probe"));
      if (answer.program === undefined) {
        errors.push("the answer contained no program in a ```ts block");
        emit({ type: "program", tool: def.name, iteration, sample, ok: false, error: errors[errors.length - 1] });
        continue;
      }
      let run: ProgramRun;
      try {
        run = await deps.runProgram(answer.program, allowed);
      } catch (e) {
        run = { ok: false, error: { message: message(e) }, trace: [] };
      }
      costOf(def.name).toolCalls += run.trace.length;
      const hit = [...run.trace].reverse().find((c) => c.tool === def.name && c.ok);
      const response = hit === undefined ? undefined : hit.result !== undefined ? hit.result : run.ok ? run.answer : undefined;
      if (hit !== undefined && response !== undefined) {
        const used = [...new Set(run.trace.filter((c) => c.ok && c.tool !== def.name).map((c) => c.tool))];
        const instance: Instance = {
          example: {
            query: answer.query ?? directExample(def, isRecord(hit.arguments) ? hit.arguments : {}).query,
            program: answer.program,
            arguments: isRecord(hit.arguments) ? hit.arguments : {},
          },
          response,
          helpers: used,
          how: used.length > 0 ? "helper_chain" : "model",
          description: answer.description,
        };
        emit({ type: "program", tool: def.name, iteration, sample, ok: true });
        if (isInformative(response)) return { instance };
        fallback ??= instance;
        errors.push(
          `tools.${def.name}(${preview(hit.arguments, 200)}) succeeded but returned an empty result (${preview(response, 120)}); use arguments that find something`,
        );
        continue;
      }
      const failed = run.trace.find((c) => c.tool === def.name && !c.ok);
      const error =
        failed !== undefined
          ? `tools.${def.name}(${preview(failed.arguments, 200)}) failed: ${failed.error ?? "error"}`
          : (run.error?.message ?? `the program did not call tools.${def.name}`);
      errors.push(error);
      emit({ type: "program", tool: def.name, iteration, sample, ok: false, error });
    }
    return fallback === undefined ? { error: errors[errors.length - 1] ?? "no sample" } : { instance: fallback };
  };

  const modelTried = new Set<string>();

  /** LLMProb(t, []), zero-token part: the tool on its own, from its schema. */
  const directAlone = async (def: ToolDefinition): Promise<Attempt> =>
    tryDirect(def, fillArguments(def, { maxCandidates }), 0, (set) => ({ example: directExample(def, set.arguments), helpers: [], how: "direct" }));

  /** LLMProb(t, []), model part: I_p for the tool alone. */
  const modelAlone = async (def: ToolDefinition, iteration: number): Promise<Attempt> => {
    modelTried.add(def.name);
    const earlier = lastErrors.get(def.name);
    return tryModel(def, [], iteration, earlier === undefined ? [] : [earlier]);
  };

  /** LLMProb(t, subset), zero-token part: arguments filled from probed tools' outputs (data flow). */
  const directWithHelpers = async (def: ToolDefinition, iteration: number): Promise<Attempt | undefined> => {
    const outputs = [...probed.values()].filter((p) => p.definition.name !== def.name).map((p) => outputOf(p.definition, p.protocol));
    if (outputs.length === 0) return undefined;
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
    emit({ type: "helpers_selected", tool: def.name, iteration, helpers: [...new Set(sets.flatMap((s) => s.dataFlow.map((d) => d.tool)))], by: "data_flow" });
    return tryDirect(def, sets, iteration, (set) => ({
      example: chainExample(def, set.arguments, set.dataFlow, probed),
      helpers: [...new Set(set.dataFlow.map((d) => d.tool))],
      how: "helper_chain",
    }));
  };

  /** LLMProb(t, subset), model part: pre-select helpers by data flow, let the model pick (I_s), then I_p with them. */
  const modelWithHelpers = async (def: ToolDefinition, iteration: number): Promise<Attempt> => {
    const lastError = lastErrors.get(def.name) ?? "unknown error";
    const ranked = rankHelpers(def, [...probed.values()]);
    // No probed tool to offer: the tool on its own is all the model can try.
    if (ranked.length === 0) return modelTried.has(def.name) ? { error: lastError } : modelAlone(def, iteration);
    modelTried.add(def.name);
    const shortlist = ranked.slice(0, shortlistSize);
    let selected: string[];
    if (shortlist.length <= 1) {
      // Nothing to choose between: asking the model would only cost tokens.
      selected = shortlist.map((r) => r.name);
    } else {
      const candidates = shortlist.map((r) => helperTool(r.name)).filter((h): h is HelperTool => h !== undefined);
      const answer = await ask(def.name, helperSelectionMessages(def, lastError, candidates, maxHelpers), "select");
      selected = parseHelperSelection(
        answer,
        shortlist.map((r) => r.name),
        maxHelpers,
      );
      // An answer naming no listed tool: fall back to the data-flow pre-selection.
      if (selected.length === 0)
        selected = shortlist
          .filter((r) => r.flow > 0)
          .slice(0, maxHelpers)
          .map((r) => r.name);
    }
    if (selected.length === 0) return { error: lastError };
    emit({ type: "helpers_selected", tool: def.name, iteration, helpers: selected, by: "model" });
    const helpers = selected.map(helperTool).filter((h): h is HelperTool => h !== undefined);
    return tryModel(def, helpers, iteration, [lastError]);
  };

  const helperTool = (name: string): HelperTool | undefined => {
    const p = probed.get(name);
    return p === undefined ? undefined : { definition: p.definition, overrides: protocolOverrides(p.protocol) };
  };

  const record = async (target: ProbeTarget, instance: Instance, iteration: number): Promise<void> => {
    const def = target.definition;
    let modelDescription = instance.description;
    const undocumented = (def.description || def.summary || "").trim() === "";
    const draft = (): ProbedProtocol => {
      const cost = costOf(def.name);
      return documentProtocol({
        definition: def,
        definitionHash: target.hash,
        response: instance.response,
        example: instance.example,
        how: instance.how,
        helpers: instance.helpers,
        usage: { toolCalls: cost.toolCalls, modelCalls: cost.modelCalls, ...cost.usage },
        probedAt: (deps.now?.() ?? new Date()).toISOString(),
        samples: observeValues(instance.response),
        modelDescription,
      });
    };
    if (undocumented && modelDescription === undefined && useModel && options.describeUndocumented === true) {
      const answer = await ask(def.name, describeToolMessages(def, protocolOverrides(draft())), "describe");
      modelDescription = parseInstanceAnswer(answer).description ?? answer.split("\n")[0]?.trim();
    }
    const protocol = draft();
    probed.set(def.name, { definition: def, protocol, iteration, resumed: false });
    lastErrors.delete(def.name);
    emit({ type: "probed", tool: def.name, iteration, how: protocol.how });
    await deps.onProbed?.(protocol);
  };

  const blackBox: ProbeTarget[] = [];
  const settle = async (target: ProbeTarget, attempt: Attempt, iteration: number): Promise<boolean> => {
    if ("instance" in attempt) {
      await record(target, attempt.instance, iteration);
      const at = blackBox.indexOf(target);
      if (at !== -1) blackBox.splice(at, 1);
      return true;
    }
    lastErrors.set(target.definition.name, attempt.error);
    return false;
  };

  // Initial iteration: every single tool (Algorithm 1, lines 7–14). A tool that fails for want of
  // an identifier only another tool returns is not shown to the model alone yet: data flow from
  // the probed tools is tried first, for free.
  const deferred = new Set<string>();
  for (const target of targets.values()) {
    const def = target.definition;
    if (probed.has(def.name)) continue;
    emit({ type: "tool_started", tool: def.name, iteration: 0 });
    if (zeroToken && (await settle(target, await directAlone(def), 0))) continue;
    if (useModel && (!zeroToken || requiredIdentifiers(def).length === 0)) {
      if (await settle(target, await modelAlone(def, 0), 0)) continue;
    } else if (useModel) deferred.add(def.name);
    if (!zeroToken && !useModel) lastErrors.set(def.name, "probing is disabled (zeroToken and useModel are both off)");
    blackBox.push(target);
  }

  // Probing with dependency chains (lines 15–27). Each iteration first runs the zero-token
  // data-flow probes to a fixpoint (a tool is tried again only when H has grown since its last
  // try), then asks the model about the tools still unprobed, with helpers it picks from H.
  let iterations = 0;
  const triedWith = new Map<string, number>();
  while (blackBox.length > 0 && iterations < beta) {
    iterations++;
    let progress = 0;
    if (zeroToken) {
      for (let grew = true; grew; ) {
        grew = false;
        for (const target of [...blackBox]) {
          const name = target.definition.name;
          if (triedWith.get(name) === probed.size) continue;
          triedWith.set(name, probed.size);
          emit({ type: "tool_started", tool: name, iteration: iterations });
          const attempt = await directWithHelpers(target.definition, iterations);
          if (attempt !== undefined && (await settle(target, attempt, iterations))) {
            progress++;
            grew = true;
          }
        }
      }
    }
    if (useModel) {
      for (const target of [...blackBox]) {
        emit({ type: "tool_started", tool: target.definition.name, iteration: iterations });
        if (await settle(target, await modelWithHelpers(target.definition, iterations), iterations)) progress++;
      }
    }
    emit({ type: "iteration_finished", iteration: iterations, probed: progress, remaining: blackBox.length });
    // Nothing new in H: the next iteration would make the same calls and ask the same questions.
    if (progress === 0) break;
  }

  // Deferred tools the model never saw (the chain is disabled, β = 0): their turn alone now.
  for (const target of [...blackBox]) {
    if (deferred.has(target.definition.name) && !modelTried.has(target.definition.name)) await settle(target, await modelAlone(target.definition, 0), 0);
  }

  for (const target of blackBox) {
    const error = lastErrors.get(target.definition.name) ?? "not probed";
    emit({ type: "failed", tool: target.definition.name, error });
    await deps.onFailed?.(target.definition.name, error);
  }

  const results: ToolProbeResult[] = [...targets.values()].map((target) => {
    const name = target.definition.name;
    const cost = costs.get(name) ?? { toolCalls: 0, modelCalls: 0, usage: { ...ZERO_USAGE } };
    const done = probed.get(name);
    if (done === undefined) return { tool: name, status: "failed", error: lastErrors.get(name) ?? "not probed", ...cost };
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
  const total = [...costs.values()].reduce<Cost>(
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
