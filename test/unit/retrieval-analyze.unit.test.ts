import { describe, expect, it } from "vitest";
import { adjacentCompounds, analyze, QueryTermIds, queryTerms, queryWords, splitWords, termOf } from "../../functions/toolnet/retrieval/analyze";
import { stem } from "../../functions/toolnet/retrieval/stem";
import { toolDocument } from "../../functions/toolnet/retrieval/tool-document";
import { ToolDefinition } from "../../functions/tools/definition";

describe("splitWords", () => {
  it("splits camelCase, including acronyms", () => {
    expect(splitWords("getPersonMovieCredits")).toEqual(["get", "person", "movie", "credits"]);
    expect(splitWords("parseHTMLDocument")).toEqual(["parse", "html", "document"]);
    expect(splitWords("colisId")).toEqual(["colis", "id"]);
  });

  it("splits snake_case, kebab-case and dotted names", () => {
    expect(splitWords("include_adult")).toEqual(["include", "adult"]);
    expect(splitWords("GET_movie-movie_id-keywords")).toEqual(["get", "movie", "movie", "id", "keywords"]);
    expect(splitWords("air_date.gte")).toEqual(["air", "date", "gte"]);
  });

  it("splits path segments and placeholders", () => {
    expect(splitWords("/person/{person_id}/movie_credits")).toEqual(["person", "person", "id", "movie", "credits"]);
  });

  it("keeps non-ASCII letters and digits inside words", () => {
    expect(splitWords("Étapes du colis CA107308006SI")).toEqual(["étapes", "du", "colis", "ca107308006si"]);
  });

  it("returns nothing for text without letters or digits", () => {
    expect(splitWords("")).toEqual([]);
    expect(splitWords(" /{}_-. ")).toEqual([]);
  });
});

describe("stem (Porter)", () => {
  it("gives the stems of Porter's published examples", () => {
    const cases: [string, string][] = [
      ["caresses", "caress"],
      ["ponies", "poni"],
      ["cats", "cat"],
      ["agreed", "agre"],
      ["hopping", "hop"],
      ["relational", "relat"],
      ["generalizations", "gener"],
      ["happy", "happi"],
      ["abbey", "abbei"],
    ];
    for (const [word, expected] of cases) expect(stem(word), word).toBe(expected);
  });

  it("brings inflections and derivations of one word together", () => {
    expect(stem("movies")).toBe(stem("movie"));
    expect(stem("directed")).toBe(stem("directing"));
    expect(stem("direction")).toBe(stem("directs"));
    expect(stem("credits")).toBe(stem("credit"));
  });

  it("leaves short, non-ASCII and alphanumeric words alone", () => {
    expect(stem("as")).toBe("as");
    expect(stem("étapes")).toBe("étapes");
    expect(stem("mp3s")).toBe("mp3s");
  });
});

describe("analyze", () => {
  it("drops English function words and stems the rest", () => {
    expect(analyze("Who directed the movies of the year?")).toEqual(["direct", "movi", "year"]);
  });

  it("keeps repeats, since term frequency feeds BM25", () => {
    expect(analyze("movie movies")).toEqual(["movi", "movi"]);
  });

  it("yields no terms for stop words only", () => {
    expect(analyze("what is the and of it")).toEqual([]);
  });
});

describe("queryWords", () => {
  it("adds each pair of adjacent meaningful words written together, after the words", () => {
    expect(queryWords("download the file")).toEqual(["download", "the", "file", "downloadfile"]);
    expect(queryWords("getRandom image")).toEqual(["get", "random", "image", "getrandom", "randomimage"]);
  });

  it("gives, as queryTerms, the terms of these words in their order (the index and MiniSearch search the same terms)", () => {
    for (const text of ["Please download the file report.pdf", "getRandom image of 2 cats and a dog", "the of", "Étapes du colis CA107308006SI"]) {
      expect(queryTerms(text)).toEqual(queryWords(text).flatMap((word) => termOf(word) ?? []));
    }
  });

  it("joins no word with digits, and adds nothing to a single word", () => {
    expect(queryWords("track CA107308006SI today")).toEqual(["track", "ca107308006si", "today"]);
    expect(queryWords("weather")).toEqual(["weather"]);
    expect(queryWords("")).toEqual([]);
  });
});

