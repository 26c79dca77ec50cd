import { expect } from "vitest";
import type { LearnedWordsView } from "../../functions/routing/learned-words";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import type { TestService } from "./service";

/**
 * The tool a task finds by words alone, or undefined when a fallback stands in: mode "graph"
 * leaves similar tasks' votes out of a first step, so only the tools' own text and learned fields count.
 */
export async function topToolByWords(service: TestService, key: string, task: string): Promise<string | undefined> {
  const answer = (await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k: 1, mode: "graph" } })).body;
  return answer.fallback === undefined ? answer.candidates[0]?.name : undefined;
}

/** What a tool learned, as `GET /v1/tools/{name}/learned-words` shows it. */
export async function learnedWordsOf(service: TestService, key: string, tool: string): Promise<LearnedWordsView> {
  const answer = await service.json<LearnedWordsView>("GET", `/v1/tools/${tool}/learned-words`, { key });
  expect(answer.status).toBe(200);
  return answer.body;
}
