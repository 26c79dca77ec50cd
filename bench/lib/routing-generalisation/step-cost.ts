/** What one routing step costs: the tokens of its answer and its in-process time. */
import { countTokens } from "../../../functions/text/token-count";
import { formatPromptBlock, learnedSuccessors, START, successors } from "../../../functions/toolnet/graph";
import { laterStepPrior } from "../../../functions/toolnet/later-step-prior";
import { openAiTool } from "../../../functions/toolnet/openai-tools";
import type { Ranked } from "../../../functions/toolnet/retrieval";
import { fuseFirstStep, fuseNextStep } from "../../../functions/toolnet/signal-fusion";
import type { Task } from "../routing-datasets";
import type { Context } from "./context";
import { add, type Tally } from "./measures";
import { LATER_MIN_SIMILARITY, NAME_LOOKUPS } from "./options";

/** Tokens of one routing answer at k = 5 (prompt block and OpenAI tools array), first and later step. */
export function routingStepTokens(ctx: Context, task: Task, relevance: readonly Ranked[], tally: Tally): void {
  const describe = (tool: string): string => (ctx.defs.get(tool)?.summary ?? ctx.defs.get(tool)?.description ?? "").slice(0, 160);
  const steps: { previous: string; tools: string[] }[] = [
    {
      previous: START,
      tools: fuseFirstStep({ relevance, history: ctx.memory.votes(task.text) })
        .slice(0, 5)
        .map((c) => c.tool),
    },
  ];
  const previous = task.gold[0];
  if (previous !== undefined && ctx.defs.has(previous)) {
    const input = { previous, learned: learnedSuccessors(ctx.graph, previous), relevance, dataFlow: ctx.flow.successors(previous) };
    steps.push({
      previous,
      tools: fuseNextStep(input)
        .slice(0, 5)
        .map((c) => c.tool),
    });
  }
  for (const step of steps) {
    const prompt = formatPromptBlock({ previous: step.previous, candidates: step.tools.map((tool, i) => ({ tool, weight: 1000 - i, exact: 1 })), describe });
    const tools = step.tools.flatMap((tool) => {
      const def = ctx.defs.get(tool);
      return def === undefined ? [] : [openAiTool(def)];
    });
    add(tally, "prompt", countTokens(prompt));
    add(tally, "tools", countTokens(JSON.stringify(tools)));
  }
}

/** In-process time of one routing step, today's path against the fused one (same tasks, same run). */
export function timeSteps(ctx: Context, task: Task, tally: Tally): void {
  const previous = task.gold[0];
  let t = performance.now();
  ctx.index.search(task.text, 8);
  add(tally, "first: retrieval (today)", performance.now() - t);
  t = performance.now();
  fuseFirstStep({ relevance: ctx.index.search(task.text, 30), history: ctx.memory.votes(task.text) }).slice(0, 8);
  add(tally, "first: fused", performance.now() - t);
  // The route answer's first step: with data flow, same-API operations and name lookups (`--name-lookups=0` for none).
  t = performance.now();
  fuseFirstStep(
    {
      task: task.text,
      relevance: ctx.index.search(task.text, 30),
      history: ctx.memory.votes(task.text, { tools: "first" }),
      producersOf: (tool) => ctx.flow.producers(tool),
      siblingsOf: (tool) => ctx.siblings.get(tool) ?? [],
    },
    { nameLookupLeaders: NAME_LOOKUPS },
  ).slice(0, 8);
  add(tally, "first: fused, all signals", performance.now() - t);
  if (previous === undefined || !ctx.defs.has(previous)) return;
  t = performance.now();
  successors(ctx.graph, previous, 8, { includeEnd: true });
  add(tally, "later: eq. 4 successors (today)", performance.now() - t);
  // The prior is cached per graph version; this loop changes the graph before every task, a
  // tenant's object only when trajectories arrive, so it is computed outside the timed step.
  laterStepPrior(ctx.graph);
  // The later step's inputs are read inside each timed step, as routing reads them.
  const laterInput = () => ({
    previous,
    learned: learnedSuccessors(ctx.graph, previous),
    relevance: ctx.index.search(task.text, 30),
    dataFlow: ctx.flow.successors(previous),
  });
  t = performance.now();
  fuseNextStep({
    ...laterInput(),
    history: ctx.memory.votes(task.text, { tools: { after: previous }, minSimilarity: LATER_MIN_SIMILARITY }),
    prior: laterStepPrior(ctx.graph),
  }).slice(0, 8);
  add(tally, "later: fused", performance.now() - t);
  // The previous release's later step, timed second so any warm-cache advantage is its own.
  t = performance.now();
  fuseNextStep(laterInput()).slice(0, 8);
  add(tally, "later: fused without task votes and prior (before)", performance.now() - t);
}
