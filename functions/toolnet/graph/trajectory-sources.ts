import { z } from "zod";
import { graphFailure } from "./errors";
import type { Trajectory } from "./trajectory";

/**
 * Parsers for the public trajectory datasets used for static construction (§3.2 names
 * ToolBench and API-Bank among its sources). Each takes the parsed JSON file and returns
 * trajectories with ids unique across datasets, plus the records it left out and why, so
 * nothing is dropped unseen. Tool names are returned as the dataset spells them; mapping them to
 * a tenant's registered names is the caller's job, and import refuses names it does not know.
 */

export interface ParsedTrajectories {
  readonly trajectories: readonly Trajectory[];
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
}

/** api-bank/api_call_sequences.json: ordered call sequences from API-Bank dialogues. */
const ApiBankSequences = z.array(z.object({ source: z.string(), file: z.string(), api_sequence: z.array(z.string()) }));

/** stabletoolbench/gpt35_tool_sequences.json: gpt-3.5 runs, many of which failed. */
const StableToolBenchSequences = z.array(
  z.object({
    group: z.string(),
    query_id: z.string(),
    tool_sequence: z.array(z.string()),
    final_answer_type: z.string().nullable(),
  }),
);

/** restbench-tmdb/tasks.json: tasks with their gold solution, e.g. "GET /search/person". */
const RestBenchTasks = z.array(z.object({ idx: z.number().int(), solution: z.array(z.string()) }));

/** The action ToolBench agents call to end a run: the paper's end node, not a tool. */
export const TOOLBENCH_FINISH = "Finish";

/** API-Bank: id "api-bank:<source>/<file>"; the two records with no API call are skipped. */
export function apiBankTrajectories(json: unknown): ParsedTrajectories {
  const records = parse(ApiBankSequences, json, "API-Bank api_call_sequences");
  const trajectories: Trajectory[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const record of records) {
    const id = `api-bank:${record.source}/${record.file}`;
    if (record.api_sequence.length === 0) skipped.push({ id, reason: "no API call" });
    else trajectories.push({ id, tools: record.api_sequence });
  }
  return { trajectories, skipped };
}

/**
 * StableToolBench: id "stabletoolbench:<group>:<query_id>" (query ids repeat across groups).
 * Only runs that gave an answer are kept: eq. 5 counts "trajectories that have completed their
 * tasks", and runs that gave up or ran out of steps would teach the graph their dead ends. The
 * first Finish ends the trajectory (it is the end node; one record calls it twice).
 */
export function stableToolBenchTrajectories(json: unknown): ParsedTrajectories {
  const records = parse(StableToolBenchSequences, json, "StableToolBench tool sequences");
  const trajectories: Trajectory[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const record of records) {
    const id = `stabletoolbench:${record.group}:${record.query_id}`;
    if (record.final_answer_type !== "give_answer") {
      skipped.push({ id, reason: `did not complete its task (final_answer_type ${String(record.final_answer_type)})` });
      continue;
    }
    const finish = record.tool_sequence.indexOf(TOOLBENCH_FINISH);
    const tools = finish === -1 ? record.tool_sequence : record.tool_sequence.slice(0, finish);
    if (tools.length === 0) skipped.push({ id, reason: "no tool call before Finish" });
    else trajectories.push({ id, tools });
  }
  return { trajectories, skipped };
}

/** RestBench (TMDB): id "restbench:<idx>", the gold solution as the trajectory. */
export function restBenchTrajectories(json: unknown): ParsedTrajectories {
  const records = parse(RestBenchTasks, json, "RestBench tasks");
  const trajectories: Trajectory[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const record of records) {
    const id = `restbench:${record.idx}`;
    if (record.solution.length === 0) skipped.push({ id, reason: "empty solution" });
    else trajectories.push({ id, tools: record.solution });
  }
  return { trajectories, skipped };
}

function parse<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw graphFailure({
    code: "invalid_trajectory",
    message: `${what}: not the expected shape: ${z.prettifyError(result.error)}`,
  });
}
