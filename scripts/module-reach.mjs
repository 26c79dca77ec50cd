// How many source files does a module pull in? Bundles <entry> with esbuild (metafile only,
// nothing written), resolved as wrangler resolves a Worker, and lists every input file it
// reaches: the project's own files, the npm packages, and the platform modules (`cloudflare:*`,
// `node:*`), which stay external but are listed: reaching one means the module is not
// platform-free.
//
//   node scripts/module-reach.mjs functions/chain/run-task.ts [--json]
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

/** The files `entry` reaches through its imports (type-only imports erased, as in a bundle). */
export async function moduleReach(entry) {
  const platform = new Set();
  const recordPlatform = {
    name: "record-platform-modules",
    setup(b) {
      b.onResolve({ filter: /^(cloudflare|node):/ }, (args) => {
        platform.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["browser", "module", "main"],
    conditions: ["workerd", "worker", "browser"],
    logLevel: "silent",
    // Data the Worker imports (the built harness, wasm): counted as files, not parsed.
    loader: { ".txt": "empty", ".bin": "empty", ".wasm": "empty" },
    plugins: [recordPlatform],
  });
  const inputs = Object.keys(result.metafile.inputs).sort();
  const own = inputs.filter((file) => !file.includes("node_modules/"));
  const packages = [
    ...new Set(inputs.filter((file) => file.includes("node_modules/")).map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file)),
  ].sort();
  return { entry, inputs: inputs.length, ownFiles: own.length, packageFiles: inputs.length - own.length, own, packages, platform: [...platform].sort() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, flag] = process.argv.slice(2);
  if (entry === undefined) {
    console.error("usage: node scripts/module-reach.mjs <entry.ts> [--json]");
    process.exit(2);
  }
  const report = await moduleReach(entry);
  if (flag === "--json") {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(
      `${entry}: ${report.inputs} input files (${report.ownFiles} of the project, ${report.packageFiles} from ${report.packages.length} packages), ${report.platform.length} platform modules`,
    );
    for (const file of report.own) console.log(`  ${file}`);
    if (report.packages.length > 0) console.log(`packages: ${report.packages.join(", ")}`);
    if (report.platform.length > 0) console.log(`platform: ${report.platform.join(", ")}`);
  }
}
