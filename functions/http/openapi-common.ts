import type { z } from "@hono/zod-openapi";
import { Problem } from "./problem";

/** Problem response entries for route definitions, so the OpenAPI document lists errors too. */
export const problemContent = { "application/problem+json": { schema: Problem } };

export function problems(...statuses: number[]): Record<number, { description: string; content: typeof problemContent }> {
  return Object.fromEntries(statuses.map((status) => [status, { description: "Problem details (RFC 9457)", content: problemContent }]));
}

export const tenantSecurity = [{ tenantKey: [] as string[] }];
export const adminSecurity = [{ adminToken: [] as string[] }];

/** JSON request body that must be present. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, ...(description === undefined ? {} : { description }), content: { "application/json": { schema } } };
}
