import { splitWords, termOf } from "./retrieval/analyze";
import { taskShape } from "./task-shape";

/**
 * Implicit learning from use: what a conversation searched for and then called becomes a
 * trajectory, with no integration work by the caller. A search opens a trajectory with its task
 * text; each tool called after it, in the same conversation, is its next step; a new first-step
 * search closes it (as does the conversation's end or idle close, decided by the caller). A call
 * with no search before it joins nothing. Pure: the tenant object stores the state as JSON.
 */

/**
 * Trajectories and learned words of observed conversations are kept under ids beginning with
 * this (`observed:<conversation>:<n>`); a posted trajectory may not take one, or deleting the
 * conversation would take its words too and its own trajectory would be skipped as already known.
 */
export const OBSERVED_ID_PREFIX = "observed:";

/** What a call's outcome says of the tool: a 2xx answer is a weak success; 5xx, timeout or refusal a weak failure; anything else nothing. */
export type CallOutcome = "success" | "failure" | "neutral";

/** A trajectory being observed: its task, the tools called so far and their outcomes. */
export interface ObservedTrajectory {
  task: string;
  tools: string[];
  outcomes: CallOutcome[];
}

/** One conversation's state between requests. */
export interface SessionState {
  open: ObservedTrajectory | null;
  /** The tools the last search offered, until the call that follows it (null: no search waiting). */
  offered: string[] | null;
  /** Trajectories opened in this conversation (the cap counts them). */
  opened: number;
}

/** A flood from one conversation cannot dominate what the tenant learns. */
export interface SessionCaps {
  maxTrajectories: number;
  maxSteps: number;
}

export const DEFAULT_CAPS: SessionCaps = { maxTrajectories: 20, maxSteps: 12 };

export type Observation =
  | { kind: "search"; task: string; previous: string | null; offered: readonly string[] }
  | { kind: "call"; tool: string; outcome: CallOutcome };

/** What one observation did: the state after it, a trajectory it closed, and for a call after a search whether the search had offered that tool. */
export interface Observed {
  state: SessionState;
  closed?: ObservedTrajectory;
  offeredHit?: boolean;
}

export const emptySession = (): SessionState => ({ open: null, offered: null, opened: 0 });

/** Fold one observation into a conversation's state. */
export function observe(state: SessionState, observation: Observation, caps: SessionCaps = DEFAULT_CAPS): Observed {
  if (observation.kind === "search") return observeSearch(state, observation, caps);
  const { open, offered } = state;
  // Nothing is learned from a call without a search before it.
  if (open === null) return { state };
  const offeredHit = offered === null ? undefined : offered.includes(observation.tool);
  const grown =
    open.tools.length < caps.maxSteps ? { ...open, tools: [...open.tools, observation.tool], outcomes: [...open.outcomes, observation.outcome] } : open;
  return { state: { ...state, open: grown, offered: null }, ...(offeredHit === undefined ? {} : { offeredHit }) };
}

function observeSearch(state: SessionState, search: { task: string; previous: string | null; offered: readonly string[] }, caps: SessionCaps): Observed {
  const offered = [...search.offered];
  const { open } = state;
  // A later step of the task under way, or the same first step asked again.
  if (open !== null && (search.previous !== null || open.tools.length === 0)) {
    const task = open.tools.length === 0 ? search.task : open.task;
    return { state: { ...state, open: { ...open, task }, offered } };
  }
  const closed = open !== null && open.tools.length > 0 ? open : undefined;
  const capped = state.opened >= caps.maxTrajectories;
  const next: SessionState = capped
    ? { open: null, offered: null, opened: state.opened }
    : { open: { task: search.task, tools: [], outcomes: [] }, offered, opened: state.opened + 1 };
  return { state: next, ...(closed === undefined ? {} : { closed }) };
}

/** End a conversation: its open trajectory, when it called anything, is closed. */
export function closeSession(state: SessionState): ObservedTrajectory | undefined {
  return state.open !== null && state.open.tools.length > 0 ? state.open : undefined;
}

/** A call's outcome from the status it got (undefined: no answer, e.g. a timeout) and whether the service refused it. */
export function callOutcome(status: number | undefined, refused: boolean): CallOutcome {
  if (refused || status === undefined || status >= 500) return "failure";
  return status >= 200 && status < 300 ? "success" : "neutral";
}

/** Implicit quality evidence is weak: one point per tool and conversation, never an explicit score's three. */
export const IMPLICIT_SCORE = 1;

/**
 * The implicit scores of a closed trajectory: each tool once, +1 when its calls succeeded more
 * often than they failed, −1 when the reverse; tools the conversation scored explicitly are left
 * out (an explicit score always wins).
 */
export function implicitScores(trajectory: ObservedTrajectory, explicitlyScored: ReadonlySet<string>): Map<string, number> {
  const balance = new Map<string, number>();
  trajectory.tools.forEach((tool, i) => {
    const outcome = trajectory.outcomes[i];
    const vote = outcome === "success" ? 1 : outcome === "failure" ? -1 : 0;
    balance.set(tool, (balance.get(tool) ?? 0) + vote);
  });
  const scores = new Map<string, number>();
  for (const [tool, sum] of balance) {
    if (sum !== 0 && !explicitlyScored.has(tool)) scores.set(tool, Math.sign(sum) * IMPLICIT_SCORE);
  }
  return scores;
}

/**
 * A delta that keeps the tenant's running implicit total of a tool within ±`limit`, so implicit
 * evidence, however much of it, moves a tool's score less than one explicit score of 3 does.
 */
export function boundedDelta(total: number, delta: number, limit: number): number {
  return Math.max(-limit, Math.min(limit, total + delta)) - total;
}

/**
 * A task reduced to what first-step learning reads of it: the distinct words of its shape (no
 * quoted text, numbers, names; see task-shape.ts) that are index terms, lower-cased and sorted.
 * Task memory finds the same terms in it as in the original, and the original cannot be read back.
 */
export function reducedTask(text: string): string {
  const shapeWords = splitWords(taskShape(text)).filter((word) => termOf(word) !== null);
  const words = shapeWords.length > 0 ? shapeWords : splitWords(text).filter((word) => termOf(word) !== null);
  return [...new Set(words)].sort().join(" ");
}
