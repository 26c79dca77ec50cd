import { describe, expect, it } from "vitest";
import type { TenantApi } from "../../functions/tenant-api/tenant-api";
import type { RouteAnswer, TaskVectorWanted } from "../../functions/routing/tenant-routing";
import { failure, success, type Outcome } from "../../functions/common/failures";
import { routeWithTaskVector, type TaskVector } from "../../functions/services/tool-embeddings";

/**
 * The routing hot path is one call to the tenant's object: without a service-wide embeddings
 * model, the object itself knows whether the tenant's own settings name one, so the Worker neither
 * reads the settings nor routes twice. (The path where the tenant does name one, embedding the
 * task and routing again, is tested end to end in embeddings.integration.)
 */
describe("routeWithTaskVector", () => {
  const answer = { previous: null, via: "retrieval", candidates: [] } as unknown as RouteAnswer;

  function tenantThatCounts(reads: string[]): TenantApi {
    return {
      settings: {
        get: async (key: string) => {
          reads.push(key);
          return undefined;
        },
      },
    } as unknown as TenantApi;
  }

  /** `routeWithTaskVector` for "weather" whose `route` records the query it is given and answers "routed again". */
  function routeRecordingQueries(
    env: Env,
    routes: (TaskVector | undefined)[],
    first: () => Promise<Outcome<string | TaskVectorWanted>>,
  ): Promise<Outcome<string>> {
    return routeWithTaskVector(
      env,
      "t1",
      tenantThatCounts([]),
      "weather",
      async (query) => {
        routes.push(query);
        return success("routed again");
      },
      first,
    );
  }

  it("answers with the object's one call when nothing names an embeddings model: no settings read, no second route", async () => {
    const reads: string[] = [];
    const routes: (TaskVector | undefined)[] = [];
    let firstCalls = 0;
    const result = await routeWithTaskVector(
      {} as Env,
      "t1",
      tenantThatCounts(reads),
      "weather in Paris",
      async (query) => {
        routes.push(query);
        return success(answer);
      },
      async (): Promise<Outcome<RouteAnswer | TaskVectorWanted>> => {
        firstCalls += 1;
        return success(answer);
      },
    );
    expect(result).toEqual(success(answer));
    expect(firstCalls).toBe(1);
    expect(routes).toEqual([]);
    expect(reads).toEqual([]);
  });

  it("passes the object's refusal on as it is", async () => {
    const reads: string[] = [];
    const refused = failure("not-found", "No tool named x.");
    const result = await routeWithTaskVector(
      {} as Env,
      "t1",
      tenantThatCounts(reads),
      "weather",
      async () => success(answer),
      async () => refused,
    );
    expect(result).toEqual(refused);
    expect(reads).toEqual([]);
  });

  it("passes an answer the object sent as JSON text on as it is: a string never asks for the task vector", async () => {
    const text = JSON.stringify(answer);
    const routes: (TaskVector | undefined)[] = [];
    const result = await routeRecordingQueries({} as Env, routes, async () => success(text));
    expect(result).toEqual(success(text));
    expect(routes).toEqual([]);
  });

  it("reads only EMBEDDING_MODEL of the service's settings when it is unset: the model configuration is not resolved on every route request", async () => {
    const read: string[] = [];
    const env = new Proxy({ MODEL_BASE_URL: "https://model.example/v1", MODEL_API_KEY: "sk-x", MODEL_NAME: "m" } as Record<string, string>, {
      get(target, key) {
        if (typeof key === "string") read.push(key);
        return typeof key === "string" ? target[key] : undefined;
      },
    }) as unknown as Env;
    const result = await routeWithTaskVector(
      env,
      "t1",
      tenantThatCounts([]),
      "weather",
      async () => success("routed again"),
      async () => success("first"),
    );
    expect(result).toEqual(success("first"));
    expect(read).toEqual(["EMBEDDING_MODEL"]);
  });

  it("routes without a vector when EMBEDDING_MODEL is set but the service's model settings are incomplete, as before", async () => {
    const routes: (TaskVector | undefined)[] = [];
    for (const embeddingModel of ["emb", "  ", ""]) {
      const env = { EMBEDDING_MODEL: embeddingModel } as unknown as Env;
      const result = await routeRecordingQueries(env, routes, async () => success("first"));
      expect(result).toEqual(success("first"));
    }
    expect(routes).toEqual([]);
  });
});
