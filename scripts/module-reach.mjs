// How many source files does a module pull in? Bundles <entry> with esbuild (metafile only,
// nothing written) and prints the count and the list of every input file it reaches: the
// project's own files, then npm packages, then platform modules (`cloudflare:*`, `node:*`),
// which stay external but are listed because reaching them means the module is not
// platform-free.
//
//   node scripts/module-reach.mjs functions/chain/run-task.ts [--json]
import { build } from "esbuild";

const [entry, flag] = process.argv.slice(2);
if (entry === undefined) {
  console.error("usage: node scripts/module-reach.mjs <entry.ts> [--json]");
  process.exit(2);
}

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
  // Resolved as wrangler resolves a Worker bundle.
  mainFields: ["browser", "module", "main"],
  conditions: ["workerd", "worker", "browser"],
  logLevel: "silent",
  // Data the Worker imports (the built harness, wasm): counted as files, not parsed.
  loader: { ".txt": "empty", ".bin": "empty", ".wasm": "empty" },
  plugins: [recordPlatform],
});

const inputs = Object.keys(result.metafile.inputs).sort();
const own = inputs.filter((file) => !file.includes("node_modules/"));
const packages = [...new Set(inputs.filter((file) => file.includes("node_modules/")).map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file))].sort();
const report = { entry, inputs: inputs.length, ownFiles: own.length, packageFiles: inputs.length - own.length, own, packages, platform: [...platform].sort() };

if (flag === "--json") {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`${entry}: ${report.inputs} input files (${report.ownFiles} of the project, ${report.packageFiles} from ${packages.length} packages), ${platform.size} platform modules`);
  for (const file of own) console.log(`  ${file}`);
  if (packages.length > 0) console.log(`packages: ${packages.join(", ")}`);
  if (platform.size > 0) console.log(`platform: ${report.platform.join(", ")}`);
}
