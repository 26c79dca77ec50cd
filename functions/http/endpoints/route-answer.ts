import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { RouteAnswer as RouteAnswerType } from "../../routing/tenant-routing";
import { ANSWER_PARTS, DEFAULT_ANSWER_PARTS, DEFAULT_MAX_TOKENS } from "../../toolnet/answer-budget";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";

/** A routing answer's token budget (o200k_base tokens of the prompt block plus the tools array). */
export const MaxTokens = z.number().int().min(1).max(1_000_000);

/** Which parts a routing answer returns (and its budget counts). */
export const AnswerInclude = z
  .array(z.enum(ANSWER_PARTS))
  .min(1, "include names at least one part: tools, prompt")
  .max(ANSWER_PARTS.length)
  .refine((parts) => new Set(parts).size === parts.length, { message: "include names each part once" });

/** Which routing signals put a candidate in the answer (fused routing; see signal-fusion.ts). */
const RouteWhy = z
  .object({
    relevance: z.object({ rank: z.number().int() }).optional().describe("Rank in retrieval for the task text"),
    transition: z
      .object({ from: z.string(), weight: z.number().int(), observed: z.number().int() })
      .optional()
      .describe("Learned transition from `from` (eq. 6 weight per mille, times observed)"),
    dataFlow: z
      .object({ from: z.string(), field: z.string(), parameter: z.string() })
      .optional()
      .describe("`field` of `from`'s output fills this tool's required `parameter`"),
    feeds: z
      .object({ to: z.string(), field: z.string(), parameter: z.string() })
      .optional()
      .describe(
        "This tool's output `field` fills `parameter`, a required input of the relevant tool `to` (when the task names something and `to` needs its identifier, this tool looks it up by name and is placed right after `to`)",
      ),
    history: z
      .object({ tasks: z.number().int() })
      .optional()
      .describe("How many similar earlier tasks of this tenant used it (at a later step: used it right after `previous`)"),
    sibling: z.object({ of: z.string() }).optional().describe("An operation of the same API as `of`, one of the tools most relevant to the task"),
    prior: z
      .object({ observed: z.number().int() })
      .optional()
      .describe(
        "Later steps: how often it was observed after some tool (the backoff when no other signal knows the step). First step: how many of this tenant's conversations started with it (a usual start, weighed by the calibrated `starts`)",
      ),
    unmatched: z
      .object({ rank: z.number().int() })
      .optional()
      .describe(
        "First step: its rank among the tools this tenant's users chose where the request's own words did not find them (1: most often; weighed by the calibrated `unmatched`)",
      ),
  })
  .openapi("RouteWhy");

export const RouteAnswer = z
  .object({
    previous: z.string().nullable(),
    via: z.enum(["retrieval", "retrieval+embeddings", "graph", "fused"]),
    fallback: z
      .object({ method: z.enum(["partial-match", "learned-start", "starting-tools"]), reason: z.string() })
      .optional()
      .describe("Present when no tool matched the task as written and a stand-in ranking was used"),
    candidates: z
      .array(
        z.object({
          name: z.string(),
          weight: z.number().int(),
          description: z.string(),
          view: z.enum(["compact", "required-only"]).optional().describe("Which view of the tool `tools` shows (absent without `tools`)"),
          tokens: z.number().int().optional().describe("Tokens of its `tools` entry (without `tools`: of its line in `prompt`)"),
          why: RouteWhy.optional().describe("Fused routing: the signals that ranked it"),
        }),
      )
      .describe("The ranked candidates shown (in `prompt` and `tools`), best first"),
    prompt: z
      .string()
      .optional()
      .describe(
        "With `include: [\"prompt\"]`: the candidates as a prompt block in ToolNet's format (next to `tools`: their weights in its order, and Finish; alone: the paper's eq. 4 list, one line per tool)",
      ),
    tools: z
      .array(
        z.object({
          type: z.literal("function"),
          function: z.object({
            name: z.string(),
            description: z.string().optional().describe("Absent when it would only restate the name"),
            parameters: z.record(z.string(), z.unknown()).optional(),
          }),
        }),
      )
      .optional()
      .describe("Unless `include` leaves it out: the candidates as an OpenAI `tools` array (compact views), best first"),
    overBudget: z
      .array(
        z.object({
          name: z.string(),
          weight: z.number().int(),
          tokens: z.number().int().describe("Tokens of its compact view (without `tools`: of its line in `prompt`)"),
          requiredOnlyTokens: z.number().int().describe("Tokens of its view with required parameters only"),
          reason: z.enum(["budget", "required-parameters-exceed-budget"]),
          message: z.string(),
        }),
      )
      .describe("Ranked tools left out because they did not fit maxTokens, with their cost"),
    tokens: z
      .object({ prompt: z.number().int(), tools: z.number().int(), total: z.number().int(), budget: z.number().int() })
      .describe("o200k_base tokens of `prompt` and of `tools` as JSON text (0 for a part not returned); total ≤ budget"),
  })
  .openapi("RouteAnswer");

