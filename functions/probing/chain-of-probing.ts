import { requiredIdentifiers } from "./instance-discovery";
import type { ProbeDependencies, ProbeOptions, ProbeReport, ProbeTarget } from "./probe-types";
import { ProbingSession } from "./probing-session";
import type { ProbedProtocol } from "./protocol";

export { rankHelpers, type RankedHelper } from "./helper-ranking";
export type {
  DirectCallResult,
  ProbeDependencies,
  ProbeEvent,
  ProbeModelTurn,
  ProbeOptions,
  ProbePurpose,
  ProbeReport,
  ProbeTarget,
  ProgramCall,
  ProgramRun,
  ToolProbeResult,
} from "./probe-types";

/**
 * Chain of probing (§4.2, Algorithm 1). Every tool is first probed alone; the tools that fail
 * are probed again with helper tools taken from the probed ones, for up to β iterations. Each
 * probe (the paper's LLMProb) tries the zero-token path first — argument sets from the schema,
 * or, with helpers, from their outputs (data flow) — and only then the model: I_s to pick
 * helpers, I_p for a query and a program, up to N samples. Platform-free: the tool call, the
 * program sandbox and the model are passed in, as in `chain/run-task.ts`.
 */

/** Algorithm 1: probe every tool, alone first, then with helper tools, and document each one. */
export async function probeTools(
  tools: readonly ProbeTarget[],
  already: ReadonlyMap<string, ProbedProtocol>,
  deps: ProbeDependencies,
  options: ProbeOptions = {},
): Promise<ProbeReport> {
  const session = new ProbingSession(tools, already, deps, options);
  const deferred = await probeEachAlone(session);
  const iterations = await probeInChains(session);
  // Deferred tools the model never saw (the chain is disabled, β = 0): their turn alone now.
  for (const target of [...session.blackBox]) {
    if (deferred.has(target.definition.name) && !session.modelTried.has(target.definition.name))
      await session.settle(target, await session.modelAlone(target.definition, 0), 0);
  }
  await session.reportFailures();
  return session.report(iterations);
}

/**
 * Initial iteration: every single tool (Algorithm 1, lines 7–14). A tool that fails for want of
 * an identifier only another tool returns is not shown to the model alone yet: data flow from
 * the probed tools is tried first, for free. Answers the tools so deferred.
 */
async function probeEachAlone(session: ProbingSession): Promise<Set<string>> {
  const { zeroToken, useModel } = session.settings;
  const deferred = new Set<string>();
  for (const target of session.targets.values()) {
    const def = target.definition;
    if (session.probed.has(def.name)) continue;
    session.emit({ type: "tool_started", tool: def.name, iteration: 0 });
    if (zeroToken && (await session.settle(target, await session.directAlone(def), 0))) continue;
    if (useModel && (!zeroToken || requiredIdentifiers(def).length === 0)) {
      if (await session.settle(target, await session.modelAlone(def, 0), 0)) continue;
    } else if (useModel) deferred.add(def.name);
    if (!zeroToken && !useModel) session.lastErrors.set(def.name, "probing is disabled (zeroToken and useModel are both off)");
    session.blackBox.push(target);
  }
  return deferred;
}

/**
 * Probing with dependency chains (Algorithm 1, lines 15–27). Each iteration first runs the
 * zero-token data-flow probes to a fixpoint (a tool is tried again only when H has grown since its
 * last try), then asks the model about the tools still unprobed, with helpers it picks from H.
 * Answers how many iterations ran.
 */
async function probeInChains(session: ProbingSession): Promise<number> {
  const { zeroToken, useModel, iterations: beta } = session.settings;
  let iterations = 0;
  const triedWith = new Map<string, number>();
  while (session.blackBox.length > 0 && iterations < beta) {
    iterations++;
    let progress = zeroToken ? await probeByDataFlow(session, iterations, triedWith) : 0;
    if (useModel) {
      for (const target of [...session.blackBox]) {
        session.emit({ type: "tool_started", tool: target.definition.name, iteration: iterations });
        if (await session.settle(target, await session.modelWithHelpers(target.definition, iterations), iterations)) progress++;
      }
    }
    session.emit({ type: "iteration_finished", iteration: iterations, probed: progress, remaining: session.blackBox.length });
    // Nothing new in H: the next iteration would make the same calls and ask the same questions.
    if (progress === 0) break;
  }
  return iterations;
}

/** The zero-token data-flow probes of one iteration, to a fixpoint; answers how many tools they probed. */
async function probeByDataFlow(session: ProbingSession, iteration: number, triedWith: Map<string, number>): Promise<number> {
  let progress = 0;
  for (let grew = true; grew; ) {
    grew = false;
    for (const target of [...session.blackBox]) {
      const name = target.definition.name;
      if (triedWith.get(name) === session.probed.size) continue;
      triedWith.set(name, session.probed.size);
      session.emit({ type: "tool_started", tool: name, iteration });
      const attempt = await session.directWithHelpers(target.definition, iteration);
      if (attempt !== undefined && (await session.settle(target, attempt, iteration))) {
        progress++;
        grew = true;
      }
    }
  }
  return progress;
}
