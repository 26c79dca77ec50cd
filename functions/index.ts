import { createServiceApp } from "./http/service-app";

export { ToolGateway } from "./services/tool-gateway";
export { DirectoryObject } from "../durable-objects/directory-object";
export { TenantObject } from "../durable-objects/tenant-object";

export default createServiceApp() satisfies ExportedHandler<Env>;
