import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Bundle the service and the simulated world once per test run, with wrangler itself (the same
 * bundling as a deploy), so integration tests exercise what would ship.
 */
export default function setup(): void {
  const wrangler = "node_modules/.bin/wrangler";
  const builds: [string, string][] = [
    ["wrangler.toml", ".test-build/main"],
    ["wrangler.world.toml", ".test-build/world"],
  ];
  for (const [config, outdir] of builds) {
    execFileSync(wrangler, ["deploy", "--dry-run", "--env", "", "-c", config, "--outdir", outdir], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
    });
    if (!existsSync(`${outdir}/index.js`) && !existsSync(`${outdir}/worker.js`)) {
      throw new Error(`wrangler produced no bundle in ${outdir}`);
    }
  }
}
