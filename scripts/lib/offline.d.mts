// Types for offline.mjs (the test suite imports it).
export interface Upstream {
  host: string;
  what: string;
  without: string;
  env?: Record<string, string>;
}
export declare function upstreams(dohUrl: string | undefined): Upstream[];
export declare function missingUpstreams(
  list: Upstream[],
  lookup: (host: string) => Promise<unknown>,
  timeoutMs?: number,
): Promise<Upstream[]>;
export declare function offlineLine(u: Upstream): string;
export declare function createOutputFilter(opts?: { color?: boolean }): { push(chunk: string): string; end(): string };
