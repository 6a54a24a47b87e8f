/** RFC 3339 with an explicit offset, as strict clients of this API parse it (`2026-11-22T14:04:12+00:00`). */
export function rfc3339(ms: number): string;
export function rfc3339(ms: number | null | undefined): string | null;
export function rfc3339(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

/** Parses RFC 3339 or YYYY-MM-DD; returns Unix ms or null when the text is not a date. */
export function parseInstant(text: string): number | null {
  const value = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

export const DAY_MS = 86_400_000;

export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}
