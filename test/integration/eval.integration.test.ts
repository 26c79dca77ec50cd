import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSet } from "../../bench/eval/datasets";
import { allToolsCandidates, checkScriptedTasks, evaluateSet, MAX_RUN_TOOLS, type SetResult } from "../../bench/eval/evaluate";
import { scriptedMismatches } from "../../bench/eval/run-eval";
import { scriptedRules, scriptedTasksFor, SCRIPTED_TASKS } from "../../bench/eval/scripted-programs";
import { startEvalService, type EvalService } from "../../bench/eval/service";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";

/**
 * The ATC evaluation end to end in scripted mode: the real service in workerd, the simulated
 * tool world, hand-written programs as the model's answers, and the paper's metrics computed
 * from the runs' traces. Each program's metrics are known in advance, so the metric pipeline
 * (trace → scoreTask → scoreSet) is checked on real runs, imperfect ones included.
 */

let evalService: EvalService;
let model: ScriptedModel;

beforeAll(async () => {
  model = createScriptedModel({ rules: scriptedRules(SCRIPTED_TASKS) });
  evalService = await startEvalService({ kind: "scripted", model });
});
afterAll(async () => evalService.dispose());

function task(result: SetResult, id: string) {
  const found = result.tasks.find((t) => t.id === id);
  if (found === undefined) throw new Error(`no result for ${id}`);
  return found;
}

