import { describe, expect, it } from "vitest";
import { ToolName } from "../../functions/tools/definition";
import { isToolName, NameRegistry, nameFromOperation, toIdentifier } from "../../functions/tools/tool-names";

describe("tool names", () => {
  it("turns operationIds into camelCase identifiers", () => {
    expect(toIdentifier("GET_movie-movie_id-reviews")).toBe("getMovieMovieIdReviews");
    expect(toIdentifier("GET_tv-tv_id-season-season_number")).toBe("getTvTvIdSeasonSeasonNumber");
    expect(toIdentifier("listPets")).toBe("listPets");
    expect(toIdentifier("get_user_by_ID")).toBe("getUserById");
    expect(toIdentifier("Pets.Find-By Tag")).toBe("petsFindByTag");
    expect(toIdentifier("3d-models")).toBe("_3dModels");
    expect(toIdentifier("élan vital")).toBe("elanVital");
    expect(toIdentifier("日本 api")).toBe("api");
    expect(toIdentifier("--")).toBe("");
  });

  it("names operations without operationId from method and path", () => {
    expect(nameFromOperation("GET", "/pets/{petId}/toys")).toBe("getPetsByPetIdToys");
    expect(nameFromOperation("POST", "/")).toBe("post");
    expect(nameFromOperation("DELETE", "/movie/{movie_id}")).toBe("deleteMovieByMovieId");
  });

  it("keeps names within the contract's identifier rule and length", () => {
    const long = toIdentifier("word-".repeat(60));
    expect(long).toHaveLength(100);
    expect(ToolName.safeParse(long).success).toBe(true);
    expect(isToolName("GET_menu_item_information")).toBe(true);
    expect(isToolName("get weather")).toBe(false);
    expect(isToolName("a".repeat(101))).toBe(false);
  });

  it("hands out unique names deterministically, suffixing later claimants", () => {
    const names = new NameRegistry();
    expect(names.claim("getPet")).toBe("getPet");
    expect(names.claim("getPet")).toBe("getPet_2");
    expect(names.claim("getPet")).toBe("getPet_3");
    expect(names.has("getPet_2")).toBe(true);
    const long = "x".repeat(100);
    expect(names.claim(long)).toBe(long);
    const second = names.claim(long);
    expect(second).toBe(`${"x".repeat(98)}_2`);
    expect(ToolName.safeParse(second).success).toBe(true);
  });
});
