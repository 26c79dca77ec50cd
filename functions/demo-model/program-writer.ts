import type { ShownTool } from "./typed-api";

/**
 * The demo model's programs: it recognises a few question patterns about films and people, finds
 * the tools each pattern needs in the typed API it was shown (by TMDB path, whatever the tenant
 * named them), and writes the same chain of calls a language model would. Anything else gets a
 * program that fails with a message saying so, rather than an invented answer.
 */

/** Said in every answer the demo model's programs return. */
export const DEMO_NOTE =
  "Answered by the demo model (npm start -- --demo-model): a scripted stand-in that knows a few question patterns, not a language model.";

type Step = "searchPerson" | "personMovieCredits" | "searchMovie" | "movieCredits";

const STEP_PATHS: Record<Step, RegExp> = {
  searchPerson: /^\/search\/person$/,
  personMovieCredits: /^\/person\/\{[^}]+\}\/movie_credits$/,
  searchMovie: /^\/search\/movie$/,
  movieCredits: /^\/movie\/\{[^}]+\}\/credits$/,
};

interface Pattern {
  readonly name: string;
  readonly task: RegExp;
  readonly from: "person" | "movie";
  /** The expression over `credits` (the second call's result) that answers. */
  readonly answer: string;
}

const NAME = "(.+?)";
const END = "\\s*[?.!]*\\s*$";
const FILM = "(?:movies|films)";

/** Question patterns, most specific first; `NAME` captures the person or movie asked about. */
const PATTERNS: readonly Pattern[] = [
  {
    name: "count of movies acted in",
    task: new RegExp(`^how many ${FILM} (?:has|did|does) ${NAME} (?:acted|act|appeared|appear|starred|star) in${END}`, "i"),
    from: "person",
    answer: "`${new Set(credits.cast.map((c) => c.title)).size} movies`",
  },
  {
    name: "movies acted in",
    task: new RegExp(`^(?:which|what) ${FILM} (?:has|did|does) ${NAME} (?:acted|act|appeared|appear|starred|star) in${END}`, "i"),
    from: "person",
    answer: "[...new Set(credits.cast.map((c) => c.title))]",
  },
  {
    name: "movies directed",
    task: new RegExp(`^(?:which|what) ${FILM} (?:has|did|does) ${NAME} direct(?:ed)?${END}`, "i"),
    from: "person",
    answer: '[...new Set(credits.crew.filter((c) => c.job === "Director").map((c) => c.title))]',
  },
  {
    name: "director of a movie",
    task: new RegExp(`^who directed (?:the (?:movie|film) )?${NAME}${END}`, "i"),
    from: "movie",
    answer: 'credits.crew.filter((c) => c.job === "Director").map((c) => c.name)',
  },
  {
    name: "cast of a movie",
    task: new RegExp(`^who (?:starred|stars|acted|appeared|appears) in (?:the (?:movie|film) )?${NAME}${END}`, "i"),
    from: "movie",
    answer: "credits.cast.map((c) => c.name)",
  },
];

/** The tool shown for a step, and the argument names it takes. */
function toolFor(tools: readonly ShownTool[], step: Step): ShownTool | undefined {
  return tools.find((t) => t.method === "GET" && STEP_PATHS[step].test(t.path));
}

function searchArgument(tool: ShownTool): string {
  return tool.parameters.find((p) => p === "query" || p === "q") ?? tool.parameters[0] ?? "query";
}

function idArgument(tool: ShownTool): string {
  return /\{([^}]+)\}/.exec(tool.path)?.[1] ?? "id";
}

/** A program for `task` over `tools`: the pattern's chain, or one that fails saying what the demo model cannot do. */
export function writeProgram(task: string, tools: readonly ShownTool[]): string {
  const text = task.trim();
  for (const pattern of PATTERNS) {
    const match = pattern.task.exec(text);
    const subject = match?.[1]?.trim().replace(/^["'“]|["'”]$/g, "");
    if (match === null || subject === undefined || subject === "") continue;
    const search = toolFor(tools, pattern.from === "person" ? "searchPerson" : "searchMovie");
    const credits = toolFor(tools, pattern.from === "person" ? "personMovieCredits" : "movieCredits");
    if (search === undefined || credits === undefined)
      return cannotAnswer(`the ${pattern.name} pattern needs TMDB's search and credits tools, which are not among this run's tools`);
    return [
      `// ${search.name}`,
      `const found = await tools.${search.name}({ ${searchArgument(search)}: ${JSON.stringify(subject)} });`,
      "const first = found.results?.[0];",
      `if (first === undefined) return { answer: null, note: ${JSON.stringify(`${DEMO_NOTE} The search found nothing named ${subject}.`)} };`,
      `// ${credits.name}`,
      `const credits = await tools.${credits.name}({ ${idArgument(credits)}: first.id });`,
      `return { answer: ${pattern.answer}, note: ${JSON.stringify(DEMO_NOTE)} };`,
    ].join("\n");
  }
  return cannotAnswer(`it writes programs only for questions like ${PATTERNS.map((p) => p.name).join(", ")}`);
}

function cannotAnswer(reason: string): string {
  const message = `The demo model (npm start -- --demo-model) cannot answer this task: ${reason}. Configure a real model (MODEL_BASE_URL) for other tasks.`;
  return `throw new Error(${JSON.stringify(message)});`;
}
