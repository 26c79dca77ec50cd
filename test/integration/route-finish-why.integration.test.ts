import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, type TestService } from "../helpers/service";

/** Every candidate of a route answer says why it is there, Finish included. */

interface Candidate {
  name: string;
  weight: number;
  why?: { transition?: { from: string; weight: number; observed: number } } | null;
}

let service: TestService;
let tenant: { id: string; key: string };

beforeAll(async () => {
  service = await startService();
  tenant = await createTenant(service, "finish-why");
  const tools = ["searchBooks", "getBookReviews", "getAuthor"].map((name) => ({ name, method: "GET", url: `https://api.example.com/${name}` }));
  expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools } })).status).toBe(200);
  const trajectories = [{ id: "t1", task: "reviews of Dune", tools: ["searchBooks", "getBookReviews"] }];
  expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } })).status).toBe(200);
});
afterAll(async () => service.dispose());

const finishAfter = async (previousTool: string): Promise<Candidate | undefined> => {
  const answer = await service.json<{ candidates: Candidate[] }>("POST", "/v1/route", {
    key: tenant.key,
    body: { task: "reviews of Dune", previousTool, k: 2 },
  });
  expect(answer.status).toBe(200);
  return answer.body.candidates.find((candidate) => candidate.name === "Finish");
};

describe("the Finish candidate", () => {
  it("says why: the learned transition to the end, with how often it was seen", async () => {
    const afterReviews = await finishAfter("getBookReviews");
    expect(afterReviews?.why).toEqual({ transition: { from: "getBookReviews", weight: expect.any(Number), observed: 1 } });
    const afterSearch = await finishAfter("searchBooks");
    expect(afterSearch?.why).toEqual({ transition: { from: "searchBooks", weight: expect.any(Number), observed: 0 } });
    expect(afterReviews?.why?.transition?.weight).toBeGreaterThan(afterSearch?.why?.transition?.weight ?? 0);
  });
});
