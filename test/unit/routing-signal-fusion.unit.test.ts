import { beforeAll, describe, expect, it } from "vitest";
import { apiSiblings, withSiblings } from "../../functions/toolnet/api-siblings";
import type { DataFlowIndex } from "../../functions/toolnet/data-flow";
import { addTools, addTrajectories, createGraph, learnedSuccessors, successors, type ToolGraph } from "../../functions/toolnet/graph";
import { toolDocument, ToolIndex } from "../../functions/toolnet/retrieval";
import { fuseFirstStep, fuseNextStep, fuseRunCandidates } from "../../functions/toolnet/signal-fusion";
import { laterStepPrior } from "../../functions/toolnet/later-step-prior";
import { TaskMemory } from "../../functions/toolnet/task-memory";
import type { ToolDefinition } from "../../functions/tools/definition";
import { tmdbRouting } from "../helpers/tmdb-routing";

let defs: Map<string, ToolDefinition>;
let index: ToolIndex;
let flow: DataFlowIndex;

beforeAll(async () => {
  ({ defs, index, flow } = await tmdbRouting());
});

function graphWith(trajectories: string[][]): ToolGraph {
  const graph = createGraph();
  addTools(graph, [...defs.keys()]);
  addTrajectories(
    graph,
    trajectories.map((tools, i) => ({ id: `t${i}`, tools })),
  );
  return graph;
}

function nextStep(graph: ToolGraph, task: string, previous: string) {
  return fuseNextStep({ previous, learned: learnedSuccessors(graph, previous), relevance: index.search(task, 30), dataFlow: flow.successors(previous) });
}

describe("later steps fuse learned transitions, task relevance and data flow", () => {
  it("offers a never-observed transition that data flow links, and says why", () => {
    // Runs so far only ever went searchPerson → its TV credits.
    const graph = graphWith([
      ["getSearchPerson", "getPersonPersonIdTvCredits"],
      ["getSearchPerson", "getPersonPersonIdTvCredits"],
    ]);
    expect(successors(graph, "getSearchPerson", 5).map((r) => r.tool)).not.toContain("getPersonPersonIdMovieCredits");
    const fused = nextStep(graph, "How many movies has Sofia Coppola directed?", "getSearchPerson");
    const top = fused.slice(0, 5);
    const credits = top.find((c) => c.tool === "getPersonPersonIdMovieCredits");
    expect(credits?.why.dataFlow).toEqual({ from: "getSearchPerson", field: "results[].id", parameter: "person_id" });
    expect(credits?.why.transition).toBeUndefined();
    // The learned transition is still offered, with its weight.
    expect(fused.find((c) => c.tool === "getPersonPersonIdTvCredits")?.why.transition?.observed).toBe(2);
  });

  it("offers the tool the task asks for after a tool with no learned successors", () => {
    const graph = graphWith([]);
    expect(learnedSuccessors(graph, "getMovieTopRated")).toEqual([]);
    const fused = nextStep(graph, "What are the reviews of the top rated movie?", "getMovieTopRated");
    expect(fused.slice(0, 5).map((c) => c.tool)).toContain("getMovieMovieIdReviews");
    expect(fused.find((c) => c.tool === "getMovieMovieIdReviews")?.why.relevance?.rank).toBeGreaterThan(0);
  });

  it("ranks a tool that several signals agree on above one that only one signal knows", () => {
    // Observed twice: a transition seen once is one task's habit, not evidence (MIN_TRANSITION_EVIDENCE).
    const graph = graphWith([
      ["getSearchMovie", "getMovieMovieIdCredits"],
      ["getSearchMovie", "getMovieMovieIdCredits"],
    ]);
    const fused = nextStep(graph, "Who directed Inception? Get the credits of the movie", "getSearchMovie");
    expect(fused[0]?.tool).toBe("getMovieMovieIdCredits");
    expect(Object.keys(fused[0]?.why ?? {}).sort()).toEqual(["dataFlow", "relevance", "transition"]);
  });
});

