// Types of wrangler-output.mjs for its unit test.
export function dropRepeatedBindingsTables(): (line: string) => string[];
