import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** `npm run build`: what `npm run deploy` would ship builds cleanly and binds what production needs. */
describe("the production deployment", () => {
  it("builds with wrangler deploy --dry-run --env production, without warnings", () => {
    const outdir = mkdtempSync(join(tmpdir(), "atc-deploy-"));
    try {
      const result = spawnSync(process.execPath, ["scripts/check-deploy.mjs", outdir], { encoding: "utf8" });
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      // docs/deployment.md promises wrangler's size line.
      expect(result.stdout).toMatch(/^Total Upload: [\d.,]+ KiB \/ gzip: [\d.,]+ KiB$/m);
      // The console's and the API reference's static files are assets ([assets]), not modules of the Worker.
      const modules = readdirSync(outdir);
      expect(modules.some((name) => name.startsWith("index.js"))).toBe(true);
      expect(modules.filter((name) => /scalar|graph\.js|live\.js|\.css/.test(name))).toEqual([]);
      expect(readFileSync(`${outdir}/index.js`, "utf8")).not.toContain("createApiReference");
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);

  it("is what npm run deploy ships", () => {
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.deploy).toBe("wrangler deploy --env production");
    expect(scripts.build).toContain("check-deploy.mjs");
  });
});
