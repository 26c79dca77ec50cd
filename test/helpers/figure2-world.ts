import { createScriptedModel, type ScriptedChatRequest, type ScriptedModel } from "./scripted-model";

/**
 * The paper's Figure 2 as a world for the service: a rates tool whose documentation names
 * `start_date`/`end_date` (required) while it accepts `from`/`to` (optional) and rejects the old
 * names with an error message, and a scripted model that plays both the optimiser and the base
 * model as pure functions of the prompt. Used by the Play2Prompt integration test and benchmark.
 */

export const RATES_HOST = "rates.example.com";

export const RATES_TOOL = {
  name: "getHistoricalRates",
  method: "GET",
  url: `https://${RATES_HOST}/history`,
  description: "Get historical exchange rates between start_date and end_date.",
  parameters: [
    { name: "start_date", in: "query", required: true, schema: { type: "string" } },
    { name: "end_date", in: "query", required: true, schema: { type: "string" } },
    { name: "base", in: "query", required: false, schema: { type: "string" } },
  ],
};

const RENAMED = "Use 'from' and 'to' (YYYY-MM-DD); both are optional.";
const VARIANTS = [{ from: "2024-01-01", to: "2024-01-31" }, { from: "2023-06-01", to: "2023-06-30", base: "USD" }, { base: "GBP" }];

export function rates(url: URL): Response {
  const old = ["start_date", "end_date"].find((k) => url.searchParams.has(k));
  if (old !== undefined) return Response.json({ error: `Unknown parameter '${old}'. ${RENAMED}` }, { status: 400 });
  return Response.json({
    base: url.searchParams.get("base") ?? "EUR",
    from: url.searchParams.get("from") ?? "latest",
    to: url.searchParams.get("to") ?? "latest",
    rates: { USD: 1.08 },
  });
}

const namesFromTo = (text: string): boolean => text.includes("`from`") && text.includes("`to`");

/** The optimisation model and the base model, as pure functions of the prompt. */
export function figure2Answer(request: ScriptedChatRequest): string {
  const system = request.systemPrompt;
  const text = request.lastUserMessage;
  if (text.startsWith("You are using the tool")) {
    // Base model: it follows the description it was given; the query carries the intended call.
    const intended = JSON.parse(/User query: Rates for (\{.*\})\?/.exec(text)?.[1] ?? "{}") as Record<string, string>;
    const description = /Its documentation:\n([\s\S]*?)\nDocumented argument types/.exec(text)?.[1] ?? "";
    if (namesFromTo(description) || !("from" in intended)) return JSON.stringify({ arguments: intended });
    const { from, to, ...rest } = intended;
    return JSON.stringify({ arguments: { start_date: from, end_date: to, ...rest } });
  }
  if (system.startsWith("You are exploring a software tool")) {
    const k = Number(/Exploration (\d+) of/.exec(text)?.[1] ?? "1");
    if (!text.includes("Use 'from' and 'to'") && !text.includes('"from"'))
      return JSON.stringify({ arguments: { start_date: "2024-01-01", end_date: "2024-01-31" } });
    return JSON.stringify({ arguments: VARIANTS[(k - 1) % 3] });
  }
  if (system.startsWith("You check whether a tool call worked")) return '{"valid": true, "reason": "rates returned"}';
  if (system.startsWith("You write realistic examples")) return JSON.stringify({ query: `Rates for ${/Invocation: (.*)/.exec(text)?.[1] ?? "{}"}?` });
  if (system.startsWith("You are an assistant that called a tool")) return '{"answer": "1 EUR was 1.08 USD."}';
  if (system.startsWith("You grade examples")) return '{"score": 8, "reason": "clear"}';
  if (system.startsWith("You give feedback")) return '{"reflection": "Try another period or base currency."}';
  if (system.startsWith("You diagnose why")) {
    return JSON.stringify({
      reflection: text.includes("Use 'from' and 'to'")
        ? "The tool rejects start_date/end_date: it takes optional `from` and `to` (YYYY-MM-DD). Name those in the description."
        : "Describe the date parameters precisely.",
    });
  }
  if (system.startsWith("You improve tool descriptions")) {
    const feedback = /Feedback from watching[^\n]*\n([\s\S]*?)\n\nVariant/.exec(text)?.[1] ?? "";
    if (feedback.includes("`from`"))
      return JSON.stringify({
        description: "Historical exchange rates for a period: pass the optional `from` and `to` dates (YYYY-MM-DD) and an optional base currency.",
      });
    return JSON.stringify({ description: "Get historical exchange rates between start_date and end_date (YYYY-MM-DD)." });
  }
  return "{}";
}

/** The scripted model and the outbound handler of the Figure 2 world, counting real tool calls. */
export function figure2World(): { model: ScriptedModel; outbound: (request: Request) => Promise<Response>; toolCalls: () => number } {
  const model = createScriptedModel({ rules: [{ name: "figure2", answer: (request: ScriptedChatRequest) => ({ text: figure2Answer(request) }) }] });
  let calls = 0;
  return {
    model,
    toolCalls: () => calls,
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.hostname === "model.atc.test") return model.handle(request);
      if (url.hostname === RATES_HOST) {
        calls += 1;
        return rates(url);
      }
      return new Response("not found", { status: 404 });
    },
  };
}
