import { z } from "zod";
import { LEARNED_FIELD_WEIGHT } from "./retrieval/learned-field";

/** A tenant's implicit learning options (tenant setting `learning`), defaults filled. */
export const LearningSettings = z
  .object({
    implicit: z
      .boolean()
      .default(true)
      .describe("Learn from what callers search for and then call (observed sessions); false stops recording at the next request"),
    retentionDays: z.number().int().min(1).max(3650).default(30).describe("Days an observed task's text is kept; after that only its index terms stay"),
    idleMinutes: z.number().int().min(1).max(1440).default(30).describe("A conversation with no search or call for this long is closed and learned from"),
    fieldWeight: z
      .number()
      .min(0)
      .max(4)
      .default(LEARNED_FIELD_WEIGHT)
      .describe("Weight of each tool's learned words (the requests that chose it) against its own text at first steps and in run candidate sets; 0: off"),
    startsWeight: z
      .number()
      .min(0)
      .max(4)
      .default(1)
      .describe(
        "Weight of the tenant's usual first tools (those a large share of its recent conversations began with) at first steps, times the share its own replayed tasks choose (`GET /v1/routing/calibration` `starts`); 0: off",
      ),
    examplesAtImport: z
      .boolean()
      .optional()
      .describe(
        "After an import, a background job asks the tenant's model for a few example requests per new or changed tool, which teach the tool's learned words (below observed use). Unset: on when the tenant has configured a model of its own (PUT /v1/settings/model); true: also with the service's model; false: off. Never without a model; tokens count toward the tenant's daily model tokens",
      ),
  })
  .strict();
export type LearningSettings = z.infer<typeof LearningSettings>;

export const LEARNING_SETTING = "learning";

/** The stored setting's JSON text (undefined: unset) as settings, defaults filled; unreadable JSON gives the defaults. */
export function learningSettingsOf(json: string | undefined): LearningSettings {
  const parsed = LearningSettings.safeParse(json === undefined ? {} : JSON.parse(json));
  return parsed.success ? parsed.data : LearningSettings.parse({});
}
