import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import {
  addTools,
  addTrajectories,
  apiBankTrajectories,
  createGraph,
  restBenchTrajectories,
  stableToolBenchTrajectories,
} from "../../functions/toolnet/graph/index";

// Records in the shapes of the files under /work/shared/data (see its README), cut down.

const API_BANK = [
  {
    source: "lv1-lv2-samples/level-1-given-desc",
    file: "AddAgenda-AddAlarm-GetUserToken-level-2-1.jsonl",
    first_user_utterance: "Can you add a schedule for me at 2pm on September 12th?",
    api_sequence: ["GetUserToken", "AddAgenda", "AddAlarm"],
  },
  { source: "test-data/level-3.json", file: "empty-1.jsonl", first_user_utterance: "Hi", api_sequence: [] },
];

const STABLE_TOOL_BENCH = [
  {
    group: "G1_category",
    query_id: "29800",
    query: "I need to generate ten unique GUIDs…",
    available_tools: ["multiple_guids_for_guid_generator_tool", "single_guid_for_guid_generator_tool", "Finish"],
    tool_sequence: ["multiple_guids_for_guid_generator_tool", "single_guid_for_guid_generator_tool", "Finish"],
    final_answer_type: "give_answer",
  },
  {
    group: "G2_category",
    query_id: "29800", // query ids repeat across groups
    query: "…",
    available_tools: ["get_asn_by_country_for_asn_details", "Finish"],
    tool_sequence: ["get_asn_by_country_for_asn_details", "Finish", "Finish"],
    final_answer_type: "give_answer",
  },
  {
    group: "G1_category",
    query_id: "68400",
    query: "…",
    available_tools: ["get_all_for_anime_db", "Finish"],
    tool_sequence: ["get_all_for_anime_db", "get_all_for_anime_db"],
    final_answer_type: null,
  },
  {
    group: "G1_tool",
    query_id: "1",
    query: "…",
    available_tools: ["Finish"],
    tool_sequence: ["rereer_copy_for_nowyapi", "Finish"],
    final_answer_type: "give_up_and_restart",
  },
];

const REST_BENCH = [
  { idx: 0, query: "give me the number of movies directed by Sofia Coppola", solution: ["GET /search/person", "GET /person/{person_id}/movie_credits"] },
  { idx: 2, query: "Who directed the top-1 rated movie?", solution: ["GET /movie/top_rated", "GET /movie/{movie_id}/credits"] },
];

describe("trajectory sources", () => {
  it("API-Bank: ids from source and file; records without calls are reported, not dropped unseen", () => {
    expect(apiBankTrajectories(API_BANK)).toEqual({
      trajectories: [
        {
          id: "api-bank:lv1-lv2-samples/level-1-given-desc/AddAgenda-AddAlarm-GetUserToken-level-2-1.jsonl",
          tools: ["GetUserToken", "AddAgenda", "AddAlarm"],
        },
      ],
      skipped: [{ id: "api-bank:test-data/level-3.json/empty-1.jsonl", reason: "no API call" }],
    });
  });

  it("StableToolBench: completed runs only, Finish is the end node, ids include the group", () => {
    const parsed = stableToolBenchTrajectories(STABLE_TOOL_BENCH);
    expect(parsed.trajectories).toEqual([
      {
        id: "stabletoolbench:G1_category:29800",
        tools: ["multiple_guids_for_guid_generator_tool", "single_guid_for_guid_generator_tool"],
      },
      { id: "stabletoolbench:G2_category:29800", tools: ["get_asn_by_country_for_asn_details"] },
    ]);
    expect(parsed.skipped.map((s) => s.id)).toEqual(["stabletoolbench:G1_category:68400", "stabletoolbench:G1_tool:1"]);
    expect(parsed.skipped[0]?.reason).toMatch(/did not complete its task/);
  });

  it("RestBench: the gold solution, named as in the spec", () => {
    expect(restBenchTrajectories(REST_BENCH).trajectories).toEqual([
      { id: "restbench:0", tools: ["GET /search/person", "GET /person/{person_id}/movie_credits"] },
      { id: "restbench:2", tools: ["GET /movie/top_rated", "GET /movie/{movie_id}/credits"] },
    ]);
  });

  it("parsed trajectories import directly; a file of another shape is refused", () => {
    const { trajectories } = restBenchTrajectories(REST_BENCH);
    const graph = createGraph();
    addTools(graph, [...new Set(trajectories.flatMap((t) => t.tools))]);
    expect(addTrajectories(graph, trajectories).transitions).toBe(6);
    expect(() => apiBankTrajectories(STABLE_TOOL_BENCH)).toThrow(Failure);
    expect(() => stableToolBenchTrajectories({ not: "a list" })).toThrow(/not the expected shape/);
  });
});
