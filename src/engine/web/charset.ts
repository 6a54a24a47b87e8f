/**
 * The character encoding of a fetched page, decided the way browsers decide it (WHATWG HTML,
 * "determining the character encoding"): a byte order mark first, then the charset of the HTTP
 * `Content-Type`, then a `<meta charset>` or `<meta http-equiv="Content-Type">` within the first
 * 1,024 bytes (an XML declaration for XML documents), then one further in (the parser's change of
 * a tentative encoding), and without any of them UTF-8 when the
 * bytes are valid UTF-8, else windows-1252. Unlike a browser, a header saying UTF-8 over bytes that
 * are not UTF-8 is not believed (the page's declaration, else windows-1252, decides). workerd's TextDecoder knows every WHATWG encoding
 * (windows-125x, ISO-8859-x, KOI8, Shift_JIS, EUC-JP, ISO-2022-JP, GBK, GB18030, Big5, EUC-KR),
 * so no library is needed to decode them.
 */

export type EncodingSource = "bom" | "header" | "meta" | "late meta" | "xml" | "utf-8 by content" | "default";

export interface DecidedEncoding {
  /** The WHATWG name of the encoding (TextDecoder's `encoding`). */
  encoding: string;
  source: EncodingSource;
}

const PRESCAN_BYTES = 1024;
/**
 * How far a `<meta charset>` past the prescan is looked for. A browser that meets one while parsing
 * (its encoding still tentative) changes to it and parses the page again; pages that put a kilobyte
 * of styles or scripts before their meta are read in the encoding they name.
 */
const LATE_META_BYTES = 64 * 1024;

/** The encoding a label names, or null when TextDecoder does not know the label. */
export function encodingForLabel(label: string): string | null {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

/** The charset parameter of a Content-Type value ("text/html; charset=Shift_JIS" → "shift_jis"), if it names a known encoding. */
export function headerEncoding(contentType: string): string | null {
  const label = /;\s*charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;]+))/i.exec(contentType);
  const value = label?.[1] ?? label?.[2] ?? label?.[3];
  return value ? encodingForLabel(value) : null;
}

/** The encoding a byte-order mark at the start of `bytes` names, if any. */
export function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

/** The charset a `<meta http-equiv content>` value names ("text/html; charset=windows-1251"). */
function charsetInContent(content: string): string | null {
  const m = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i.exec(content);
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
}

/** A meta's answer as the prescan takes it: UTF-16 labels mean UTF-8 (the bytes were read as ASCII), x-user-defined is windows-1252. */
function prescanResult(label: string): string | null {
  const encoding = encodingForLabel(label);
  if (!encoding) return null;
  if (encoding === "utf-16le" || encoding === "utf-16be") return "utf-8";
  if (encoding === "x-user-defined") return "windows-1252";
  return encoding;
}

const META = /<meta(?=[\s/])((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;
const ATTRIBUTE = /([^\s/=>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

/**
 * The WHATWG prescan: the first `<meta>` within the first 1,024 bytes (outside comments) that
 * names an encoding, either by `charset` or by `http-equiv="content-type"` with a `content` charset.
 */
export function prescanEncoding(bytes: Uint8Array, limit = PRESCAN_BYTES): string | null {
  // Latin-1 keeps one character per byte, so ASCII markup reads right whatever the encoding.
  const head = latin1(bytes.subarray(0, limit)).replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  for (const [, tagAttributes] of head.matchAll(META)) {
    const attributes = new Map<string, string>();
    for (const [, rawName, doubleQuoted, singleQuoted, unquoted] of tagAttributes.matchAll(ATTRIBUTE)) {
      const name = rawName.toLowerCase();
      if (!attributes.has(name)) attributes.set(name, doubleQuoted ?? singleQuoted ?? unquoted ?? "");
    }
    const charset = attributes.get("charset");
    if (charset !== undefined) {
      const found = prescanResult(charset);
      if (found) return found;
      continue;
    }
    const content = attributes.get("content");
    if (attributes.get("http-equiv")?.toLowerCase() === "content-type" && content) {
      const label = charsetInContent(content);
      const found = label ? prescanResult(label) : null;
      if (found) return found;
    }
  }
  return null;
}

function xmlDeclarationEncoding(bytes: Uint8Array): string | null {
  const head = latin1(bytes.subarray(0, 200));
  const m = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head);
  return m ? encodingForLabel(m[1]) : null;
}

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 4096) out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  return out;
}

function isUtf8(bytes: Uint8Array, truncated: boolean): boolean {
  try {
    // A body cut at the byte limit may end inside a character: only the last three bytes may be partial.
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      truncated ? bytes.subarray(0, Math.max(0, bytes.length - 3)) : bytes,
    );
    return true;
  } catch {
    return false;
  }
}

/** Decides the encoding of a body served with `contentType` (see the module comment for the order). */
export function decideEncoding(bytes: Uint8Array, contentType: string, truncated = false): DecidedEncoding {
  const bom = bomEncoding(bytes);
  if (bom) return { encoding: bom, source: "bom" };
  const header = headerEncoding(contentType);
  // A header saying UTF-8 over bytes that are not (a server's default laid over a CMS's
  // windows-1252 pages) would turn every accented letter into U+FFFD: the page's own declaration
  // decides then, else windows-1252.
  if (header && (header !== "utf-8" || isUtf8(bytes, truncated))) return { encoding: header, source: "header" };
  // Past here with a UTF-8 header, the bytes are known not to be UTF-8, whatever else says so.
  const notUtf8 = header === "utf-8";
  const usable = (found: string | null) => (found && !(notUtf8 && found === "utf-8") ? found : null);
  if (/xml/i.test(contentType) && !/html/i.test(contentType)) {
    const xml = usable(xmlDeclarationEncoding(bytes));
    if (xml) return { encoding: xml, source: "xml" };
  }
  if (!/^text\/plain/i.test(contentType)) {
    const meta = usable(prescanEncoding(bytes));
    if (meta) return { encoding: meta, source: "meta" };
    const late = bytes.length > PRESCAN_BYTES ? usable(prescanEncoding(bytes, LATE_META_BYTES)) : null;
    if (late) return { encoding: late, source: "late meta" };
  }
  if (!notUtf8 && isUtf8(bytes, truncated)) return { encoding: "utf-8", source: "utf-8 by content" };
  return { encoding: "windows-1252", source: "default" };
}

/** The body as text in its decided encoding (a byte order mark is dropped). */
export function decodeBody(bytes: Uint8Array, contentType: string, truncated = false): string {
  return new TextDecoder(decideEncoding(bytes, contentType, truncated).encoding).decode(bytes);
}
