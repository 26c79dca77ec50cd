/** A generated document: `resources` resources, each with a list and an item path (3 operations), schemas referring to one another (a cycle too). */
export function generatedDocument(resources: number, options: { cookieParameters?: boolean } = {}): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    Page: { type: "object", properties: { next: { type: "string" }, total: { type: "integer" } } },
    Node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } } },
  };
  for (let i = 0; i < resources; i += 1) {
    const name = `Thing${i}`;
    schemas[name] = {
      type: "object",
      description: `A "thing" number ${i} ~ with / odd characters`,
      properties: { id: { type: "string" }, page: { $ref: "#/components/schemas/Page" }, tree: { $ref: "#/components/schemas/Node" } },
    };
    // A cookie parameter is not supported: one warning per operation that has it.
    const cookie = options.cookieParameters === true ? { parameters: [{ name: `session${i}`, in: "cookie", schema: { type: "string" } }] } : {};
    paths[`/things${i}`] = {
      ...cookie,
      get: {
        operationId: `listThings${i}`,
        summary: `List things ${i}`,
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: { $ref: `#/components/schemas/${name}` } } } } },
        },
      },
      post: {
        operationId: `createThing${i}`,
        requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: { "201": { description: "made" } },
      },
    };
    paths[`/things${i}/{id}`] = {
      parameters: [{ $ref: "#/components/parameters/Id" }],
      // Every hundredth operation repeats a name, so names must stay unique across batches.
      get: {
        operationId: i % 100 === 0 ? "getThing" : `getThing${i}`,
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } } },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "Generated", version: "1" },
    servers: [{ url: "https://api.example.com/v1" }],
    security: [{ key: [] }],
    paths,
    components: {
      schemas,
      parameters: { Id: { name: "id", in: "path", required: true, schema: { type: "string" } } },
      securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } },
    },
  };
}