describe("QueryTermIds", () => {
  it("gives the index ids of queryTerms, in its order, -1 for terms the index lacks, the same when its words are remembered", () => {
    const vocabulary = new Map(["download", "file", "downloadfil", "random", "imag"].map((term, id) => [term, id]));
    const ids = new QueryTermIds((term) => vocabulary.get(term) ?? -1);
    for (const text of ["Please download the file report.pdf", "getRandom image of 2 cats and a dog", "the of", "download file download"]) {
      const expected = queryTerms(text).map((term) => vocabulary.get(term) ?? -1);
      expect(ids.of(text), text).toEqual(expected);
      expect(ids.of(text), `${text} (remembered)`).toEqual(expected);
    }
  });

  it("sees terms added to the index after clear()", () => {
    const vocabulary = new Map<string, number>();
    const ids = new QueryTermIds((term) => vocabulary.get(term) ?? -1);
    expect(ids.of("quokka telemetry")).toEqual([-1, -1, -1]);
    vocabulary.set("quokka", 0);
    ids.clear();
    expect(ids.of("quokka telemetry")).toEqual([0, -1, -1]);
  });
});

describe("adjacentCompounds", () => {
  it("joins adjacent meaningful words, skipping stop words and words with digits", () => {
    expect(adjacentCompounds(["get", "the", "movie", "credits"])).toEqual(["getmovie", "moviecredits"]);
    expect(adjacentCompounds(["iso", "639", "language", "code"])).toEqual(["languagecode"]);
    expect(adjacentCompounds(["movie"])).toEqual([]);
  });
});

describe("toolDocument", () => {
  const def = ToolDefinition.parse({
    name: "getPersonMovieCredits",
    method: "GET",
    serverUrl: "https://api.themoviedb.org/3",
    path: "/person/{person_id}/movie_credits",
    operation: "GET /person/{person_id}/movie_credits",
    summary: "Get Movie Credits",
    description: "Get the movie credits for a person.",
    parameters: [
      { name: "person_id", in: "path", required: true },
      { name: "language", in: "query", description: "ISO 639-1 language code." },
    ],
    tags: ["people", "credits"],
  });

  it("carries every searchable part of the definition", () => {
    expect(toolDocument(def)).toEqual({
      name: "getPersonMovieCredits",
      operation: "GET /person/ /movie_credits",
      summary: "Get Movie Credits",
      description: "Get the movie credits for a person.",
      parameters: "person_id language",
      parameterDocs: "\nISO 639-1 language code.",
      tags: "people credits",
      action: "get list show fetch retrieve read view check display",
      examples: "",
      outputs: "",
      siblings: "",
      phrases: "getperson personmovie moviecredits\npersonmovie moviecredits\ngetmovie moviecredits",
      values: "",
      api: "",
    });
    expect(toolDocument(ToolDefinition.parse({ ...def, apiTitle: "The Movie Database" })).api).toBe("The Movie Database");
  });

  it("adds what the other operations of the tool's API do: their summaries, else their names", () => {
    const doc = toolDocument(def, {
      siblings: [{ name: "getPersonImages", summary: "Get Images" }, { name: "getPersonTvCredits" }, { name: "getPersonTranslations", summary: " " }],
    });
    expect(doc.siblings).toBe("Get Images\ngetPersonTvCredits\ngetPersonTranslations");
  });

  it("adds queries the tool is known to answer (probe example, Play2Prompt demonstrations)", () => {
    const doc = toolDocument(def, { queries: ["How many movies has Bradley Cooper acted in?", "Films of Sofia Coppola"] });
    expect(doc.examples).toBe("How many movies has Bradley Cooper acted in?\nFilms of Sofia Coppola");
  });

  it("lists what the tool returns: response field names and short categorical example values", () => {
    const withResponse = ToolDefinition.parse({
      ...def,
      responseSchema: {
        type: "object",
        properties: { crew: { type: "array", items: { type: "object", properties: { job: { type: "string" }, name: { type: "string" } } } } },
      },
      responseExample: { crew: [{ job: "Director", name: "Sofia Coppola", profile_path: "/x.jpg", id: 1769 }] },
    });
    expect(toolDocument(withResponse).outputs.split(" ")).toEqual(expect.arrayContaining(["crew", "job", "Director"]));
    expect(toolDocument(withResponse).outputs).not.toContain("/x.jpg");
  });

  it("describes a tool's action in everyday verbs: its name's verb first, else its method", () => {
    const remove = ToolDefinition.parse({ ...def, name: "deleteNote", method: "DELETE", operation: "DELETE /notes/{id}", path: "/notes/{id}" });
    const searchByPost = ToolDefinition.parse({ ...def, name: "searchNotes", method: "POST", operation: "POST /notes/search", path: "/notes/search" });
    expect(toolDocument(remove).action).toContain("remove");
    expect(toolDocument(searchByPost).action).toContain("find");
    expect(toolDocument(searchByPost).action).not.toContain("create");
  });

  it("drops path placeholders from the operation: person, movie, credits remain", () => {
    expect(analyze(toolDocument(def).operation)).toEqual(["get", "person", "movi", "credit"]);
  });

  it("caps very long descriptions", () => {
    const long = ToolDefinition.parse({ ...def, description: "word ".repeat(3_000) });
    expect(toolDocument(long).description.length).toBeLessThanOrEqual(2_000);
  });
});
