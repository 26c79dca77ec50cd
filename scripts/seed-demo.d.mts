// Types of seed-demo.mjs for the TypeScript tests that load the demo tenant as `npm start` does.
export function seedDemo(baseUrl: string, adminToken: string, stateDir?: string): Promise<{ key: string; keyFile: string; summary: string[] }>;
