import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

/**
 * The README says which Node versions run the project; every installed package must agree, or a
 * clean `npm ci` prints "Unsupported engine" warnings (issue 13: openai 7, undici 8 and
 * @scalar/* 0.25+ want Node 22, so they are held at versions that support Node 20).
 */
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
const readme = readFileSync("README.md", "utf8").replace(/\s+/g, " ");

describe("Node version requirement", () => {
  const oldest = semver.minVersion(pkg.engines.node);

  it("is stated in package.json and in the README alike", () => {
    expect(oldest?.version).toBe("20.19.0");
    expect(readme).toContain("Node 20.19 or later (22.13 or later on Node 22)");
  });

  it("is met by every package in the lock file, on every supported Node line", () => {
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === "" || wanted === undefined) continue;
      for (const node of ["20.19.0", "22.13.0", "24.0.0"]) {
        if (!semver.satisfies(node, wanted)) refusing.push(`${path.replace(/^node_modules\//, "")} wants node ${wanted} (not ${node})`);
      }
    }
    expect(refusing).toEqual([]);
  });
});
