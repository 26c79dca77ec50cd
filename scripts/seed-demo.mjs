// Loads the demo tenant described in kv-seed/demo-tenant.json into a running service.
// Usage: node scripts/seed-demo.mjs [baseUrl] [stateDir] (defaults http://127.0.0.1:8787, .wrangler/state)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const seedPath = resolve(root, "kv-seed/demo-tenant.json");
const seed = JSON.parse(readFileSync(seedPath, "utf8"));

/** Point every endpoint of an autotools-style file at the simulated world's mount. */
function retargetEndpoints(file, origin) {
  const endpoints = (file.endpoints ?? []).map((endpoint) => {
    const url = new URL(endpoint.url.replaceAll("{", "%7B").replaceAll("}", "%7D"));
    return { ...endpoint, url: `${origin}${decodeURIComponent(url.pathname)}` };
  });
  return { ...file, servers: [{ url: origin }], endpoints };
}

/** The demo key saved by an earlier start on this state, if the service still accepts it. */
async function savedKey(baseUrl, keyFile) {
  if (!existsSync(keyFile)) return undefined;
  const key = readFileSync(keyFile, "utf8").trim();
  const check = await fetch(`${baseUrl}/v1/tenant`, { headers: { authorization: `Bearer ${key}` } });
  return check.status === 200 ? key : undefined;
}

/** Creates (or finds) the demo tenant, imports its tools, and saves its key in the state directory. */
export async function seedDemo(baseUrl, adminToken, stateDir = resolve(root, ".wrangler/state")) {
  const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
  const keyFile = resolve(stateDir, "demo-api-key");
  let key;
  const created = await fetch(`${baseUrl}/admin/tenants`, { method: "POST", headers: admin, body: JSON.stringify(seed.tenant) });
  if (created.status === 201) {
    key = (await created.json()).apiKey.key;
  } else if (created.status === 409 && (key = await savedKey(baseUrl, keyFile)) !== undefined) {
    // A later start on the same state: the key printed last time keeps working, no new one.
  } else if (created.status === 409) {
    const issued = await fetch(`${baseUrl}/admin/tenants/${seed.tenant.id}/keys`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ label: "npm start" }),
    });
    if (issued.status !== 201) throw new Error(`could not issue a demo key: ${issued.status} ${await issued.text()}`);
    key = (await issued.json()).key;
  } else {
    throw new Error(`could not create the demo tenant: ${created.status} ${await created.text()}`);
  }
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(keyFile, `${key}\n`);
  const tenant = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const summary = [];
  for (const item of seed.imports) {
    const body =
      item.format === "openapi"
        ? { format: "openapi", source: item.source, serverUrl: item.serverUrl, document: JSON.parse(readFileSync(resolve(root, item.documentFile), "utf8")) }
        : {
            format: "list",
            source: item.source,
            tools: retargetEndpoints(JSON.parse(readFileSync(resolve(root, item.toolsFile), "utf8")), `${seed.worldOrigin}${item.mount}`),
          };
    const response = await fetch(`${baseUrl}/v1/tools/import`, { method: "POST", headers: tenant, body: JSON.stringify(body) });
    const report = await response.json();
    if (response.status !== 200) throw new Error(`import of ${item.source} failed: ${response.status} ${JSON.stringify(report)}`);
    summary.push(`${item.source}: ${report.created.length} created, ${report.updated.length} updated, ${report.unchanged.length} unchanged`);
  }
  return { key, keyFile, summary };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const baseUrl = process.argv[2] ?? "http://127.0.0.1:8787";
  const stateDir = process.argv[3] === undefined ? undefined : resolve(process.argv[3]);
  const { key, summary } = await seedDemo(baseUrl, process.env.ADMIN_TOKEN ?? "local-admin-token", stateDir);
  console.log(summary.join("\n"));
  console.log(`demo API key: ${key}`);
}
