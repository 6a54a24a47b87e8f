/** JSON-LD helpers: pages embed one or more blocks, often with a `@graph`, nested objects and arrays. */

export type JsonNode = Record<string, unknown>;

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
  for (const block of blocks) {
    try {
      walk(JSON.parse(block.trim().replace(/^<!--|-->$/g, "")), 0);
    } catch {
      /* invalid JSON-LD is common; ignore that block */
    }
  }
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
 * that collects the JSON-LD blocks among them. HTMLRewriter keeps one end-tag callback per element
 * (a second `onEndTag` replaces the first), so a JSON-LD <script> must end its skip and its block in
 * the same callback: two handlers on it left every later text unread.
 */
export function skippedElements(): { handler: HTMLRewriterElementContentHandlers; skipping(): boolean; blocks: string[] } {
  const blocks: string[] = [];
  let depth = 0;
  let buffer: string | null = null;
  return {
    blocks,
    skipping: () => depth > 0,
    handler: {
      element(el) {
        depth++;
        const jsonLd = el.tagName === "script" && /ld\+json/i.test(el.getAttribute("type") ?? "");
        buffer = jsonLd ? "" : null;
        el.onEndTag(() => {
          depth--;
          if (jsonLd && buffer !== null) blocks.push(buffer);
          buffer = null;
        });
      },
      text(t) {
        if (buffer !== null) buffer += t.text;
      },
    },
  };
}
