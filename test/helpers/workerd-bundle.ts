import { build } from "esbuild";

/**
 * Bundle a small test Worker (given as source text that imports project modules) the way
 * wrangler resolves packages for Workers, so a unit test can run pure modules inside workerd.
 */
export async function bundleTestWorker(source: string, name: string): Promise<string> {
  const bundle = await build({
    stdin: { contents: source, resolveDir: process.cwd(), sourcefile: name, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    // The resolution wrangler uses for Workers.
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["workerd", "worker", "browser", "module", "main"],
    logLevel: "silent",
  });
  const script = bundle.outputFiles[0]?.text;
  if (!script) throw new Error("esbuild produced no output");
  return script;
}
