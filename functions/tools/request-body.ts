import type { ToolParameter } from "./definition";
import { isRecord, type SchemaCopier, type Json, type Warnings } from "./schema-copier";

/**
 * A request body (OpenAPI `requestBody`, also accepted in bare lists) as tool parameters: the
 * properties of an object body become `in: "body"` parameters, so the model fills them like any
 * other; a body that is not an object, or whose property names clash with another parameter
 * (a body `id` beside a query `id`), is one `body` parameter, with a warning naming the clash.
 */

const PARAMETER_DESCRIPTION_LIMIT = 10_000;

export function baseMediaType(type: string): string {
  return (type.split(";")[0] ?? "").trim().toLowerCase();
}

export function isJsonMediaType(type: string): boolean {
  const base = baseMediaType(type);
  return base === "application/json" || base.endsWith("+json");
}

function pickBodyMediaType(types: string[]): string | undefined {
  return (
    types.find((t) => t === "application/json") ??
    types.find(isJsonMediaType) ??
    types.find((t) => baseMediaType(t) === "application/x-www-form-urlencoded") ??
    types.find((t) => baseMediaType(t) === "multipart/form-data") ??
    types[0]
  );
}

/**
 * `required` as documents really write it: a boolean, or the strings "true" / "false" (read as
 * the boolean they spell, with a warning); any other value is false, with a warning.
 */
export function requiredFlag(value: unknown, what: string, warnings: Pick<Warnings, "add">): boolean {
  if (value === undefined || typeof value === "boolean") return value === true;
  if (typeof value === "string" && /^(true|false)$/i.test(value.trim())) {
    const flag = value.trim().toLowerCase() === "true";
    warnings.add(`${what}: required is the string "${value}", not a boolean; read as ${String(flag)}.`);
    return flag;
  }
  warnings.add(`${what}: required is ${JSON.stringify(value)}, not a boolean; read as false.`);
  return false;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function clip(value: string, what: string, warnings: Warnings): string {
  if (value.length <= PARAMETER_DESCRIPTION_LIMIT) return value;
  warnings.add(`${what} is longer than ${PARAMETER_DESCRIPTION_LIMIT} characters; shortened.`);
  return `${value.slice(0, PARAMETER_DESCRIPTION_LIMIT - 1)}…`;
}

/** Properties of an object schema (merging `allOf` members), or undefined when it is not one. */
function objectShape(schema: Json, what: string, warnings: Warnings): { properties: [string, Json][]; required: string[] } | undefined {
  const type = schema.type;
  const typeAllowsObject = type === undefined || type === "object" || (Array.isArray(type) && type.includes("object"));
  if (!typeAllowsObject) return undefined;
  const properties: [string, Json][] = [];
  const required: string[] = [];
  if (isRecord(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      // readOnly properties are only ever sent by the server.
      if (!isRecord(property) || property.readOnly === true) continue;
      // Swagger-era habit: `required: true` (or "true") on the property instead of a list on the object.
      if (property.required !== undefined && !Array.isArray(property.required)) {
        if (requiredFlag(property.required, `${what}: body property ${name}`, warnings)) required.push(name);
        const { required: _flag, ...rest } = property;
        properties.push([name, rest]);
      } else {
        properties.push([name, property]);
      }
    }
  }
  if (Array.isArray(schema.required)) required.push(...schema.required.filter((r): r is string => typeof r === "string"));
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) {
      if (!isRecord(member)) return undefined;
      const inner = objectShape(member, what, warnings);
      if (inner === undefined) return undefined;
      for (const entry of inner.properties) if (!properties.some(([n]) => n === entry[0])) properties.push(entry);
      required.push(...inner.required);
    }
  } else if (!isRecord(schema.properties)) {
    return undefined;
  }
  return { properties, required };
}

/** Body parameters of a request body, and its media type; nothing when there is no usable body. */
export function requestBodyParameters(
  requestBody: unknown,
  others: readonly ToolParameter[],
  copier: SchemaCopier,
  warnings: Warnings,
): { parameters: ToolParameter[]; contentType?: string } {
  if (!isRecord(requestBody) || !isRecord(requestBody.content)) return { parameters: [] };
  const contentType = pickBodyMediaType(Object.keys(requestBody.content));
  if (contentType === undefined) return { parameters: [] };
  const media = requestBody.content[contentType];
  const schema = copier.schema(isRecord(media) ? media.schema : undefined, "request body");
  const bodyRequired = requiredFlag(requestBody.required, `${copier.label}: request body`, warnings);

  const object = objectShape(schema, copier.label, warnings);
  const taken = new Set(others.map((p) => p.name));
  if (object !== undefined && object.properties.length > 0) {
    const clash = object.properties.find(([name]) => taken.has(name));
    if (clash === undefined) {
      const parameters = object.properties.map(([name, property]): ToolParameter => {
        const description = text(property.description);
        return {
          name,
          in: "body",
          required: object.required.includes(name),
          description: description === undefined ? undefined : clip(description, `${copier.label}: body property ${name}`, warnings),
          schema: property,
        };
      });
      return { parameters, contentType };
    }
    warnings.add(`${copier.label}: body property "${clash[0]}" has the same name as another parameter; the body is one parameter instead.`);
  }

  const name = taken.has("body") ? "requestBody" : "body";
  const description = text(requestBody.description);
  return {
    parameters: [
      {
        name,
        in: "body",
        required: bodyRequired,
        description: description === undefined ? undefined : clip(description, `${copier.label}: request body`, warnings),
        schema,
      },
    ],
    contentType,
  };
}
