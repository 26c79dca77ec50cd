// Types of import-graph.mjs for the TypeScript architecture test.
export const SOURCE_ROOTS: string[];
export function importGraph(root: string, options?: { roots?: string[]; typeImports?: boolean }): Map<string, string[]>;
export function folderOf(file: string): string;
export function importCycles(graph: Map<string, string[]>): string[][];
export function crossFolderCycles(graph: Map<string, string[]>): { files: string[]; folders: string[] }[];
export function loopThrough(graph: Map<string, string[]>, file: string, component: string[]): string[];
