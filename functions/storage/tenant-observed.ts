import type { Outcome } from "../common/failures";
import type { Evaluation, FeedbackResult, StaticImportResult, Trajectory } from "../toolnet/graph";
import { learningSettingsOf, LEARNING_SETTING, type LearningSettings } from "../toolnet/implicit-learning-settings";
import {
  boundedDelta,
  closeSession,
  emptySession,
  implicitScores,
  observe,
  OBSERVED_ID_PREFIX,
  reducedTask,
  type CallOutcome,
  type Observation,
  type ObservedTrajectory,
  type SessionState,
} from "../toolnet/observed-session";
import { allRows, oneRow, run } from "./sql";
import type { TenantSettings } from "./tenant-settings";

/** However much implicit evidence a tool gets, its implicit share of the score stays within ±2 (one explicit score reaches 3). */
export const IMPLICIT_TOTAL_LIMIT = 2;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const LIST_LIMIT = 100;

/** A learned trajectory as `GET /v1/observed-sessions` shows it (`task` null once the retention period is over). */
export interface ObservedTrajectoryView {
  id: string;
  learnedAt: string;
  task: string | null;
  terms: string;
  tools: string[];
  outcomes: CallOutcome[];
  implicitScores: Record<string, number>;
}

export interface ObservedSessionView {
  id: string;
  openedAt: string;
  lastAt: string;
  closedAt: string | null;
  open: ObservedTrajectory | null;
  trajectories: ObservedTrajectoryView[];
}

/** One day of the learning curve: searches followed by a call, how many offered the tool called, what was learned. */
export interface LearningDay {
  day: string;
  searches: number;
  offeredHits: number;
  trajectories: number;
  sessions: number;
}

interface SessionRow {
  id: string;
  opened_at: number;
  last_at: number;
  closed_at: number | null;
  state: string;
  explicit_tools: string;
  learned: number;
}

interface TrajectoryRow {
  id: string;
  session_id: string;
  learned_at: number;
  task: string | null;
  terms: string;
  tools: string;
  outcomes: string;
  implicit: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The source a conversation's words are kept under: one per conversation, so it counts once however often it repeats. */
const wordsSource = (conversation: string): string => `${OBSERVED_ID_PREFIX}${conversation}`;

/**
 * The source of learned words behind a trajectory: an observed conversation's trajectories
 * (`observed:<conversation>:<n>`) share their conversation's words; a posted trajectory taught its own.
 */
export function wordsSourceOfTrajectory(id: string): string {
  const observed = /^(observed:.*):\d+$/.exec(id);
  return observed?.[1] ?? id;
}

/** The tools of a trajectory whose every call failed (they still show the chatbot's choice, with less weight). */
function failedTools(trajectory: ObservedTrajectory): Set<string> {
  const ok = new Set(trajectory.tools.filter((_tool, i) => trajectory.outcomes[i] !== "failure"));
  return new Set(trajectory.tools.filter((tool) => !ok.has(tool)));
}
const dayOf = (ms: number): string => iso(ms).slice(0, 10);

/**
 * What observed conversations teach the routing store (functions/routing/tenant-routing.ts, a
 * layer above, which implements this): their trajectories, their implicit scores, their task
 * texts reduced after the retention period, and trajectories forgotten.
 */
export interface ObservedLearning {
  /** `words` false: the trajectories teach no learned words (the conversation teaches its own, with its outcomes). */
  importTrajectories(
    trajectories: (Trajectory & { task?: string | undefined })[],
    unknownTools: "error" | "skip",
    words?: boolean,
  ): Outcome<StaticImportResult>;
  /** Each tool of `tools` learns its part of `task`'s words from `source` (the routing store's learned field). */
  learnWords(source: string, task: string, tools: readonly string[], kind: "observed", failed?: ReadonlySet<string>): void;
  /** An explicit score weighs the words `source` taught `tool` (a negative one takes them away). */
  scoreWords(source: string, tool: string, score: number): void;
  forgetWords(sources: readonly string[]): void;
  applyScores(evaluation: Evaluation): Outcome<FeedbackResult>;
  replaceTaskTexts(entries: readonly { id: string; task: string }[]): void;
  forgetTrajectories(ids: readonly string[]): number;
}

/**
 * Implicit learning from use: the conversations the service observes (MCP sessions, REST calls
 * with a `Conversation-Id`), joined into trajectories (observed-session.ts) and learned from as
 * posted trajectories are (first-step history and transitions), with the calls' outcomes as weak
 * scores. Owns the `observed_*` tables. The alarm closes idle conversations and, after the
 * retention period, reduces task texts to their terms (`alarmWork`).
 */
export class TenantObserved {
  readonly #sql: SqlStorage;
  readonly #settings: TenantSettings;
  readonly #routing: ObservedLearning;
  readonly #armAlarm: () => Promise<void>;
  /** The settings as last parsed, by their stored text: every recorded event reads them. */
  #parsed: { json: string | undefined; settings: LearningSettings } | undefined;

