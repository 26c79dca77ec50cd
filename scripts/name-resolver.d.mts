export declare const NO_SUCH_NAME_CODES: Set<string>;
export declare const LOOKUP_TIMEOUT_MS: number;
export interface ResolveHostOptions {
  timeoutMs?: number;
  lookup?: (host: string) => Promise<{ address: string; family: number }[]>;
}
export declare function resolveHostName(name: string, options?: ResolveHostOptions): Promise<{ resolves: boolean | null; addresses?: string[] }>;
export declare function answerResolveRequest(request: Request, options?: ResolveHostOptions): Promise<Response>;