describe("later steps learn from the tenant's similar tasks", () => {
  it("offers the tool similar earlier tasks took after the previous one, though the task text does not name it", () => {
    const graph = graphWith([["getSearchMovie", "getMovieMovieIdCredits"]]);
    const memory = TaskMemory.build([
      { id: "a", task: "How long is the movie Alien?", tools: ["getSearchMovie", "getMovieMovieId"] },
      { id: "b", task: "How long is the movie Heat?", tools: ["getSearchMovie", "getMovieMovieId"] },
    ]);
    const task = "How long is the movie Jaws?";
    const base = {
      previous: "getSearchMovie",
      learned: learnedSuccessors(graph, "getSearchMovie"),
      relevance: index.search(task, 30),
      dataFlow: flow.successors("getSearchMovie"),
    };
    const rankOf = (list: { tool: string }[]) => list.findIndex((c) => c.tool === "getMovieMovieId") + 1 || Infinity;
    const without = fuseNextStep(base);
    const withHistory = fuseNextStep({ ...base, history: memory.votes(task, { tools: { after: "getSearchMovie" } }) });
    expect(rankOf(withHistory)).toBeLessThan(rankOf(without));
    expect(rankOf(withHistory)).toBeLessThanOrEqual(3);
    expect(withHistory.find((c) => c.tool === "getMovieMovieId")?.why.history).toEqual({ tasks: 2 });
  });
});

describe("later steps back off to what usually comes next", () => {
  it("counts transitions into each tool from other tools (not from start, not repeats), and follows graph changes", () => {
    const graph = graphWith([
      ["getSearchPerson", "getPersonPersonId"],
      ["getSearchMovie", "getPersonPersonId"],
      ["getSearchMovie", "getSearchMovie", "getMovieMovieId"],
    ]);
    expect(laterStepPrior(graph)).toEqual([
      { tool: "getPersonPersonId", observed: 2 },
      { tool: "getMovieMovieId", observed: 1 },
    ]);
    addTrajectories(graph, [{ id: "more", tools: ["getPersonPersonId", "getMovieMovieId", "getTvTvId", "getMovieMovieId"] }]);
    expect(laterStepPrior(graph)[0]).toEqual({ tool: "getMovieMovieId", observed: 3 });
  });

  it("offers the tools often used after others when the previous tool, data flow and the task say nothing", () => {
    const graph = graphWith([
      ["getSearchPerson", "getPersonPersonId"],
      ["getSearchMovie", "getPersonPersonId"],
    ]);
    const input = {
      previous: "getGenreTvList",
      learned: learnedSuccessors(graph, "getGenreTvList"),
      relevance: index.search("zzyzx", 30),
      dataFlow: flow.successors("getGenreTvList"),
    };
    expect(fuseNextStep(input)).toEqual([]);
    const fused = fuseNextStep({ ...input, prior: laterStepPrior(graph) });
    expect(fused[0]).toMatchObject({ tool: "getPersonPersonId", why: { prior: { observed: 2 } } });
  });
});

