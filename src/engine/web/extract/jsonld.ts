import { isDataScript, type ScriptBlock } from "./script-data.js";

/** JSON-LD helpers: pages embed one or more blocks, often with a `@graph`, nested objects and arrays. */

export type JsonNode = Record<string, unknown>;

/** The parsed JSON-LD blocks. Bad JSON is skipped. */
export function jsonLdRoots(blocks: readonly string[]): unknown[] {
  const out: unknown[] = [];
  for (const block of blocks) {
    try {
      out.push(JSON.parse(block.trim().replace(/^<!--|-->$/g, "")));
    } catch {
      /* invalid JSON-LD is common; ignore that block */
    }
  }
  return out;
}

/** Every object in the parsed JSON-LD blocks (graphs flattened, nested values walked). Bad JSON is skipped. */
export function jsonLdNodes(blocks: readonly string[]): JsonNode[] {
  const out: JsonNode[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 8 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1);
      return;
    }
    out.push(value as JsonNode);
    for (const v of Object.values(value)) walk(v, depth + 1);
  };
  for (const root of jsonLdRoots(blocks)) walk(root, 0);
  return out;
}

export function typesOf(node: JsonNode): string[] {
  const t = node["@type"];
  return (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === "string");
}

export function text(value: unknown): string | null {
  if (typeof value === "string") return value.trim() || null;
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return text(value[0]);
  if (value && typeof value === "object") {
    const o = value as JsonNode;
    return text(o.name ?? o.url ?? o["@value"] ?? o.value ?? null);
  }
  return null;
}

export function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") {
    const u = (value as JsonNode).url ?? (value as JsonNode)["@id"];
    return typeof u === "string" ? [u] : [];
  }
  return [];
}

/**
 * An HTMLRewriter handler for elements whose text is not page text (script, style, template, ...)
 * that collects the JSON-LD blocks among them (`blocks`) and, when `withData`, every inline data
 * script (`scripts`: JSON islands and scripts that may assign state; see script-data.ts).
 * HTMLRewriter keeps one end-tag callback per element (a second `onEndTag` replaces the first), so
 * a <script> must end its skip and its block in the same callback: two handlers on it left every
 * later text unread.
 */
export function skippedElements(
  withData = false,
  /** Called as each collected script ends, in document order (where it stands in the text). */
  onScript?: (block: ScriptBlock) => void,
): {
  handler: HTMLRewriterElementContentHandlers;
  skipping(): boolean;
  blocks: string[];
  scripts: ScriptBlock[];
} {
  const blocks: string[] = [];
  const scripts: ScriptBlock[] = [];
  let depth = 0;
  let buffer: string | null = null;
  return {
    blocks,
    scripts,
    skipping: () => depth > 0,
    handler: {
      element(el) {
        depth++;
        const type = el.getAttribute("type") ?? "";
        const jsonLd = el.tagName === "script" && /ld\+json/i.test(type);
        const data = withData && el.tagName === "script" && !el.hasAttribute("src") && isDataScript(type) !== null;
        buffer = jsonLd || data ? "" : null;
        const id = el.getAttribute("id") ?? "";
        el.onEndTag(() => {
          depth--;
          if (buffer !== null) {
            if (jsonLd) blocks.push(buffer);
            if (data) {
              const block = { type, id, text: buffer };
              scripts.push(block);
              onScript?.(block);
            }
          }
          buffer = null;
        });
      },
      text(t) {
        if (buffer !== null) buffer += t.text;
      },
    },
  };
}
