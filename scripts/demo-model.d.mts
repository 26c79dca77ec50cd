/** The demo model's settings for the service, and a way to stop its server. */
export interface DemoModel {
  baseUrl: string;
  vars: { MODEL_BASE_URL: string; MODEL_API_KEY: string; MODEL_NAME: string; MODEL_ALLOW_LOOPBACK: string };
  close(): Promise<void>;
}
export function startDemoModel(root: string, stateDir: string): Promise<DemoModel>;
