import { beforeAll, describe, expect, it } from "vitest";
import { DataFlowIndex, isOpaqueInput, outputFields, schemaFields } from "../../functions/toolnet/data-flow";
import type { ToolDefinition } from "../../functions/tools/definition";
import { getTool, tmdbTools } from "../helpers/tmdb-routing";

let tmdb: Map<string, ToolDefinition>;

beforeAll(async () => {
  tmdb = await tmdbTools();
});

const tool = getTool;

describe("data-flow edges from documented outputs", () => {
  it("lists the scalar fields a response schema promises, arrays as their first item", () => {
    const fields = schemaFields({
      type: "object",
      properties: {
        page: { type: "integer" },
        results: { type: "array", items: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" }, adult: { type: "boolean" } } } },
      },
    });
    expect(fields.map((f) => f.path)).toEqual(["page", "results[0].id", "results[0].name"]);
  });

  it("links searchPerson's results[].id to getPersonMovieCredits' person_id, though no run ever did it", () => {
    const flow = new DataFlowIndex(tmdb);
    const links = flow.successors("getSearchPerson");
    const credits = links.find((l) => l.to === "getPersonPersonIdMovieCredits");
    expect(credits).toMatchObject({ parameter: "person_id", field: "results[].id" });
    // A person's id is not a movie's: movie tools are not fed by a person search.
    expect(links.map((l) => l.to)).not.toContain("getMovieMovieIdCredits");
  });

  it("names the producers of a tool's required inputs, search tools (need no id, take text) first", () => {
    const flow = new DataFlowIndex(tmdb);
    const producers = flow.producers("getPersonPersonIdMovieCredits").map((p) => p.from);
    expect(producers[0]).toBe("getSearchPerson");
    expect(flow.producers("getSearchPerson")).toEqual([]);
  });

  it("uses probed samples when the document has no response schema, and links nothing without outputs", () => {
    const consumer = tool("getOrder", "/orders/{order_id}", [{ name: "order_id", in: "path", required: true, schema: {} }]);
    const producer = tool("listOrders", "/orders", []);
    expect(outputFields(producer)).toEqual([]);
    const bare = new DataFlowIndex(
      new Map([
        [producer.name, producer],
        [consumer.name, consumer],
      ]),
    );
    expect(bare.successors("listOrders")).toEqual([]);
    const probed = new DataFlowIndex(
      new Map([
        [producer.name, producer],
        [consumer.name, consumer],
      ]),
      (def) => outputFields(def, def.name === "listOrders" ? [{ path: "orders[0].order_id", value: "o-1" }] : []),
    );
    expect(probed.successors("listOrders")).toEqual([expect.objectContaining({ to: "getOrder", parameter: "order_id" })]);
  });

  it("does not link through a field most tools return (status), but does through a specific one (token)", () => {
    const body = (name: string, required = true): ToolDefinition["parameters"][number] => ({ name, in: "query", required, schema: { type: "string" } });
    const returns = (...fields: string[]) => ({ type: "object", properties: Object.fromEntries(fields.map((f) => [f, { type: "string" }])) });
    const tools = [
      tool("getUserToken", "/token", [body("username"), body("password")], returns("token")),
      tool("queryBalance", "/balance", [body("token")], returns("balance", "status")),
      tool("forgotPassword", "/forgot", [body("status"), body("username")], returns("status")),
      ...["addAlarm", "addReminder", "deleteAlarm", "playMusic"].map((name) => tool(name, `/${name}`, [body("token")], returns("status"))),
    ];
    const flow = new DataFlowIndex(new Map(tools.map((t) => [t.name, t])));
    expect(flow.successors("getUserToken").map((l) => l.to)).toContain("queryBalance");
    expect(flow.successors("addAlarm").map((l) => l.to)).not.toContain("forgotPassword");
    expect(flow.producers("forgotPassword")).toEqual([]);
  });

  it("never feeds a playlist id into a user id: a list under /users/{user_id} lists playlists, not users", () => {
    const path = (name: string, where: "path" | "query" = "path"): ToolDefinition["parameters"][number] => ({
      name,
      in: where,
      required: true,
      schema: { type: "string" },
    });
    const listOfIds = (container: string) => ({
      type: "object",
      properties: { [container]: { type: "array", items: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } } } },
    });
    const tools = [
      tool("getUserPlaylists", "/users/{user_id}/playlists", [path("user_id")], listOfIds("items")),
      tool("createPlaylist", "/users/{user_id}/playlists", [path("user_id")]),
      tool("getPlaylist", "/playlists/{playlist_id}", [path("playlist_id")]),
      tool("getCurrentUser", "/me", [], { type: "object", properties: { id: { type: "string" }, display_name: { type: "string" } } }),
    ];
    const flow = new DataFlowIndex(new Map(tools.map((t) => [t.name, t])));
    const fromPlaylists = flow.successors("getUserPlaylists");
    expect(fromPlaylists.map((l) => l.to)).toContain("getPlaylist");
    expect(fromPlaylists.map((l) => l.to)).not.toContain("createPlaylist");
    // A user's id comes from what returns a user.
    expect(flow.producers("createPlaylist").map((p) => p.from)).toEqual(["getCurrentUser"]);
  });
  it("never feeds one API's identifier into another API's, but lets a token cross (a login can serve other APIs)", () => {
    const input = (name: string): ToolDefinition["parameters"][number] => ({ name, in: "query", required: true, schema: { type: "string" } });
    const returns = (...fields: string[]) => ({ type: "object", properties: Object.fromEntries(fields.map((f) => [f, { type: "string" }])) });
    const at = (server: string, def: ToolDefinition): ToolDefinition => ({ ...def, serverUrl: server });
    const tools = [
      at("https://fomo.example", tool("getCampaignFromUrl", "/campaign", [input("url")], returns("campaign_id"))),
      at("https://nexweave.example", tool("getAllCampaigns", "/campaigns", [], returns("campaign_id"))),
      at("https://nexweave.example", tool("getCampaignDetails", "/campaign/details", [input("campaign_id"), input("token")])),
      at("https://login.example", tool("login", "/login", [input("username")], returns("token"))),
      // The same host under another base path is the same API (a tool listed later beside an imported document).
      at("https://nexweave.example/v2", tool("getCampaignStats", "/campaign/stats", [input("campaign_id")])),
    ];
    const flow = new DataFlowIndex(new Map(tools.map((t) => [t.name, t])));
    const producers = flow.producers("getCampaignDetails");
    expect(producers.filter((p) => p.parameter === "campaign_id").map((p) => p.from)).toEqual(["getAllCampaigns"]);
    expect(producers.filter((p) => p.parameter === "token").map((p) => p.from)).toEqual(["login"]);
    expect(flow.successors("getCampaignFromUrl")).toEqual([]);
    expect(flow.successors("getAllCampaigns").map((l) => l.to)).toEqual(["getCampaignDetails", "getCampaignStats"]);
  });

  it("names a tool's leading producers of opaque inputs as producers() orders them, linking only the start ranks it needs", () => {
    // Every tool of TMDB, asked of an index that never listed its producers whole.
    const whole = new DataFlowIndex(tmdb);
    const leading = new DataFlowIndex(tmdb);
    for (const name of tmdb.keys()) {
      for (const count of [1, 2, 5]) {
        expect(leading.feeders(name, count)).toEqual(
          whole
            .producers(name)
            .filter((s) => isOpaqueInput(s.parameter))
            .slice(0, count),
        );
      }
    }
    // One big API: a user search and /me can start the chain; 200 operations under /users/{user_id}
    // return ids a user's operations take, and need a user's id themselves: they are never linked.
    const text = (name: string, where: "path" | "query" = "query"): ToolDefinition["parameters"][number] => ({
      name,
      in: where,
      required: true,
      schema: { type: "string" },
    });
    const user = {
      type: "object",
      properties: { id: { type: "string" }, createdBy: { type: "object", properties: { user: { type: "object", properties: { id: { type: "string" } } } } } },
    };
    const tools = [
      tool("searchUsers", "/users/search", [text("name")], { type: "object", properties: { value: { type: "array", items: user } } }),
      tool("getMe", "/me", [], user),
      ...Array.from({ length: 200 }, (_, i) => tool(`listUserThings${i}`, `/users/{user_id}/things${i}`, [text("user_id", "path")], user)),
    ];
    const catalog = new Map(tools.map((t) => [t.name, t]));
    const index = new DataFlowIndex(catalog);
    expect(index.feeders("listUserThings7", 2).map((s) => s.from)).toEqual(["searchUsers", "getMe"]);
    const offersForTwo = index.offers;
    const all = new DataFlowIndex(catalog);
    expect(
      all
        .producers("listUserThings7")
        .filter((s) => isOpaqueInput(s.parameter))
        .slice(0, 2)
        .map((s) => s.from),
    ).toEqual(["searchUsers", "getMe"]);
    expect(all.producers("listUserThings7").length).toBeGreaterThan(100);
    expect(offersForTwo * 20).toBeLessThan(all.offers);
  });
});
