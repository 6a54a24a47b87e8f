// Types for config.mjs (the test suite imports it).
export declare const DEFAULT_PORT: number;
export declare function localConfig(env: Record<string, string | undefined>): { port: number; baseUrl: string };
export declare function localConfigOrExit(): { port: number; baseUrl: string };
