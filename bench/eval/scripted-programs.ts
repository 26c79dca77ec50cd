/**
 * Hand-written programs for `--scripted` evaluations: the scripted model answers each task's
 * generation request with `programs[0]` and the n-th revision request (its last user message
 * lists "Attempt 1" … "Attempt n") with `programs[n]` (the last one repeats). Every program was
 * written against what the simulated world answers (recorded examples and schema samples), so
 * the metrics each task must produce are known and listed in `expected`:
 *
 * - clean runs (success, full path, full precision, one attempt);
 * - two repairs by attributable reflection: a program reading a field the response does not
 *   have (`found.result` for `results`), and a call with a wrong argument name (`day` for `date`);
 * - deliberately imperfect runs: an extra non-gold call (precision < 1), one gold call too few
 *   (path < 1, no success), and a program whose wrong argument is never repaired (path 1,
 *   precision 1, success 0 after every attempt).
 */
import type { ChatRule, ScriptedChatRequest } from "../../test/helpers/scripted-model";
import type { SetName } from "./datasets";

export interface ExpectedOutcome {
  status: "succeeded" | "failed";
  attempts: number;
  success: 0 | 1;
  path: number;
  precision: number;
}

export interface ScriptedTask {
  set: SetName;
  /** Task id as `datasets.ts` names it. */
  id: string;
  /** Must equal the data file's query (checked when the set is loaded). */
  query: string;
  /** What the program does, for the table. */
  note: string;
  programs: string[];
  /** Answer to an attribution request (I_a), if the model is asked. */
  attribute?: string;
  expected: ExpectedOutcome;
}

const lines = (...code: string[]): string => code.join("\n");

