/**
 * What one observed conversation costs the service's isolate (implicit-learning `--profile`): a
 * V8 CPU profile over the conversation, split into the parts the issue asks about by the
 * functions on each sample's stack. Wall time on a shared machine holds waits for a core; the
 * profile counts only the samples in which the isolate ran.
 */
import { analyse, type Profile, profiled } from "./cpu-profile";
import type { Inspector } from "./inspector";
import { ms, summary } from "./stats";

/** The sampling interval of the profiles, in µs. */
export const COST_INTERVAL = 200;

/**
 * The parts of a conversation's CPU, each named by the functions whose stacks it holds; a sample
 * whose stack holds several counts for the first part listed here (learning done while a search
 * is recorded is learning):
 * - learning: a finished trajectory teaches routing (storage/tenant-observed.ts `#learn`: the
 *   trajectory into the graph and task memory, the learned field's words, implicit scores);
 * - calibration: the alarm's slices of the tenant's signal calibration (off the request path),
 *   the object handed back between their pieces;
 * - recording: each search and call written to the conversation's state;
 * - route: find_tools' answer in the tenant's object;
 * - catalog look: the MCP GET stream's list_changed watch looking at the catalog (at the stream's
 *   opening and every poll), in the Worker and the tenant's object.
 */
export const COST_PARTS = {
  learning: ["#learn"],
  // After its first hand-back a slice resumes from the timer, without `sliceIfDue` on the stack.
  calibration: ["sliceIfDue", "#sliceInPieces", "#replayPieces"],
  recording: ["recordSearch", "recordCall"],
  route: ["routeJsonUnlessEmbedded", "routeUnlessEmbedded"],
  "catalog look": ["fingerprint", "listTools", "catalogStamp"],
} as const;

type NamedPart = keyof typeof COST_PARTS;
export type CostPart = NamedPart | "other";
const NAMED = Object.keys(COST_PARTS) as NamedPart[];

export interface ConversationCost {
  /** Isolate CPU over the conversation, ms. */
  busyMs: number;
  /** CPU per part, ms (`other`: the MCP face, the Worker's path to the object, garbage collection…). */
  parts: Record<CostPart, number>;
}

/** Split one conversation's profile into its parts. */
export function conversationCost(profile: Profile): ConversationCost {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const rank = new Map<string, number>();
  NAMED.forEach((part, i) => {
    for (const name of COST_PARTS[part]) rank.set(name, i);
  });
  const { busyMs, period } = analyse(profile, [], COST_INTERVAL);
  const parts: Record<CostPart, number> = { learning: 0, calibration: 0, recording: 0, route: 0, "catalog look": 0, other: 0 };
  for (const id of profile.samples) {
    const node = byId.get(id);
    if (node === undefined || ["(idle)", "(root)"].includes(node.callFrame.functionName)) continue;
    let best = NAMED.length;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      best = Math.min(best, rank.get(byId.get(at)?.callFrame.functionName ?? "") ?? best);
    parts[NAMED[best] ?? "other"] += period;
  }
  return { busyMs, parts };
}

/** Each tenant's conversation in turn, each under a CPU profile of its own, its cost added to what it answered. */
export async function profiledEach<T>(
  inspector: Inspector,
  keys: readonly string[],
  talk: (key: string) => Promise<T>,
): Promise<(T & { cost: ConversationCost })[]> {
  const answers: (T & { cost: ConversationCost })[] = [];
  for (const key of keys) {
    let answer: { value: T } | undefined;
    const profile = await profiled(inspector, COST_INTERVAL, async () => {
      answer = { value: await talk(key) };
    });
    if (answer === undefined) throw new Error("a profiled conversation gave no answer");
    answers.push({ ...answer.value, cost: conversationCost(profile) });
  }
  return answers;
}

const spread = (values: readonly number[]): string => {
  const { p50, p99, mean } = summary(values);
  return `p50 ${ms(p50)}, p99 ${ms(p99)}, mean ${ms(mean)}`;
};

/** Per conversation, p50 / p99 / mean of recording and learning together, of each part, and of all the isolate's CPU. */
export function costLines(costs: readonly ConversationCost[]): string[] {
  if (costs.length === 0) return [];
  const of = (part: CostPart) => costs.map((c) => c.parts[part]);
  return [
    `  recording + learning ${spread(costs.map((c) => c.parts.recording + c.parts.learning))}`,
    ...(["recording", "learning", "calibration", "route", "catalog look", "other"] as const).map((part) => `  ${part.padEnd(20)} ${spread(of(part))}`),
    `  ${"all".padEnd(20)} ${spread(costs.map((c) => c.busyMs))}`,
  ];
}
