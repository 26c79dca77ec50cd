import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { ASSETS_OPTIONS_FILE } from "./service";

/**
 * Bundle the service, the simulated world and the program host once per test run, with wrangler itself (the same
 * bundling as a deploy), so integration tests exercise what would ship. The service's entry is
 * test/helpers/test-worker.ts: the shipped Worker plus a tenant object class with a test hook. Its
 * static assets are served as wrangler serves wrangler.toml's [assets].
 */
export default function setup(): void {
  const wrangler = "node_modules/.bin/wrangler";
  const builds: [string, string, string[]][] = [
    ["wrangler.toml", ".test-build/main", ["test/helpers/test-worker.ts"]],
    ["wrangler.world.toml", ".test-build/world", []],
    ["wrangler.program-host.toml", ".test-build/program-host", []],
  ];
  for (const [config, outdir, entry] of builds) {
    execFileSync(wrangler, ["deploy", ...entry, "--dry-run", "--env", "", "-c", config, "--outdir", outdir], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
    });
    if (!["index.js", "worker.js", "test-worker.js", "entry.js"].some((name) => existsSync(`${outdir}/${name}`))) {
      throw new Error(`wrangler produced no bundle in ${outdir}`);
    }
  }
  writeFileSync(ASSETS_OPTIONS_FILE, JSON.stringify(unstable_getMiniflareWorkerOptions("wrangler.toml").workerOptions.assets ?? null));
}
