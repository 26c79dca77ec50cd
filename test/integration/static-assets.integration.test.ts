import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "../helpers/service";

/**
 * The console's and the API reference's static files are Workers static assets (wrangler.toml's
 * [assets]), served as wrangler serves them; /docs is a page of the service with a strict CSP.
 */

let service: TestService;

beforeAll(async () => {
  service = await startService({ programHost: false });
});
afterAll(async () => service?.dispose());

/** The value of one CSP directive, split into its sources. */
function directive(policy: string, name: string): string[] {
  const found = policy
    .split(";")
    .map((part) => part.trim().split(/\s+/))
    .find(([directiveName]) => directiveName === name);
  return found?.slice(1) ?? [];
}

describe("static assets", () => {
  it.each([
    ["/console/assets/console.css", "text/css", "--fg:"],
    ["/console/assets/graph.js", "javascript", "graph-data"],
    ["/console/assets/live.js", "javascript", "EventSource"],
    ["/docs/scalar.js", "javascript", "createApiReference"],
    ["/docs/api-reference.js", "javascript", "api-reference-configuration"],
  ])("serves %s without a session", async (path, type, content) => {
    const response = await service.fetch(path);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain(type);
    expect(await response.text()).toContain(content);
  });

  it("answers a console asset that does not exist with 404, not the sign-in page", async () => {
    const response = await service.fetch("/console/assets/nothing.js", { redirect: "manual" });
    expect(response.status).toBe(404);
  });
});

describe("/docs", () => {
  it("runs no inline script: its scripts are the service's files, its configuration a JSON block", async () => {
    const response = await service.fetch("/docs");
    expect(response.status).toBe(200);
    const html = await response.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map(([, attributes = "", body = ""]) => ({ attributes, body }));
    expect(scripts.filter((s) => /\bsrc=/.test(s.attributes)).map((s) => /src="([^"]+)"/.exec(s.attributes)?.[1])).toEqual([
      "/docs/scalar.js",
      "/docs/api-reference.js",
    ]);
    const inline = scripts.filter((s) => !/\bsrc=/.test(s.attributes));
    expect(inline.map((s) => s.attributes.trim())).toEqual(['type="application/json" id="api-reference-configuration"']);
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(directive(policy, "script-src")).toEqual(["'self'"]);
    expect(directive(policy, "connect-src")).toEqual(["'self'"]);
    expect(directive(policy, "default-src")).toEqual(["'self'"]);
  });

  it("is set up with the service itself as its first server and none of Scalar's hosted services", async () => {
    const html = await (await service.fetch("/docs")).text();
    const json = /<script type="application\/json" id="api-reference-configuration">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    const configuration = JSON.parse(json) as {
      servers: { url: string }[];
      proxyUrl?: string;
      agent: { disabled: boolean };
      withDefaultFonts: boolean;
      showDeveloperTools: string;
      hideClientButton: boolean;
    };
    expect(configuration.servers.map((s) => s.url)).toEqual(["http://atc.test", "http://atc.test/console/api"]);
    expect(configuration.proxyUrl).toBeUndefined();
    expect(configuration).toMatchObject({ agent: { disabled: true }, withDefaultFonts: false, showDeveloperTools: "never", hideClientButton: true });
  });
});

describe("the console's CSP", () => {
  it("allows scripts and styles of the service only, nothing inline", async () => {
    const response = await service.fetch("/console/sign-in");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(directive(policy, "script-src")).toEqual(["'self'"]);
    expect(directive(policy, "style-src")).toEqual(["'self'"]);
    expect(directive(policy, "object-src")).toEqual(["'none'"]);
    expect(directive(policy, "base-uri")).toEqual(["'none'"]);
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)(?![^>]*type="application\/json")[^>]*>/);
  });
});
