import { describe, expect, it } from "vitest";
import { mountOpenApi, SimulatedWorld } from "../../functions/simulated-world";

/** Reliability item 9 (part): an operation documented as 200 with no content answers 200, not 501. */
describe("9. the simulated world and documented empty successes", () => {
  const document = {
    openapi: "3.0.3",
    info: { title: "orders", version: "1" },
    paths: {
      "/orders": {
        post: { operationId: "createOrder", responses: { "200": { description: "OK" } } },
        delete: { operationId: "clearOrders", responses: { "204": { description: "gone" } } },
        put: { operationId: "replaceOrders", responses: { "200": { description: "text", content: { "text/csv": {} } } } },
      },
    },
  };
  const world = new SimulatedWorld([mountOpenApi("/shop", document)]);

  it("answers 200 with an empty body for `200: {description}`", async () => {
    const res = await world.handle(new Request("http://world.test/shop/orders", { method: "POST" }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  it("still answers 204, and 501 when nothing JSON is documented", async () => {
    expect((await world.handle(new Request("http://world.test/shop/orders", { method: "DELETE" }))).status).toBe(204);
    expect((await world.handle(new Request("http://world.test/shop/orders", { method: "PUT" }))).status).toBe(501);
  });
});