  constructor(sql: SqlStorage, settings: TenantSettings, routing: ObservedLearning, armAlarm: () => Promise<void>) {
    this.#sql = sql;
    this.#settings = settings;
    this.#routing = routing;
    this.#armAlarm = armAlarm;
  }

  learningSettings(): LearningSettings {
    const json = this.#settings.get(LEARNING_SETTING);
    const parsed = this.#parsed !== undefined && this.#parsed.json === json ? this.#parsed : { json, settings: learningSettingsOf(json) };
    this.#parsed = parsed;
    return { ...parsed.settings };
  }

  updateLearningSettings(settings: LearningSettings): LearningSettings {
    this.#settings.put(LEARNING_SETTING, JSON.stringify(settings));
    return settings;
  }

  /** A search in a conversation, with the tools it offered (best first). Nothing is kept when implicit learning is off. */
  async recordSearch(conversation: string, task: string, previous: string | null, offered: string[]): Promise<void> {
    await this.#record(conversation, { kind: "search", task, previous, offered });
  }

  /** A call of a tenant tool in a conversation, and its outcome. */
  async recordCall(conversation: string, tool: string, outcome: CallOutcome): Promise<void> {
    await this.#record(conversation, { kind: "call", tool, outcome });
  }

  async #record(conversation: string, observation: Observation): Promise<void> {
    if (!this.learningSettings().implicit) return;
    const now = Date.now();
    const row = oneRow<SessionRow>(this.#sql, "SELECT * FROM observed_sessions WHERE id = ?", conversation);
    const fresh = row === undefined || row.closed_at !== null;
    // A call opens no conversation: it would join nothing.
    if (fresh && observation.kind === "call") return;
    const result = observe(fresh ? emptySession() : (JSON.parse(row.state) as SessionState), observation);
    if (result.offeredHit !== undefined) this.#countDay(now, { searches: 1, offered_hits: result.offeredHit ? 1 : 0 });
    if (fresh) {
      run(
        this.#sql,
        "INSERT INTO observed_sessions (id, opened_at, last_at, state) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET last_at = excluded.last_at, closed_at = NULL, state = excluded.state",
        conversation,
        now,
        now,
        JSON.stringify(result.state),
      );
    } else {
      run(this.#sql, "UPDATE observed_sessions SET last_at = ?, state = ? WHERE id = ?", now, JSON.stringify(result.state), conversation);
    }
    if (result.closed !== undefined) this.#learn(conversation, result.closed, now);
    // The idle close of a new (or reopened) conversation.
    if (fresh) await this.#armAlarm();
  }

  /** End a conversation now (an MCP client's DELETE): its open trajectory is learned from. */
  close(conversation: string): boolean {
    const row = oneRow<SessionRow>(this.#sql, "SELECT * FROM observed_sessions WHERE id = ? AND closed_at IS NULL", conversation);
    if (row === undefined) return false;
    this.#close(row, Date.now());
    return true;
  }

  #close(row: SessionRow, now: number): void {
    const last = closeSession(JSON.parse(row.state) as SessionState);
    run(this.#sql, "UPDATE observed_sessions SET closed_at = ?, state = ? WHERE id = ?", now, JSON.stringify(emptySession()), row.id);
    if (last !== undefined) this.#learn(row.id, last, now);
  }

  /** A closed trajectory teaches routing: its tools and task (first step, transitions), and its outcomes as weak, bounded scores. */
  #learn(conversation: string, trajectory: ObservedTrajectory, now: number): void {
    const session = oneRow<{ learned: number; explicit_tools: string }>(
      this.#sql,
      "SELECT learned, explicit_tools FROM observed_sessions WHERE id = ?",
      conversation,
    );
    const learned = session?.learned ?? 0;
    const id = `${OBSERVED_ID_PREFIX}${conversation}:${learned + 1}`;
    this.#routing.importTrajectories([{ id, tools: trajectory.tools, task: trajectory.task }], "skip", false);
    this.#routing.learnWords(wordsSource(conversation), trajectory.task, trajectory.tools, "observed", failedTools(trajectory));
    const explicit = new Set(JSON.parse(session?.explicit_tools ?? "[]") as string[]);
    const applied = this.#applyImplicit(implicitScores(trajectory, explicit));
    run(
      this.#sql,
      "INSERT INTO observed_trajectories (id, session_id, learned_at, task, terms, tools, outcomes, implicit) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
      id,
      conversation,
      now,
      trajectory.task,
      reducedTask(trajectory.task),
      JSON.stringify(trajectory.tools),
      JSON.stringify(trajectory.outcomes),
      JSON.stringify(Object.fromEntries(applied)),
    );
    run(this.#sql, "UPDATE observed_sessions SET learned = learned + 1 WHERE id = ?", conversation);
    this.#countDay(now, { trajectories: 1, sessions: learned === 0 ? 1 : 0 });
  }

  /** Apply implicit scores within each tool's bound; returns the deltas applied (0 left out). */
  #applyImplicit(scores: ReadonlyMap<string, number>): Map<string, number> {
    const applied = new Map<string, number>();
    for (const [tool, score] of scores) {
      const total = oneRow<{ total: number }>(this.#sql, "SELECT total FROM observed_implicit WHERE tool = ?", tool)?.total ?? 0;
      const delta = boundedDelta(total, score, IMPLICIT_TOTAL_LIMIT);
      if (delta !== 0 && this.#routing.applyScores({ tools: [tool], scores: [delta] }).ok) {
        this.#addImplicitTotal(tool, delta);
        applied.set(tool, delta);
      }
    }
    return applied;
  }

  #addImplicitTotal(tool: string, delta: number): void {
    run(this.#sql, "INSERT INTO observed_implicit (tool, total) VALUES (?, ?) ON CONFLICT (tool) DO UPDATE SET total = total + excluded.total", tool, delta);
  }

  /**
   * Explicit feedback sent in a conversation wins over its implicit outcome: the tools it scores
   * get no implicit score from the conversation, and implicit scores already applied to them
   * from it are taken back.
   */
  noteExplicit(conversation: string, tools: readonly string[], scores: readonly number[] = []): void {
    const row = oneRow<SessionRow>(this.#sql, "SELECT * FROM observed_sessions WHERE id = ?", conversation);
    if (row === undefined) return;
    // The score also weighs the words the conversation taught each tool (a negative one takes them away).
    tools.forEach((tool, i) => this.#routing.scoreWords(wordsSource(conversation), tool, scores[i] ?? 0));
    const named = new Set(tools);
    const explicit = new Set([...(JSON.parse(row.explicit_tools) as string[]), ...named]);
    run(this.#sql, "UPDATE observed_sessions SET explicit_tools = ? WHERE id = ?", JSON.stringify([...explicit]), conversation);
    for (const trajectory of this.#trajectoriesOf(conversation)) {
      const implicit = JSON.parse(trajectory.implicit) as Record<string, number>;
      const taken = this.#takeBack(implicit, named);
      if (taken) run(this.#sql, "UPDATE observed_trajectories SET implicit = ? WHERE id = ?", JSON.stringify(implicit), trajectory.id);
    }
  }

  /** Reverse the implicit scores of `implicit` for the tools in `tools` (all when undefined), removing them from it. */
  #takeBack(implicit: Record<string, number>, tools: ReadonlySet<string> | undefined): boolean {
    let taken = false;
    for (const [tool, delta] of Object.entries(implicit)) {
      if (tools !== undefined && !tools.has(tool)) continue;
      this.#routing.applyScores({ tools: [tool], scores: [-delta] });
      this.#addImplicitTotal(tool, -delta);
      delete implicit[tool];
      taken = true;
    }
    return taken;
  }

  #trajectoriesOf(conversation: string): TrajectoryRow[] {
    return allRows<TrajectoryRow>(this.#sql, "SELECT * FROM observed_trajectories WHERE session_id = ? ORDER BY learned_at, id", conversation);
  }

  #countDay(now: number, counts: Partial<Record<"searches" | "offered_hits" | "trajectories" | "sessions", number>>): void {
    const day = dayOf(now);
    run(this.#sql, "INSERT INTO observed_days (day) VALUES (?) ON CONFLICT (day) DO NOTHING", day);
    for (const [column, value] of Object.entries(counts)) {
      if (value > 0) run(this.#sql, `UPDATE observed_days SET ${column} = ${column} + ? WHERE day = ?`, value, day);
    }
  }

  /** When the alarm next has work here: an idle conversation to close, or a task text past its retention. */
  nextDue(): number | null {
    const { idleMinutes, retentionDays } = this.learningSettings();
    const idle = oneRow<{ at: number | null }>(this.#sql, "SELECT MIN(last_at) AS at FROM observed_sessions WHERE closed_at IS NULL")?.at ?? null;
    const kept = oneRow<{ at: number | null }>(this.#sql, "SELECT MIN(learned_at) AS at FROM observed_trajectories WHERE task IS NOT NULL")?.at ?? null;
    const due = [idle === null ? null : idle + idleMinutes * MINUTE_MS, kept === null ? null : kept + retentionDays * DAY_MS].filter(
      (t): t is number => t !== null,
    );
    return due.length === 0 ? null : Math.min(...due);
  }

  /** The alarm's work (idempotent): close conversations idle past the setting, reduce task texts past the retention period. */
  alarmWork(now: number): { closed: number; reduced: number } {
    const { idleMinutes, retentionDays } = this.learningSettings();
    const idle = allRows<SessionRow>(this.#sql, "SELECT * FROM observed_sessions WHERE closed_at IS NULL AND last_at <= ?", now - idleMinutes * MINUTE_MS);
    for (const row of idle) this.#close(row, now);
    return { closed: idle.length, reduced: this.#reduceTexts(now - retentionDays * DAY_MS) };
  }

  /** Task texts learned before `before` are reduced to their terms, here and in what routing stored. */
  #reduceTexts(before: number): number {
    const expired = allRows<{ id: string; terms: string }>(
      this.#sql,
      "SELECT id, terms FROM observed_trajectories WHERE task IS NOT NULL AND learned_at <= ?",
      before,
    );
    this.#routing.replaceTaskTexts(expired.map((row) => ({ id: row.id, task: row.terms })));
    run(this.#sql, "UPDATE observed_trajectories SET task = NULL WHERE task IS NOT NULL AND learned_at <= ?", before);
    return expired.length;
  }

  /** The newest observed conversations, with what was learned from each. */
  list(limit = LIST_LIMIT): ObservedSessionView[] {
    const rows = allRows<SessionRow>(this.#sql, "SELECT * FROM observed_sessions ORDER BY last_at DESC, id LIMIT ?", limit);
    return rows.map((row) => ({
      id: row.id,
      openedAt: iso(row.opened_at),
      lastAt: iso(row.last_at),
      closedAt: row.closed_at === null ? null : iso(row.closed_at),
      open: (JSON.parse(row.state) as SessionState).open,
      trajectories: this.#trajectoriesOf(row.id).map((t) => ({
        id: t.id,
        learnedAt: iso(t.learned_at),
        task: t.task,
        terms: t.terms,
        tools: JSON.parse(t.tools) as string[],
        outcomes: JSON.parse(t.outcomes) as CallOutcome[],
        implicitScores: JSON.parse(t.implicit) as Record<string, number>,
      })),
    }));
  }

  /**
   * Delete observed conversations (one, or all when `conversation` is undefined) and unlearn them:
   * their trajectories leave the graph and task memory, and their implicit scores are taken back.
   * Returns how many conversations were deleted.
   */
  delete(conversation?: string): number {
    const sessions =
      conversation === undefined
        ? allRows<{ id: string }>(this.#sql, "SELECT id FROM observed_sessions")
        : allRows<{ id: string }>(this.#sql, "SELECT id FROM observed_sessions WHERE id = ?", conversation);
    const forgotten: string[] = [];
    for (const { id } of sessions) {
      for (const trajectory of this.#trajectoriesOf(id)) {
        this.#takeBack(JSON.parse(trajectory.implicit) as Record<string, number>, undefined);
        forgotten.push(trajectory.id);
      }
      run(this.#sql, "DELETE FROM observed_trajectories WHERE session_id = ?", id);
      run(this.#sql, "DELETE FROM observed_sessions WHERE id = ?", id);
    }
    this.#routing.forgetTrajectories(forgotten);
    this.#routing.forgetWords(sessions.map(({ id }) => wordsSource(id)));
    return sessions.length;
  }

  /** The learning curve, one entry per day with activity, oldest first (the last `days` days). */
  curve(days = 90): LearningDay[] {
    const since = dayOf(Date.now() - days * DAY_MS);
    return allRows<{ day: string; searches: number; offered_hits: number; trajectories: number; sessions: number }>(
      this.#sql,
      "SELECT day, searches, offered_hits, trajectories, sessions FROM observed_days WHERE day > ? ORDER BY day",
      since,
    ).map((r) => ({ day: r.day, searches: r.searches, offeredHits: r.offered_hits, trajectories: r.trajectories, sessions: r.sessions }));
  }
}