describe("ATC evaluation, scripted", () => {
  it("scripted programs match the data files", () => {
    expect(checkScriptedTasks(scriptedTasksFor("restbench"), loadSet("restbench"))).toEqual([]);
    expect(checkScriptedTasks(scriptedTasksFor("autotools"), loadSet("autotools"))).toEqual([]);
  });

  it("keeps gold tools among at most 50 candidates, reproducibly", () => {
    const all = Array.from({ length: 54 }, (_, i) => `t${i}`);
    const picked = allToolsCandidates(all, ["t53", "t7", "t53"], "rb-9");
    expect(picked).toHaveLength(MAX_RUN_TOOLS);
    expect(picked).toEqual(expect.arrayContaining(["t53", "t7"]));
    expect(allToolsCandidates(all, ["t53", "t7"], "rb-9")).toEqual(picked);
    expect(allToolsCandidates(all.slice(0, 10), [], "x")).toEqual(all.slice(0, 10));
  });

  it("RestBench TMDB: success, path and precision of known programs", async () => {
    const scripted = scriptedTasksFor("restbench");
    const result = await evaluateSet(evalService.service, "restbench", {
      routing: false,
      maxAttempts: 3,
      only: scripted.map((s) => s.id),
      tenantId: "eval-restbench",
    });
    expect(result.toolCount).toBe(54);
    for (const s of scripted) expect(scriptedMismatches(s, task(result, s.id)), s.id).toEqual([]);

    // Every run got the API's maximum of candidates with its gold tools among them.
    for (const t of result.tasks) {
      expect(t.candidates).toBe(MAX_RUN_TOOLS);
      expect(t.goldInCandidates).toBe(true);
      expect(t.candidateSource).toBe("request");
    }

    // rb-0: correct 2-tool chain.
    const clean = task(result, "rb-0");
    expect(clean.gold).toEqual(["getSearchPerson", "getPersonPersonIdMovieCredits"]);
    expect(clean.calls).toEqual([
      { tool: "getSearchPerson", ok: true },
      { tool: "getPersonPersonIdMovieCredits", ok: true },
    ]);
    expect(clean.answer).toMatch(/^Sofia Coppola directed \d+ movies$/);
    expect(clean.modelCalls).toBe(1);
    expect(clean.tokens).toBeGreaterThan(0);

    // rb-1: the missing field is attributed to the search tool from the program line; the revision repairs it.
    const repaired = task(result, "rb-1");
    expect(repaired.run?.attempts[0]?.error?.message).toMatch(/TypeError/);
    expect(repaired.run?.attempts[0]?.attributedTool).toBe("getSearchMovie");
    expect(repaired.run?.modelCalls.map((m) => m.purpose)).toEqual(["generate", "revise"]);
    expect(repaired.answer).toMatch(/^The lead actor is /);
    expect(repaired.tokens).toBeGreaterThan(clean.tokens);

    // rb-16: one gold call plus one unneeded call → precision 1/2.
    expect(task(result, "rb-16").calls.map((c) => c.tool)).toEqual(["getMovieTopRated", "getMovieMovieId"]);

    // rb-13: the wrong argument is refused before sending in every attempt: both gold tools
    // called (path 1, precision 1), but one never succeeds (success 0).
    const unrepaired = task(result, "rb-13");
    expect(unrepaired.calls).toEqual([
      { tool: "getTrendingMediaTypeTimeWindow", ok: true },
      { tool: "getMovieMovieIdCredits", ok: false },
    ]);
    expect(unrepaired.run?.attempts.map((a) => a.attributedTool)).toEqual(["getMovieMovieIdCredits", "getMovieMovieIdCredits", "getMovieMovieIdCredits"]);
    expect(unrepaired.run?.attempts[2]?.trace[1]?.sent).toBe(false);

    // The set: (1+1+1+1+0)/5 success, all paths complete, precision (1+1+1+0.5+1)/5.
    expect(result.summary).toMatchObject({ tasks: 5, successPct: 80, pathPct: 100, precisionPct: 90, errors: 0, goldMissing: 0 });
    expect(result.summary.meanAttempts).toBeCloseTo((1 + 2 + 1 + 1 + 3) / 5, 9);
    expect(result.summary.meanModelCalls).toBeCloseTo((1 + 2 + 1 + 1 + 3) / 5, 9);
  }, 60_000);

  it("AutoTools: repeated gold tools count as a multiset; a wrong argument name is repaired", async () => {
    const scripted = scriptedTasksFor("autotools");
    const result = await evaluateSet(evalService.service, "autotools", {
      routing: false,
      maxAttempts: 3,
      only: scripted.map((s) => s.id),
      tenantId: "eval-autotools",
    });
    expect(result.toolCount).toBe(22 + 11 + 54);
    for (const s of scripted) expect(scriptedMismatches(s, task(result, s.id)), s.id).toEqual([]);

    // api_list in its three shapes: food a name list (22), weather an object (11), tmdb objects (20).
    expect(task(result, "at-food-q4").candidates).toBe(22);
    expect(task(result, "at-weather-26").candidates).toBe(11);
    expect(task(result, "at-tmdb-14").candidates).toBe(20);

    // ["GET_ingredient_search_simple_food", 4] expands to four gold calls.
    expect(task(result, "at-food-q4").gold).toEqual(Array.from({ length: 4 }, () => "GET_ingredient_search_simple_food"));

    // Two of three menu lookups: 3 of 4 gold calls made, none extra.
    const short = task(result, "at-food-q17");
    expect(short.gold).toHaveLength(4);
    expect(short.calls).toHaveLength(3);

    // The refused argument is attributed to its tool from the failed call, and repaired.
    const weather = task(result, "at-weather-26");
    const first = weather.run?.attempts[0];
    expect(first?.attributedTool).toBe("GET_historical_weather");
    expect(first?.trace.map((t) => [t.tool, t.ok, t.sent])).toEqual([
      ["GET_find_places", true, true],
      ["GET_current_weather", true, true],
      ["GET_historical_weather", false, false],
    ]);
    const revision = model.chatRequests.find(
      (r) => r.rule === "program" && (r.lastUserMessage ?? "").includes("Attempt 1") && (r.lastUserMessage ?? "").includes('day: "2023-04-10"'),
    );
    expect(revision?.lastUserMessage).toContain("full protocol of GET_historical_weather");

    expect(result.summary).toMatchObject({ tasks: 4, successPct: 75, pathPct: 93.8, precisionPct: 100, errors: 0 });
  }, 60_000);

  it("let nothing but model traffic leave the service", () => {
    expect(evalService.counters.refused).toEqual([]);
    expect(evalService.counters.modelRequests).toBeGreaterThan(0);
  });
});
