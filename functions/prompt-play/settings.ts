import { Failure } from "../common/failures";
import { z } from "zod";

/**
 * Play2Prompt job settings, validated with zod so a bad job is refused before any model call.
 *
 * The defaults are the paper's (§3.1, "Optimization Details"): "N_refine is set to 5 for the
 * demonstration optimization procedure. We set a depth limit of 5, beam width of 3 and conduct 3
 * explorations per node. The top 3 examples are generated and selected for each tool […] Beam
 * search is again applied with the same settings to select the best tool description." So
 * depth 5, beam width 3, expansions per node 3, N_refine 5 (the query/answer rollout of
 * Algorithm 1, lines 7–12), 3 demonstrations. The paper's rejection sampling of the invocation
 * (Algorithm 1, lines 2–6) is an unbounded `while`; `invocationAttempts` bounds it, because a
 * tool that always fails would otherwise spin forever.
 */

/** Caps that are generous for real use; anything above them is a mistake, not a setting. */
const MAX_DEPTH = 20;
const MAX_WIDTH = 20;
const MAX_EXPANSIONS = 20;
/** depth × beam width × expansions: every expansion costs several model calls. */
const MAX_TOTAL_EXPANSIONS = 2_000;

export const BeamSettingsSchema = z
  .object({
    depth: z
      .number()
      .int("depth must be a whole number")
      .min(1, "depth must be at least 1 (one level of expansion below the root)")
      .max(MAX_DEPTH, `depth must be at most ${MAX_DEPTH}`),
    beamWidth: z
      .number()
      .int("beamWidth must be a whole number")
      .min(1, "beamWidth must be at least 1 (the beam keeps the best k nodes; k = 0 keeps nothing)")
      .max(MAX_WIDTH, `beamWidth must be at most ${MAX_WIDTH}`),
    expansionsPerNode: z
      .number()
      .int("expansionsPerNode must be a whole number")
      .min(1, "expansionsPerNode must be at least 1")
      .max(MAX_EXPANSIONS, `expansionsPerNode must be at most ${MAX_EXPANSIONS}`),
  })
  .strict()
  .superRefine((s, ctx) => {
    const total = s.depth * s.beamWidth * s.expansionsPerNode;
    if (total > MAX_TOTAL_EXPANSIONS) {
      ctx.addIssue({
        code: "custom",
        message: `depth × beamWidth × expansionsPerNode is ${total}; at most ${MAX_TOTAL_EXPANSIONS} expansions per search`,
        path: ["depth"],
      });
    }
  });
export type BeamSettings = z.infer<typeof BeamSettingsSchema>;

export const BudgetLimitsSchema = z
  .object({
    maxModelCalls: z
      .number()
      .int("maxModelCalls must be a whole number")
      .min(1, "maxModelCalls must be at least 1")
      .max(100_000, "maxModelCalls must be at most 100000"),
    maxTokens: z
      .number()
      .int("maxTokens must be a whole number")
      .min(1, "maxTokens must be at least 1")
      .max(100_000_000, "maxTokens must be at most 100000000"),
  })
  .strict();
export type BudgetLimits = z.infer<typeof BudgetLimitsSchema>;

export const PAPER_DEFAULTS = Object.freeze({ depth: 5, beamWidth: 3, expansionsPerNode: 3, refineSteps: 5, demonstrations: 3 });

export const PlaySettingsSchema = z
  .object({
    depth: z.number().default(PAPER_DEFAULTS.depth),
    beamWidth: z.number().default(PAPER_DEFAULTS.beamWidth),
    expansionsPerNode: z.number().default(PAPER_DEFAULTS.expansionsPerNode),
    /** N_refine: rollout steps of query/answer sampling with self-reflection (Algorithm 1, l. 7). */
    refineSteps: z
      .number()
      .int("refineSteps must be a whole number")
      .min(1, "refineSteps (N_refine) must be at least 1")
      .max(20, "refineSteps (N_refine) must be at most 20")
      .default(PAPER_DEFAULTS.refineSteps),
    /** Bound on the rejection sampling of one invocation (Algorithm 1, l. 2–6). */
    invocationAttempts: z
      .number()
      .int("invocationAttempts must be a whole number")
      .min(1, "invocationAttempts must be at least 1")
      .max(20, "invocationAttempts must be at most 20")
      .default(5),
    /** M: demonstrations kept, and used as the proxy test set of the description search. */
    demonstrations: z
      .number()
      .int("demonstrations must be a whole number")
      .min(1, "demonstrations must be at least 1")
      .max(20, "demonstrations must be at most 20")
      .default(PAPER_DEFAULTS.demonstrations),
    budget: BudgetLimitsSchema.extend({
      /** Share of the budget the demonstration phase may use, so the description phase always gets some. */
      demonstrationShare: z.number().min(0.05, "demonstrationShare must be at least 0.05").max(0.95, "demonstrationShare must be at most 0.95").default(0.5),
    })
      .strict()
      .default({ maxModelCalls: 1_000, maxTokens: 2_000_000, demonstrationShare: 0.5 }),
  })
  .strict()
  .superRefine((s, ctx) => {
    // The three search numbers share the beam-search rules; checking them here keeps one message per problem.
    const beam = BeamSettingsSchema.safeParse({ depth: s.depth, beamWidth: s.beamWidth, expansionsPerNode: s.expansionsPerNode });
    if (!beam.success) for (const issue of beam.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
  });
export type PlaySettings = z.infer<typeof PlaySettingsSchema>;
export type PlaySettingsInput = z.input<typeof PlaySettingsSchema>;

export interface SettingsIssue {
  path: string;
  message: string;
}

/**
 * A refused setting: a Failure (invalid request, code `invalid_play_settings`) whose field errors
 * list each problem as `{path, message}`, the service's error shape.
 */
export function invalidSettings(what: string, issues: SettingsIssue[]): Failure {
  const message = `invalid ${what}: ${issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`)).join("; ")}`;
  return Failure.of("invalid_play_settings", message, { errors: issues });
}

function issuesOf(error: z.ZodError): SettingsIssue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
}

/** Beam-search settings, or an `invalid_play_settings` Failure that names every bad field. */
export function validateBeamSettings(input: unknown): BeamSettings {
  const parsed = BeamSettingsSchema.safeParse(input);
  if (!parsed.success) throw invalidSettings("beam search settings", issuesOf(parsed.error));
  return parsed.data;
}

/** Play2Prompt settings with the paper's defaults filled in, or an `invalid_play_settings` Failure. */
export function validatePlaySettings(input: unknown = {}): PlaySettings {
  const parsed = PlaySettingsSchema.safeParse(input);
  if (!parsed.success) throw invalidSettings("Play2Prompt settings", issuesOf(parsed.error));
  return parsed.data;
}
