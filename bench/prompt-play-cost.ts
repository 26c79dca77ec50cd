/**
 * Model calls and tokens per optimised tool at the paper's default settings (depth 5, beam width
 * 3, 3 expansions per node, N_refine 5, M = 3), on the paper's Figure 2 case, through the whole
 * service in workerd with the scripted model (tokens counted with a real tokenizer on the real
 * prompts). Run: `npm run bench -- prompt-play-cost [--skip-build]`.
 */
import { existsSync } from "node:fs";
import buildBundles from "../test/helpers/global-setup";
import { figure2World, RATES_TOOL } from "../test/helpers/figure2-world";
import { createTenant, startService } from "../test/helpers/service";

interface Job {
  status: string;
  lastError: string | null;
  result: {
    improved: boolean;
    originalScore: number;
    bestScore: number;
    stoppedBy: string;
    usage: { calls: number; promptTokens: number; completionTokens: number; totalTokens: number; byPurpose?: Record<string, unknown> };
  } | null;
}

if (!(process.argv.includes("--skip-build") && existsSync(".test-build/main"))) buildBundles();
const { model, outbound, toolCalls } = figure2World();
const service = await startService({ outbound });
try {
  const tenant = await createTenant(service, "cost");
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: [RATES_TOOL] } });
  const started = performance.now();
  const job = await service.json<{ jobId: string }>("POST", "/v1/tools/getHistoricalRates/optimize", { key: tenant.key, body: {} });
  let result: Job | undefined;
  for (let i = 0; i < 3_000 && result === undefined; i++) {
    const polled = await service.json<Job>("GET", `/v1/jobs/${job.body.jobId}`, { key: tenant.key });
    if (polled.body.status === "succeeded" || polled.body.status === "failed") result = polled.body;
    else await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result?.result == null) {
    console.log(`job did not succeed: ${JSON.stringify(result)}`);
  } else {
    const { usage } = result.result;
    console.log("Play2Prompt at the paper's default settings (Figure 2 case, scripted model)");
    console.log(
      `improved: ${result.result.improved} (score ${result.result.originalScore} → ${result.result.bestScore}), stopped by: ${result.result.stoppedBy}`,
    );
    console.log(`model calls: ${usage.calls}, tokens: ${usage.totalTokens} (prompt ${usage.promptTokens}, completion ${usage.completionTokens})`);
    console.log(`tool calls: ${toolCalls()}, chat requests seen by the model: ${model.chatRequests.length}, wall time: ${seconds} s`);
  }
} finally {
  await service.dispose();
}
