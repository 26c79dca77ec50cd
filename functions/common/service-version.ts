/** How the service names itself: health answers, the OpenAPI document, and both sides of MCP (server and client info). */
export const SERVICE_NAME = "atc-edge";
export const SERVICE_VERSION = "0.1.0";