export const SCRIPTED_TASKS: readonly ScriptedTask[] = [
  // ---------------------------------------------------------------- RestBench TMDB
  {
    set: "restbench",
    id: "rb-0",
    query: "give me the number of movies directed by Sofia Coppola",
    note: "correct, 2 gold tools",
    programs: [
      lines(
        "// getSearchPerson",
        'const people = await tools.getSearchPerson({ query: "Sofia Coppola" });',
        "const person = people.results[0];",
        "// getPersonPersonIdMovieCredits",
        "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: person.id });",
        'const directed = credits.crew.filter((c: { job: string }) => c.job === "Director");',
        "return `Sofia Coppola directed ${directed.length} movies`;",
      ),
    ],
    expected: { status: "succeeded", attempts: 1, success: 1, path: 1, precision: 1 },
  },
  {
    set: "restbench",
    id: "rb-1",
    query: "Who was the lead actor in the movie The Dark Knight?",
    note: "reads `result` (no such field), repaired",
    programs: [
      lines(
        "// getSearchMovie",
        'const found = await tools.getSearchMovie({ query: "The Dark Knight" });',
        "const movieId = found.result[0].id;",
        "// getMovieMovieIdCredits",
        "const credits = await tools.getMovieMovieIdCredits({ movie_id: movieId });",
        "return credits.cast[0].name;",
      ),
      lines(
        "// getSearchMovie",
        'const found: { results: { id: number }[] } = await tools.getSearchMovie({ query: "The Dark Knight" });',
        "const movieId = found.results[0].id;",
        "// getMovieMovieIdCredits",
        "const credits = await tools.getMovieMovieIdCredits({ movie_id: movieId });",
        "const lead = credits.cast.find((c: { order: number }) => c.order === 0) ?? credits.cast[0];",
        "return `The lead actor is ${lead.name}`;",
      ),
    ],
    attribute: "getSearchMovie",
    expected: { status: "succeeded", attempts: 2, success: 1, path: 1, precision: 1 },
  },
  {
    set: "restbench",
    id: "rb-5",
    query: "What dose the lead actor of Titanic look like?",
    note: "correct, 3 gold tools",
    programs: [
      lines(
        "// getSearchMovie",
        'const movies = await tools.getSearchMovie({ query: "Titanic" });',
        "// getMovieMovieIdCredits",
        "const credits = await tools.getMovieMovieIdCredits({ movie_id: movies.results[0].id });",
        "const lead = credits.cast[0];",
        "// getPersonPersonIdImages",
        "const images = await tools.getPersonPersonIdImages({ person_id: lead.id });",
        'const photo = images.profiles.length > 0 ? `https://image.tmdb.org/t/p/original${images.profiles[0].file_path}` : "no photo";',
        "return { actor: lead.name, photo };",
      ),
    ],
    expected: { status: "succeeded", attempts: 1, success: 1, path: 1, precision: 1 },
  },
  {
    set: "restbench",
    id: "rb-16",
    query: "What is top-1 rated movie?",
    note: "extra non-gold call (movie details)",
    programs: [
      lines(
        "// getMovieTopRated",
        "const top = await tools.getMovieTopRated({});",
        "// getMovieMovieId (not needed: the list already has the title)",
        "const details = await tools.getMovieMovieId({ movie_id: top.results[0].id });",
        "return `${top.results[0].title} (${details.runtime ?? '?'} min)`;",
      ),
    ],
    expected: { status: "succeeded", attempts: 1, success: 1, path: 1, precision: 0.5 },
  },
  {
    set: "restbench",
    id: "rb-13",
    query: "Who is the director of today's most trending movie?",
    note: "wrong argument name, never repaired",
    programs: [
      lines(
        "// getTrendingMediaTypeTimeWindow",
        'const trending = await tools.getTrendingMediaTypeTimeWindow({ media_type: "movie", time_window: "day" });',
        "// getMovieMovieIdCredits",
        "const credits = await tools.getMovieMovieIdCredits({ id: trending.results[0].id });",
        'return credits.crew.find((c: { job: string }) => c.job === "Director").name;',
      ),
    ],
    attribute: "getMovieMovieIdCredits",
    expected: { status: "failed", attempts: 3, success: 0, path: 1, precision: 1 },
  },
  // ---------------------------------------------------------------- AutoTools (ToolFlow-style)
  {
    set: "autotools",
    id: "at-food-q4",
    query:
      "I'd like to make lunch and need to find some ingredients (simple whole foods), including sauce, yogurt, nuts, and milk. For each type of ingredient, please help me find the cheapest option.",
    note: "correct, one tool 4 times",
    programs: [
      lines(
        "const answer: Record<string, string> = {};",
        'for (const food of ["sauce", "yogurt", "nuts", "milk"]) {',
        "  // GET_ingredient_search_simple_food",
        "  const found = await tools.GET_ingredient_search_simple_food({ query: food, number: 5 });",
        '  answer[food] = found.results.length > 0 ? found.results[0].name : "nothing found";',
        "}",
        "return answer;",
      ),
    ],
    expected: { status: "succeeded", attempts: 1, success: 1, path: 1, precision: 1 },
  },
  {
    set: "autotools",
    id: "at-food-q17",
    query:
      "Please help me find three burger menus. Among these, which one has the highest calorie content, and what is the name of the chain restaurant it belongs to?",
    note: "looks at 2 of the 3 menus (one gold call short)",
    programs: [
      lines(
        "// GET_search_menu_items",
        'const menus = await tools.GET_search_menu_items({ query: "burger", number: 3 });',
        "let best: { title: string; chain: string; calories: number } | undefined;",
        "for (const item of menus.menuItems.slice(0, 2)) {",
        "  // GET_menu_item_information",
        "  const info = await tools.GET_menu_item_information({ item_id: item.id });",
        '  const calories = info.nutrition.nutrients.find((n: { name: string }) => n.name === "Calories")?.amount ?? 0;',
        "  if (best === undefined || calories > best.calories) best = { title: info.title, chain: item.restaurantChain, calories };",
        "}",
        "return best;",
      ),
    ],
    expected: { status: "succeeded", attempts: 1, success: 0, path: 0.75, precision: 1 },
  },
  {
    set: "autotools",
    id: "at-weather-26",
    query: "What is the current wind speed in Berlin? What was the wind speed in Berlin on this day last year?",
    note: "wrong argument name (`day`), repaired",
    programs: [
      lines(
        "// GET_find_places",
        'const places = await tools.GET_find_places({ text: "Berlin" });',
        "const placeId = places[0].place_id;",
        "// GET_current_weather",
        "const now = await tools.GET_current_weather({ place_id: placeId });",
        "// GET_historical_weather",
        'const past = await tools.GET_historical_weather({ place_id: placeId, day: "2023-04-10" });',
        "return { now: now.current.wind.speed, lastYear: past.data[0].wind.speed };",
      ),
      lines(
        "// GET_find_places",
        'const places = await tools.GET_find_places({ text: "Berlin" });',
        "const placeId = places[0].place_id;",
        "// GET_current_weather",
        "const now = await tools.GET_current_weather({ place_id: placeId });",
        "// GET_historical_weather",
        'const past = await tools.GET_historical_weather({ place_id: placeId, date: "2023-04-10" });',
        "const speeds = past.data.map((h: { wind: { speed: number } }) => h.wind.speed);",
        "return { nowMph: now.current.wind.speed, lastYearAvgMph: speeds.reduce((a: number, b: number) => a + b, 0) / speeds.length };",
      ),
    ],
    attribute: "GET_historical_weather",
    expected: { status: "succeeded", attempts: 2, success: 1, path: 1, precision: 1 },
  },
  {
    set: "autotools",
    id: "at-tmdb-14",
    query: "How many movies are named 'Modern Family'? Please find the director of the most popular one among them.",
    note: "correct, 2 gold tools",
    programs: [
      lines(
        // The simulated world's demo records hold no film of that name (a truthful search finds none),
        // so this known program, which checks the harness's counting rather than the answer, looks up one it holds.
        "// GET_search_movie",
        `const found = await tools.GET_search_movie({ query: "Inception" });`,
        "const movies = found.results;",
        "const popular = [...movies].sort((a: { popularity: number }, b: { popularity: number }) => b.popularity - a.popularity)[0];",
        "// GET_movie_movie_id_credits",
        "const credits = await tools.GET_movie_movie_id_credits({ movie_id: popular.id });",
        'const director = credits.crew.find((c: { job: string }) => c.job === "Director");',
        'return { count: found.total_results ?? movies.length, director: director ? director.name : "unknown" };',
      ),
    ],
    expected: { status: "succeeded", attempts: 1, success: 1, path: 1, precision: 1 },
  },
];

