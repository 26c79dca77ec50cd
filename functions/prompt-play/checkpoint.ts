import { z } from "zod";
import { BudgetUsageSchema } from "./budget";
import { invalidSettings } from "./settings";
import { DemonstrationSchema } from "./types";

/**
 * The resumable state of a Play2Prompt job, as plain JSON. A job is handed one after every
 * expansion; passing it back as `resumeFrom` continues where it stopped. It is validated on the
 * way back in, because it comes from storage and may be from an older version or damaged.
 */

const StopReasonSchema = z.enum(["budget", "depth", "converged"]);

const BeamEntrySchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  score: z.number(),
  summary: z.string(),
});

const BeamRecordSchema = z.object({
  depth: z.number().int().nonnegative(),
  beam: z.array(BeamEntrySchema),
  candidates: z.array(BeamEntrySchema),
  partial: z.boolean(),
});

function beamStateSchema<T extends z.ZodType>(state: T) {
  const node = z.object({
    id: z.string(),
    parentId: z.string().nullable(),
    depth: z.number().int().nonnegative(),
    index: z.number().int().nonnegative(),
    score: z.number(),
    summary: z.string(),
    state,
  });
  return z.object({
    depth: z.number().int().min(1),
    beam: z.array(node),
    children: z.array(node),
    next: z.number().int().nonnegative(),
    records: z.array(BeamRecordSchema),
    best: z.array(node),
    stoppedBy: StopReasonSchema.optional(),
  });
}

const DemonstrationNodeStateSchema = z.object({
  demonstration: DemonstrationSchema.optional(),
  reflection: z.string().optional(),
});

const SolveReportSchema = z.object({
  query: z.string(),
  expectedArgs: z.record(z.string(), z.unknown()),
  usedArgs: z.record(z.string(), z.unknown()).optional(),
  solved: z.boolean(),
  error: z.string().optional(),
  output: z.unknown().optional(),
});

const DescriptionNodeStateSchema = z.object({
  description: z.string(),
  solved: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  reports: z.array(SolveReportSchema),
  reflection: z.string().optional(),
});

export const PlayCheckpointSchema = z.object({
  version: z.literal(1),
  toolName: z.string(),
  originalDescription: z.string(),
  /** The whole job's usage so far. */
  usage: BudgetUsageSchema,
  /** The demonstration phase's share of it. */
  demonstrationUsage: BudgetUsageSchema,
  demonstrationSearch: beamStateSchema(DemonstrationNodeStateSchema).optional(),
  /** The proxy test set, fixed once the description phase starts. */
  demonstrations: z.array(DemonstrationSchema).optional(),
  descriptionSearch: beamStateSchema(DescriptionNodeStateSchema).optional(),
});
export type PlayCheckpoint = z.infer<typeof PlayCheckpointSchema>;

/** A stored checkpoint checked for shape and for belonging to this tool, or a clear error. */
export function parseCheckpoint(value: unknown, toolName: string): PlayCheckpoint {
  const parsed = PlayCheckpointSchema.safeParse(value);
  if (!parsed.success) {
    throw invalidSettings(
      "Play2Prompt checkpoint",
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    );
  }
  if (parsed.data.toolName !== toolName) {
    throw invalidSettings("Play2Prompt checkpoint", [{ path: "toolName", message: `the checkpoint is for tool ${parsed.data.toolName}, not ${toolName}` }]);
  }
  return parsed.data;
}
