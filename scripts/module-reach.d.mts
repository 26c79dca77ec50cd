// Types of module-reach.mjs for the TypeScript tests that guard what a module may import.
export interface ModuleReach {
  entry: string;
  inputs: number;
  ownFiles: number;
  packageFiles: number;
  own: string[];
  packages: string[];
  platform: string[];
}
export function moduleReach(entry: string): Promise<ModuleReach>;
