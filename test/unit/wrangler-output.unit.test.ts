import { describe, expect, it } from "vitest";
import { dropRepeatedBindingsTables } from "../../scripts/wrangler-output.mjs";

/** wrangler dev's lines as npm start shows them (scripts/wrangler-output.mjs). */

const table = (status: string) => [
  "Your Worker has access to the following bindings:",
  "Binding                                   Resource       Mode",
  `env.SIMULATED_WORLD (atc-edge-world)      Worker         local ${status}`,
  "env.LOADER                                Worker Loader  local",
  "",
];

function shown(lines: string[]): string[] {
  const filter = dropRepeatedBindingsTables();
  return lines.flatMap((line) => filter(line));
}

describe("wrangler dev output", () => {
  it("shows a bindings table once when wrangler reprints it unchanged after reading its dev registry", () => {
    const output = [
      ...table("[connected]"),
      "Service bindings … connect to other Wrangler or Vite dev processes",
      "",
      "⎔ Starting local server...",
      "⎔ Connection status updated",
      ...table("[connected]"),
      "[wrangler:info] Ready on http://127.0.0.1:8787/",
    ];
    expect(shown(output)).toEqual([
      ...table("[connected]"),
      "Service bindings … connect to other Wrangler or Vite dev processes",
      "",
      "⎔ Starting local server...",
      "[wrangler:info] Ready on http://127.0.0.1:8787/",
    ]);
  });

  it("shows a reprinted table that differs, with its heading, and every other line as it came", () => {
    const output = [...table("[connected]"), "⎔ Connection status updated", ...table("[not connected]"), "[wrangler:info] GET /health 200 OK (3ms)"];
    expect(shown(output)).toEqual(output);
  });

  it("shows a status line that no table follows", () => {
    const output = ["⎔ Connection status updated", "[wrangler:info] Ready on http://127.0.0.1:8787/"];
    expect(shown(output)).toEqual(output);
  });
});
