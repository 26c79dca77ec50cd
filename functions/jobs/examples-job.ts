import type { JobRecord } from "../storage/tenant-jobs";
import type { JobStores } from "./job-stores";
import type { ModelClient } from "../llm/client";
import { addUsage, type TokenUsage, ZERO_USAGE } from "../llm/usage";
import { modelClientFor } from "../services/model-client";
import { ExamplesJobRequest } from "../services/example-requests-at-import";
import { exampleRequestMessages, parseExampleRequests, TOOLS_PER_CALL, type ToolToExemplify } from "../prompt-play/example-requests";

/**
 * The example-writing job (`kind: "examples"`), queued when an import ends: the tenant's model
 * writes a few example requests for each imported tool that has none, several tools per call,
 * and each tool's learned field learns their words (routing's `teachExamples`). Each alarm makes
 * a few calls and continues later; tools are recorded as job items, so a resumed job skips them.
 * A failure of the model ends the job saying why; the import it follows is done whatever happens.
 */

/** Tools one job writes examples for, at most: a big import's tools cost a bounded share of the tenant's tokens. */
export const MAX_TOOLS_PER_JOB = 240;
/** Model calls per alarm before the job hands the object back and continues. */
const CALLS_PER_SLICE = 4;
/** Completion tokens one call may use (3 short requests for each of 8 tools fit well within it). */
const MAX_COMPLETION_TOKENS = 1_500;

interface ExamplesProgress {
  taught: number;
  without: number;
  calls: number;
}

export async function runExamplesJob(env: Env, tenantId: string, stores: JobStores, job: JobRecord): Promise<void> {
  const request = ExamplesJobRequest.parse(job.request);
  const model = await modelClientFor(env, tenantId, stores);
  if (!model.ok) return stopped(stores, job, `no model to write example requests: ${model.problem.detail ?? model.problem.kind}`);
  const pending = await toolsWithoutExamples(stores, job, request);
  const progress: ExamplesProgress = { taught: 0, without: 0, calls: 0, ...(job.progress as Partial<ExamplesProgress>) };
  let usage = { ...ZERO_USAGE, ...(job.usage as Partial<TokenUsage>) };
  for (let call = 0; call < CALLS_PER_SLICE && pending.length > 0; call += 1) {
    const spent = await budgetSpent(stores);
    if (spent !== undefined) return stopped(stores, job, spent, progress);
    const batch = pending.splice(0, TOOLS_PER_CALL);
    const answer = await askModel(model.value, batch);
    if ("error" in answer) return stopped(stores, job, `the model failed: ${answer.error}`, progress);
    usage = addUsage(usage, answer.usage);
    progress.calls += 1;
    await teachBatch(stores, job.id, batch, answer.requests, progress);
    stores.jobs.progress(job.id, { ...progress }, { ...usage });
  }
  if (pending.length > 0) return stores.jobs.continueLater(job.id);
  stores.jobs.finish(job.id, "succeeded", { ...progress });
}

/** The job's tools that are still registered, have no example requests, and were not handled by an earlier slice. */
async function toolsWithoutExamples(stores: JobStores, job: JobRecord, request: ExamplesJobRequest): Promise<ToolToExemplify[]> {
  const asked = request.tools === undefined ? undefined : new Set(request.tools);
  const handled = stores.jobs.itemStatus(job.id);
  const names = (await stores.registry.toolSummaries())
    .filter((tool) => tool.source === request.source && (asked === undefined || asked.has(tool.name)) && !handled.has(tool.name))
    .map((tool) => tool.name)
    .slice(0, Math.max(0, MAX_TOOLS_PER_JOB - handled.size));
  const taught = new Set(await stores.routing.toolsWithExamples(names));
  const tools: ToolToExemplify[] = [];
  for (const name of names.filter((n) => !taught.has(n))) {
    const definition = (await stores.registry.getTool(name))?.definition;
    if (definition === undefined) continue;
    const description = [definition.summary, definition.description].filter((text) => text !== undefined && text !== "").join(". ");
    tools.push({ name, description, parameters: definition.parameters.map((p) => p.name) });
  }
  return tools;
}

/** Why the tenant's daily model tokens leave nothing for this job, or undefined while they do. */
async function budgetSpent(stores: JobStores): Promise<string | undefined> {
  const limit = (await stores.quotas.settings()).modelTokensPerDay;
  const used = await stores.quotas.modelTokensToday(Date.now());
  return used >= limit ? `the tenant's model tokens for today are used up (${used} of ${limit}); tools left without example requests` : undefined;
}

async function askModel(
  model: ModelClient,
  batch: readonly ToolToExemplify[],
): Promise<{ requests: Map<string, string[]> | undefined; usage: TokenUsage } | { error: string }> {
  try {
    const answer = await model.chat({ messages: exampleRequestMessages(batch), purpose: "examples", temperature: 0.7, maxTokens: MAX_COMPLETION_TOKENS });
    return {
      requests: parseExampleRequests(
        answer.content ?? "",
        batch.map((t) => t.name),
      ),
      usage: answer.usage,
    };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Each tool of the batch learns its requests' words; each is recorded as a job item (taught, or why not). */
async function teachBatch(
  stores: JobStores,
  jobId: string,
  batch: readonly ToolToExemplify[],
  requests: Map<string, string[]> | undefined,
  progress: ExamplesProgress,
): Promise<void> {
  for (const { name } of batch) {
    const written = requests?.get(name);
    if (written === undefined) {
      progress.without += 1;
      stores.jobs.setItem(jobId, name, "none", { reason: requests === undefined ? "the model's answer was not the JSON asked for" : "the model wrote none" });
      continue;
    }
    await stores.routing.teachExamples(name, written);
    progress.taught += 1;
    stores.jobs.setItem(jobId, name, "taught", { requests: written });
  }
}

/** The job ends here, saying why (the import it follows is done whatever happens). */
function stopped(stores: JobStores, job: JobRecord, why: string, progress?: ExamplesProgress): void {
  stores.jobs.finish(job.id, "failed", { error: why, ...progress });
}