describe("first step", () => {
  it("offers the producer of a relevant tool's required input (the search a lookup by id needs)", () => {
    const task = "Which films are in the movie credits of Sofia Coppola?";
    const plain = fuseFirstStep({ relevance: index.search(task, 30), history: [] }).map((c) => c.tool);
    const withFlow = fuseFirstStep({ relevance: index.search(task, 30), history: [], producersOf: (t) => flow.producers(t) });
    const rankOf = (list: string[]) => (list.indexOf("getSearchPerson") === -1 ? Infinity : list.indexOf("getSearchPerson"));
    expect(rankOf(withFlow.map((c) => c.tool))).toBeLessThan(rankOf(plain));
    expect(withFlow.find((c) => c.tool === "getSearchPerson")?.why.feeds?.parameter).toBe("person_id");
  });

  it("learns from a toy history: a similar task ranks its first tool higher, an unrelated task is unchanged", () => {
    const memory = TaskMemory.build([
      { id: "a", task: "Who wrote the screenplay of Alien?", tools: ["getSearchMovie", "getMovieMovieIdCredits"] },
      { id: "b", task: "Who wrote the screenplay of Heat?", tools: ["getSearchMovie", "getMovieMovieIdCredits"] },
    ]);
    const rank = (task: string, history: boolean) =>
      fuseFirstStep({ relevance: index.search(task, 30), history: history ? memory.votes(task) : [] }).map((c) => c.tool);
    const similar = "Who wrote the screenplay of Jaws?";
    expect(rank(similar, true).indexOf("getSearchMovie")).toBeLessThan(
      rank(similar, false).indexOf("getSearchMovie") === -1 ? Infinity : rank(similar, false).indexOf("getSearchMovie"),
    );
    expect(rank(similar, true).slice(0, 2)).toContain("getSearchMovie");
    const unrelated = "What are the popular TV shows this week?";
    expect(memory.votes(unrelated)).toEqual([]);
    expect(rank(unrelated, true)).toEqual(rank(unrelated, false));
  });

  it("with historyLeads false, similar tasks widen the ranking but the best match stays first", () => {
    const memory = TaskMemory.build([
      { id: "a", task: "Who wrote the screenplay of Alien?", tools: ["getSearchMovie", "getMovieMovieIdCredits"] },
      { id: "b", task: "Who wrote the screenplay of Heat?", tools: ["getSearchMovie", "getMovieMovieIdCredits"] },
    ]);
    const task = "Who wrote the screenplay of the movie Jaws?";
    const relevance = index.search(task, 30);
    const history = memory.votes(task);
    const leading = fuseFirstStep({ relevance, history }).map((c) => c.tool);
    const bestFirst = fuseFirstStep({ relevance, history, historyLeads: false }).map((c) => c.tool);
    // History overrules the words by default; held back, the words' best match leads.
    expect(leading[0]).toBe("getSearchMovie");
    expect(relevance[0]?.name).not.toBe("getSearchMovie");
    expect(bestFirst[0]).toBe(relevance[0]?.name);
    expect(bestFirst.slice(0, 3)).toContain("getSearchMovie");
  });

  it("offers, weaker, what similar tasks used after their first tool: a task's later needs get candidates too", () => {
    // Similar tasks started with the search and went on to the movie's keywords, which this task's words do not name.
    const memory = TaskMemory.build([
      { id: "a", task: "What is the movie Alien about?", tools: ["getSearchMovie", "getMovieMovieIdKeywords"] },
      { id: "b", task: "What is the movie Heat about?", tools: ["getSearchMovie", "getMovieMovieIdKeywords"] },
    ]);
    const task = "What is the movie Jaws about?";
    const relevance = index.search(task, 30);
    const history = memory.votes(task, { tools: "first" });
    const usedVotes = memory.votes(task, { tools: "all" });
    const firstOnly = fuseFirstStep({ relevance, history }).map((c) => c.tool);
    const withUsed = fuseFirstStep({ relevance, history, usedVotes });
    const tools = withUsed.map((c) => c.tool);
    const at = (list: string[], tool: string) => (list.includes(tool) ? list.indexOf(tool) : Infinity);
    expect(at(firstOnly, "getMovieMovieIdKeywords")).toBeGreaterThanOrEqual(5);
    expect(at(tools, "getMovieMovieIdKeywords")).toBeLessThan(5);
    // The tool similar tasks started with still leads; a later tool is a weaker vote.
    expect(tools[0]).toBe(firstOnly[0]);
    expect(withUsed.find((c) => c.tool === "getMovieMovieIdKeywords")?.why.history?.tasks).toBe(2);
  });

  it("offers the other operations of the most relevant tool's API (small APIs only)", () => {
    const def = (name: string, serverUrl: string, summary: string): ToolDefinition => ({
      name,
      method: "GET",
      serverUrl,
      path: `/${name}`,
      operation: `GET /${name}`,
      summary,
      description: "",
      parameters: [],
      tags: [],
    });
    const tools = [
      def("currentWeather", "https://weather.example.com", "Current weather for a city"),
      def("activeAlerts", "https://weather.example.com", "Active alerts"),
      def("cityNews", "https://news.example.com", "News of a city"),
    ];
    const small = ToolIndex.build(tools.map((t) => toolDocument(t)));
    const siblings = apiSiblings(tools);
    const task = "What is the weather in Oslo, and anything I should be warned about?";
    const ranked = fuseFirstStep({ relevance: small.search(task, 30), history: [], siblingsOf: (t) => siblings.get(t) ?? [] });
    // The task's words do not find it; its API's best match brings it.
    expect(small.search(task, 30).map((r) => r.name)).not.toContain("activeAlerts");
    expect(ranked.find((c) => c.tool === "activeAlerts")?.why.sibling).toEqual({ of: "currentWeather" });
    expect(ranked.map((c) => c.tool)).not.toContain("cityNews");
    expect(apiSiblings(tools, 1).size).toBe(0);
  });

  it("names the tools whose documents change with a tool: its API's operations before and after the change", () => {
    const before = new Map([
      ["a", ["b"]],
      ["b", ["a"]],
    ]);
    const after = new Map([
      ["a", ["c"]],
      ["c", ["a"]],
    ]);
    expect(withSiblings(["a"], before, after)).toEqual(new Set(["a", "b", "c"]));
    expect(withSiblings(["lonely"], before, after)).toEqual(new Set(["lonely"]));
  });
});

