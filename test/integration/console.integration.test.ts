import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createTenant, startService, type TestService } from "../helpers/service";

/** The console's session and form protections, over HTTP without a browser. */

const ORIGIN = "http://atc.test";
let service: TestService;
/** A console request: redirects are checked, not followed. */
const get = (path: string, cookie: string) => service.fetch(path, { headers: { cookie }, redirect: "manual" });
let tenant: { id: string; key: string };

async function signIn(key: string, as?: "admin"): Promise<{ response: Response; cookie: string }> {
  const body = new URLSearchParams({ key, ...(as === undefined ? {} : { as }) });
  const response = await service.fetch("/console/sign-in", {
    method: "POST",
    redirect: "manual",
    body,
    headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
  });
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { response, cookie: setCookie.split(";")[0] ?? "" };
}

async function csrfOf(cookie: string): Promise<string> {
  const html = await (await get("/console/tools", cookie)).text();
  const token = /<meta name="csrf-token" content="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error("no CSRF token on the page");
  return token;
}

beforeAll(async () => {
  service = await startService();
  tenant = await createTenant(service, "console-a");
});
afterAll(async () => service.dispose());

describe("console sessions", () => {
  it("seals the key in an HttpOnly, Secure, SameSite=Strict cookie and never echoes it", async () => {
    const { response, cookie } = await signIn(tenant.key);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/console/tools");
    const header = response.headers.get("set-cookie") ?? "";
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/Secure/);
    expect(header).toMatch(/SameSite=Strict/);
    expect(header).toMatch(/Path=\/console/);
    expect(decodeURIComponent(cookie)).not.toContain(tenant.key.slice(-10));
    const page = await get("/console/tools", cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain(tenant.key);
    expect(html).toContain("No tools yet");
    expect(html).toContain("/v1/tools/import"); // the empty state gives the exact command
  });

  it("answers a wrong key with a page, not JSON, and sets no cookie", async () => {
    const { response } = await signIn(`atc_${tenant.id}_wrongwrongwrongwrongwrongwrong00`);
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await response.text()).toContain("That API key is not valid");
  });

  it("ignores a tampered cookie", async () => {
    const { cookie } = await signIn(tenant.key);
    const [name, value] = cookie.split("=") as [string, string];
    const flipped = `${name}=${value.slice(0, -6)}${value.slice(-6).split("").reverse().join("")}`;
    const response = await get("/console/tools", flipped);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/console/sign-in");
  });

  it("ends the session when its key is revoked", async () => {
    const extra = await service.json<{ id: string; key: string }>("POST", "/v1/keys", { key: tenant.key, body: { label: "console" } });
    const { cookie } = await signIn(extra.body.key);
    expect((await get("/console/tools", cookie)).status).toBe(200);
    expect((await service.json("DELETE", `/v1/keys/${extra.body.id}`, { key: tenant.key })).status).toBe(200);
    const after = await get("/console/tools", cookie);
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/console/sign-in");
  });

  it("refuses form posts from another origin or without the session's token, and changes nothing", async () => {
    const { cookie } = await signIn(tenant.key);
    await service.json("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "list", source: "things", tools: [{ name: "getThing", method: "GET", url: "https://api.example.com/things/{id}" }] },
    });
    const csrf = await csrfOf(cookie);
    const form = { "content-type": "application/x-www-form-urlencoded", cookie };
    const crossSite = await service.fetch("/console/probe", {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ csrf }),
      headers: { ...form, origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    const noToken = await service.fetch("/console/probe", {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({}),
      headers: { ...form, origin: ORIGIN },
    });
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain("This form is no longer valid");
    expect((await service.json<{ jobs: unknown[] }>("GET", "/v1/jobs", { key: tenant.key })).body.jobs).toEqual([]);
    const accepted = await service.fetch("/console/probe", {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ csrf }),
      headers: { ...form, origin: ORIGIN },
    });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toMatch(/^\/console\/jobs\/job_/);
  });

  it("starts a Play2Prompt job from the tool page and shows it with a bar for the tool", async () => {
    const { cookie } = await signIn(tenant.key);
    const csrf = await csrfOf(cookie);
    const started = await service.fetch("/console/tools/getThing/optimize", {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ csrf }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: ORIGIN },
    });
    expect(started.status).toBe(303);
    const location = started.headers.get("location") ?? "";
    expect(location).toMatch(/^\/console\/jobs\/job_/);
    const jobs = await service.json<{ jobs: { id: string; kind: string }[] }>("GET", "/v1/jobs", { key: tenant.key });
    expect(jobs.body.jobs.find((j) => location.endsWith(j.id))?.kind).toBe("optimize");
    const page = await (await get(location, cookie)).text();
    expect(page).toContain("Optimise job");
    expect(page).toContain('aria-label="Progress of getThing"');
  });

  it("shows problems of the API as messages on the page", async () => {
    const { cookie } = await signIn(tenant.key);
    const missing = await get("/console/tools/noSuchTool", cookie);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("No tool named noSuchTool.");
    const csrf = await csrfOf(cookie);
    const pin = await service.fetch("/console/tools/getThing/pin", {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ csrf, version: "9" }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: ORIGIN },
    });
    expect(pin.status).toBe(404);
    const html = await pin.text();
    expect(html).toContain("getThing has no protocol version 9.");
    expect(html).not.toContain("problem+json");
  });

  it("gives the administrator the tenant list and keeps tenant pages for tenants", async () => {
    const admin = await signIn(ADMIN_TOKEN, "admin");
    expect(admin.response.headers.get("location")).toBe("/console/admin");
    const list = await get("/console/admin", admin.cookie);
    expect(await list.text()).toContain("console-a");
    expect((await get("/console/tools", admin.cookie)).headers.get("location")).toBe("/console/admin");
    const wrongAdmin = await signIn("not-the-token", "admin");
    expect(wrongAdmin.response.status).toBe(401);
    const { cookie } = await signIn(tenant.key);
    expect((await get("/console/admin", cookie)).status).toBe(403);
  });
});

describe("console counts", () => {
  it("says one tool, not one tools", async () => {
    const single = await createTenant(service, "console-single");
    const tools = [{ name: "ping", method: "GET", url: "https://api.example.com/ping" }];
    expect((await service.json("POST", "/v1/tools/import", { key: single.key, body: { format: "list", tools } })).status).toBe(200);
    const { cookie } = await signIn(single.key);
    const pages = await Promise.all(["/console/tools", "/console/graph"].map(async (path) => (await get(path, cookie)).text()));
    for (const html of pages) {
      expect(html).toContain("1 tool,");
      expect(html).not.toMatch(/\b1 (tools|calls|learned transitions|model calls)\b/);
    }
  });
});
