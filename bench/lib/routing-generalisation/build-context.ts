/** One dataset's context: the tenant's index, data flow, graph and task memory built from the dataset's tools and tasks. */
import { toolPromptTokens } from "../../../functions/chain/tool-cost";
import { apiSiblings } from "../../../functions/toolnet/api-siblings";
import { DataFlowIndex } from "../../../functions/toolnet/data-flow";
import { addTools, addTrajectories, createGraph, type Trajectory } from "../../../functions/toolnet/graph";
import { DEFAULT_TUNING, toolDocument, ToolIndex } from "../../../functions/toolnet/retrieval";
import { TaskMemory, type RememberedTask } from "../../../functions/toolnet/task-memory";
import type { ToolDefinition } from "../../../functions/tools/definition";
import type { EmbeddingVectors } from "../embedding-vectors";
import { retrievalVariants } from "../retrieval-variants";
import type { Dataset, Task } from "../routing-datasets";
import type { Context } from "./context";
import { datasetVectors } from "./embeddings";
import { FIELD_BOOSTS, PHRASES_BOOST, QUERY_SATURATION, SIBLINGS_BOOST } from "./options";

/** The task's gold path as a trajectory of the catalog's tools. */
export const asTrajectory = (defs: ReadonlyMap<string, ToolDefinition>, t: Task): Trajectory => ({ id: t.id, tools: t.gold.filter((g) => defs.has(g)) });

export async function buildContext(dataset: Dataset, vectors: EmbeddingVectors | undefined): Promise<Context> {
  const defs = new Map(dataset.defs.map((d) => [d.name, d]));
  const siblings = apiSiblings(dataset.defs);
  const documents = dataset.defs.map((d) => toolDocument(d, { siblings: (siblings.get(d.name) ?? []).flatMap((name) => defs.get(name) ?? []) }));
  const index = ToolIndex.build(documents, {
    boosts: { ...DEFAULT_TUNING.boosts, siblings: SIBLINGS_BOOST, phrases: PHRASES_BOOST, ...FIELD_BOOSTS },
    queryTermSaturation: QUERY_SATURATION,
  });
  const flow = new DataFlowIndex(defs);
  const costs = new Map<string, number>();
  const cost = (tool: string): number => {
    let c = costs.get(tool);
    const def = defs.get(tool);
    if (c === undefined && def !== undefined) costs.set(tool, (c = toolPromptTokens(def, `bench:${tool}`)));
    return c ?? 0;
  };
  const graph = createGraph();
  addTools(graph, [...defs.keys()]);
  addTrajectories(graph, dataset.background, { unknownTools: "skip" });
  const taskTrajectories = dataset.ordered ? dataset.tasks.map((t) => asTrajectory(defs, t)).filter((t) => t.tools.length > 0) : [];
  addTrajectories(graph, taskTrajectories, { unknownTools: "skip" });
  const remembered: RememberedTask[] = dataset.tasks.map((t) => ({ id: t.id, task: t.text, tools: t.gold }));
  const memory = TaskMemory.build(remembered);
  const coldGraph = createGraph();
  addTools(coldGraph, [...defs.keys()]);
  const boosts = { ...DEFAULT_TUNING.boosts, siblings: SIBLINGS_BOOST, phrases: PHRASES_BOOST, ...FIELD_BOOSTS };
  const variants = retrievalVariants({ index, docs: documents, defs, boosts });
  return { index, flow, defs, graph, coldGraph, memory, siblings, cost, variants, dense: await datasetVectors(dataset, vectors) };
}