describe("run candidate sets", () => {
  const run = (task: string, graph: ToolGraph, maxTools: number, tokenBudget = Infinity) =>
    fuseRunCandidates({
      relevance: index.search(task, 30),
      history: [],
      seeds: 6,
      learnedAfter: (t) => learnedSuccessors(graph, t),
      dataFlowAfter: (t) => flow.successors(t),
      producersOf: (t) => flow.producers(t),
      maxTools,
      tokenBudget,
      costOf: () => 100,
    });

  it("holds the chain a task needs, its start included, within maxTools", () => {
    const set = run("Which films are in the movie credits of Sofia Coppola?", graphWith([]), 10);
    expect(set.candidates.length).toBeLessThanOrEqual(10);
    const tools = set.candidates.map((c) => c.tool);
    expect(tools).toEqual(expect.arrayContaining(["getSearchPerson", "getPersonPersonIdMovieCredits"]));
  });

  it("stops at the token budget and reports what did not fit", () => {
    const set = run("give me the number of movies directed by Sofia Coppola", graphWith([]), 10, 350);
    expect(set.candidates).toHaveLength(3);
    expect(set.tokens).toBe(300);
    expect(set.overBudget.length).toBeGreaterThan(0);
  });
});

describe("learned transitions are weighed by their evidence", () => {
  /** A later step after getSearchMovie for `task`, with getMovieMovieIdImages observed after it once. */
  const afterSearchSeenOnce = (task: string) => ({
    previous: "getSearchMovie",
    learned: learnedSuccessors(graphWith([["getSearchMovie", "getMovieMovieIdImages"]]), "getSearchMovie"),
    relevance: index.search(task, 30),
    dataFlow: flow.successors("getSearchMovie"),
  });

  it("leaves out a transition seen once, which other tasks' habits would otherwise rank first", () => {
    const input = afterSearchSeenOnce("Who directed Inception? Get the credits of the movie");
    expect(fuseNextStep(input, { minEvidence: 1 }).findIndex((c) => c.tool === "getMovieMovieIdImages")).toBeLessThan(3);
    const fused = fuseNextStep(input);
    expect(fused[0]?.tool).toBe("getMovieMovieIdCredits");
    expect(fused.find((c) => c.tool === "getMovieMovieIdImages")?.why.transition).toBeUndefined();
    // Seen twice, it is evidence again.
    const twice = graphWith([
      ["getSearchMovie", "getMovieMovieIdImages"],
      ["getSearchMovie", "getMovieMovieIdImages"],
    ]);
    expect(
      fuseNextStep({ ...input, learned: learnedSuccessors(twice, "getSearchMovie") }).find((c) => c.tool === "getMovieMovieIdImages")?.why.transition?.observed,
    ).toBe(2);
  });

  it("keeps a transition seen once when a similar earlier task took it (its task history votes for it)", () => {
    const input = afterSearchSeenOnce("Show me the posters of Inception");
    expect(fuseNextStep(input).find((c) => c.tool === "getMovieMovieIdImages")?.why.transition).toBeUndefined();
    const similarTaskTookIt = [{ name: "getMovieMovieIdImages", score: 0.8, tasks: 1 }];
    expect(fuseNextStep({ ...input, history: similarTaskTookIt }).find((c) => c.tool === "getMovieMovieIdImages")?.why.transition?.observed).toBe(1);
    // Another tool's votes do not admit it.
    const otherVotes = [{ name: "getMovieMovieIdCredits", score: 0.8, tasks: 1 }];
    expect(fuseNextStep({ ...input, history: otherVotes }).find((c) => c.tool === "getMovieMovieIdImages")?.why.transition).toBeUndefined();
  });
});
