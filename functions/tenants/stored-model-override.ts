import { z } from "zod";

/**
 * A tenant's model override as its setting stores it (the key sealed). Apart from
 * services/model-settings.ts, which seals and opens it, because the tenant's object reads it too (does the
 * tenant name an embeddings model?) and must not import what reaches the tenant's API.
 */

/** The tenant setting that holds the override. */
export const MODEL_SETTING = "model";

/** The stored override: names in clear, the key sealed (credential-crypto.ts). */
export const StoredOverride = z.object({
  baseUrl: z.string().optional(),
  model: z.string().optional(),
  embeddingModel: z.string().optional(),
  apiKey: z.object({ ciphertext: z.string(), iv: z.string(), hint: z.string() }).optional(),
});

/** The embeddings model a stored override names, from the setting's JSON (no secret is opened). */
export function storedEmbeddingModel(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  const stored = StoredOverride.safeParse(JSON.parse(json));
  return stored.success ? stored.data.embeddingModel : undefined;
}