/** True only when A and B are identical, optional fields included (mutual assignability would ignore an optional field one of them lacks). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The documented schema is the answer type the tenant object returns, field for field; the build fails when they drift. */
const documentedAsReturned: Same<z.infer<typeof RouteAnswer>, RouteAnswerType> = true;
void documentedAsReturned;

const RoutingSettings = z
  .object({
    maxTokens: z.number().int().min(200).max(1_000_000).describe("Default token budget of a routing answer"),
    include: AnswerInclude.optional().describe('Default parts of a routing answer (a request\'s `include` overrides it); default ["tools"]'),
  })
  .strict()
  .openapi("RoutingSettings");

const SETTING = "routing";

const SignalWeights = z
  .object({
    history: z.number().describe("1: similar earlier tasks may overrule the words' best match at a first step; 0: they only widen the rest"),
    transitions: z.number().describe("Weight of learned transitions at later steps (0: muted)"),
    embeddings: z.number().describe("Weight of the embeddings ranking against BM25's 1 (0: muted, the words alone); used when an embeddings model is set"),
    learned: z
      .number()
      .describe("Share of `learning.fieldWeight` the learned field counts at a first step (0: muted; judged with each replayed task's own words left out)"),
    starts: z
      .number()
      .describe(
        "Weight of the tenant's usual starts (tools a large share of its recent conversations began with) at a first step, against a relevance rank's 1 (0: muted, the default until the replay shows them helping; judged with each replayed task's own start left out)",
      ),
    unmatched: z
      .number()
      .describe(
        "Weight of the tools this tenant's users chose where the request's own words did not find them (an answer engine asked open questions) at a first step, against a relevance rank's 1 (default 0.25; 0: muted, where the replay holds 2 more tasks without them; judged with what each replayed task's own conversation taught left out; needs the learned field on)",
      ),
  })
  .openapi("SignalWeights");

const SignalReplay = z.object({
  judged: z.number().int().describe("Replayed tasks (later steps, for transitions) this signal was judged on"),
  grid: z.array(z.number()).describe("The weights tried"),
  hits: z.array(z.number().int()).describe("Per weight of `grid`: judged tasks whose tool the replay held in the first 5"),
});

const RoutingCalibration = z
  .object({
    weights: SignalWeights,
    replays: z.object({
      history: SignalReplay,
      transitions: SignalReplay,
      embeddings: SignalReplay,
      learned: SignalReplay,
      starts: SignalReplay,
      unmatched: SignalReplay,
    }),
    madeAt: z.string().nullable().describe("When the weights were chosen; null: never, the defaults apply"),
    stale: z.boolean().describe("A recalibration is due or under way (in the background); meanwhile routing uses `weights`"),
  })
  .openapi("RoutingCalibration");

/** The tenant's default routing budget and answer parts (`setting:routing`); the service's when unset. */
export function registerRoutingSettingsEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/routing/calibration",
      tags: ["routing"],
      summary: "How much each routing signal counts for this tenant, chosen from its own tasks replayed",
      security: tenantSecurity,
      responses: { 200: { description: "Calibration", content: { "application/json": { schema: RoutingCalibration } } }, ...problems(401, 429) },
    }),
    async (c) => c.json(await c.var.tenant.routing.calibration(), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/settings/routing",
      tags: ["settings"],
      summary: "The default token budget and parts of routing answers",
      security: tenantSecurity,
      responses: { 200: { description: "Settings", content: { "application/json": { schema: RoutingSettings } } }, ...problems(401) },
    }),
    async (c) => {
      const json = await c.var.tenant.settings.get(SETTING);
      const stored = json === undefined ? { maxTokens: DEFAULT_MAX_TOKENS } : RoutingSettings.parse(JSON.parse(json));
      return c.json({ include: [...DEFAULT_ANSWER_PARTS], ...stored }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/settings/routing",
      tags: ["settings"],
      summary: "Change the default token budget and parts of routing answers",
      security: tenantSecurity,
      request: { body: jsonBody(RoutingSettings) },
      responses: { 200: { description: "Settings", content: { "application/json": { schema: RoutingSettings } } }, ...problems(400, 401) },
    }),
    async (c) => {
      const settings = c.req.valid("json");
      await c.var.tenant.settings.put(SETTING, JSON.stringify(settings));
      return c.json(settings, 200);
    },
  );
}