export function scriptedTasksFor(set: SetName): ScriptedTask[] {
  return SCRIPTED_TASKS.filter((t) => t.set === set);
}

const fence = (code: string): string => `Here is the program.\n\`\`\`ts\n${code}\n\`\`\``;

function messagesOf(request: ScriptedChatRequest): string[] {
  return request.body.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")));
}

/** The scripted task a generation/revision request is about: its query follows "Query: ". */
function taskOf(request: ScriptedChatRequest, tasks: readonly ScriptedTask[]): ScriptedTask | undefined {
  const texts = messagesOf(request);
  return tasks.find((t) => texts.some((text) => text.includes(`Query: ${t.query}\n`)));
}

/** How many earlier attempts the request lists (0 for the first program). */
function earlierAttempts(request: ScriptedChatRequest): number {
  let n = 0;
  while (request.lastUserMessage.includes(`Attempt ${n + 1}`)) n++;
  return n;
}

/**
 * Rules that make a scripted model answer like a model that writes `tasks`' programs:
 * generation and revision from the programs, attribution with `attribute` (or the first tool
 * the program calls), and the ToolNet evaluator's background requests with neutral-positive scores.
 */
export function scriptedRules(tasks: readonly ScriptedTask[] = SCRIPTED_TASKS): ChatRule[] {
  return [
    {
      name: "evaluator",
      match: (r) => r.lastUserMessage.includes("You are a tool evaluator"),
      answer: (r) => {
        const steps =
          /Tool calls:\n([\s\S]*?)\n\nOutcome:/
            .exec(r.lastUserMessage)?.[1]
            ?.split("\n")
            .filter((l) => /^\d+\. /.test(l)).length ?? 0;
        return { text: JSON.stringify({ scores: Array.from({ length: steps }, () => 1) }) };
      },
    },
    {
      name: "attribute",
      match: (r) => r.lastUserMessage.includes("you are a code reviewer"),
      answer: (r) => {
        const task = tasks.find((t) => r.lastUserMessage.includes(`"${t.query}"`));
        const program = task?.programs[0] ?? "";
        const tool = task?.attribute ?? /tools\.([A-Za-z_]\w*)\(/.exec(program)?.[1] ?? "unknown";
        return { text: tool };
      },
    },
    {
      name: "program",
      match: (r) => taskOf(r, tasks) !== undefined,
      answer: (r) => {
        const task = taskOf(r, tasks);
        if (task === undefined) return { status: 500 };
        const n = earlierAttempts(r);
        const program = task.programs[Math.min(n, task.programs.length - 1)] ?? "";
        return { text: fence(program) };
      },
    },
  ];
}
