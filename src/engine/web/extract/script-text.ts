/**
 * What an inline script's own literals spell, read without running it: strings joined with `+`
 * (through variables bound to such joins: `var u = "jane"; var d = "acme" + ".de"; u + "@" + d`),
 * and a literal reversed by `.split("").reverse().join("")`. Anything that is not a literal or a
 * variable bound to one ends a join (`String.fromCharCode(64)`, a function call, a property):
 * this reads what the page's bytes say, never what a program computes. Used for addresses a
 * script assembles and for the JSON endpoints a script fetches (`fetch(API_BASE + "/team")`).
 */

type Token = { kind: "str"; value: string } | { kind: "id"; value: string } | { kind: "op"; value: string };

/** How much of an inline script is read for what it assembles. */
const MAX_SCRIPT = 64 * 1024;
/**
 * How much of a script that fetches is read for its endpoints: a site-wide bundle (a few hundred KB
 * of library code on one line) may name the team's route anywhere in it. Reading is linear: a
 * 400 KB bundle takes 16-25 ms on a loaded test machine.
 */
const MAX_FETCHING_SCRIPT = 1024 * 1024;

/** Keywords after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(["return", "typeof", "case", "in", "of", "delete", "void", "throw", "new", "else", "do"]);

/** Whether a `/` after `previous` starts a regular expression literal (`(/["']/g`, `return/^a/i`). */
function regexMayStart(previous: Token | undefined): boolean {
  if (!previous) return true;
  if (previous.kind === "id") return BEFORE_REGEX.has(previous.value);
  if (previous.kind === "str") return false;
  return /^[(,=:[!&|?{};+\-*%<>~^]$/.test(previous.value);
}

/** The end of a regular expression literal starting at `i` (its `/`), or -1 when none ends on the line. */
function regexEnd(s: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === "\\") j++;
    else if (c === "\n") return -1;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) {
      let end = j + 1;
      while (end < s.length && /[a-z]/.test(s.charAt(end))) end++;
      return end;
    }
  }
  return -1;
}

function tokenize(script: string, max = MAX_SCRIPT): Token[] {
  const out: Token[] = [];
  const s = script.length > max ? script.slice(0, max) : script;
  let i = 0;
  while (i < s.length) {
    const c = s.charAt(i);
    // A regular expression's quotes and slashes are not strings or comments ("/["']/g"): skipped whole.
    if (c === "/" && s[i + 1] !== "/" && s[i + 1] !== "*" && regexMayStart(out[out.length - 1])) {
      const end = regexEnd(s, i);
      if (end > 0) {
        out.push({ kind: "op", value: "regex" });
        i = end;
        continue;
      }
    }
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      let value = "";
      let ok = true;
      while (j < s.length && s[j] !== c) {
        if (s[j] === "\\") {
          const e = s[j + 1] ?? "";
          if (e === "u" && /^[0-9a-fA-F]{4}$/.test(s.slice(j + 2, j + 6))) {
            value += String.fromCharCode(Number.parseInt(s.slice(j + 2, j + 6), 16));
            j += 6;
            continue;
          }
          if (e === "x" && /^[0-9a-fA-F]{2}$/.test(s.slice(j + 2, j + 4))) {
            value += String.fromCharCode(Number.parseInt(s.slice(j + 2, j + 4), 16));
            j += 4;
            continue;
          }
          value += e === "n" ? "\n" : e === "t" ? "\t" : e;
          j += 2;
          continue;
        }
        // A template's ${…} is code: the literal is not a plain string.
        if (c === "`" && s[j] === "$" && s[j + 1] === "{") ok = false;
        if (s[j] === "\n" && c !== "`") break;
        value += s[j];
        j++;
      }
      out.push(ok ? { kind: "str", value } : { kind: "op", value: "?" });
      i = j + 1;
      continue;
    }
    if (c === "/" && s[i + 1] === "/") {
      const end = s.indexOf("\n", i);
      i = end < 0 ? s.length : end;
      continue;
    }
    if (c === "/" && s[i + 1] === "*") {
      const end = s.indexOf("*/", i + 2);
      i = end < 0 ? s.length : end + 2;
      continue;
    }
    const word = wordAt(s, i);
    if (word) {
      out.push(word);
      i += word.value.length;
      continue;
    }
    if (c.charCodeAt(0) > 32 && c !== "\u00a0") out.push({ kind: "op", value: c });
    i++;
  }
  return out;
}

// Sticky: matched where the reader stands, without copying the rest of a megabyte of script.
const IDENTIFIER = /[A-Za-z_$][\w$]*/y;
const NUMBER = /[0-9][\w.]*/y;

/** An identifier or a number (one token, so that a `/` after it reads as a division) at `i`. */
function wordAt(s: string, i: number): Token | null {
  IDENTIFIER.lastIndex = i;
  const id = IDENTIFIER.exec(s);
  if (id) return { kind: "id", value: id[0] };
  NUMBER.lastIndex = i;
  const number = NUMBER.exec(s);
  return number ? { kind: "op", value: number[0] } : null;
}

const REVERSE = ["split", "(", "str", ")", ".", "reverse", "(", ")", ".", "join", "(", "str", ")"];

/** A `"…".split("").reverse().join("")` at `i` (the literal's token): its reversed value, or null. */
function reversedAt(t: Token[], i: number): { value: string; end: number } | null {
  if (t[i + 1]?.value !== ".") return null;
  for (let k = 0; k < REVERSE.length; k++) {
    const tok = t[i + 2 + k];
    const want = REVERSE[k];
    if (!tok) return null;
    if (want === "str" ? tok.kind !== "str" || tok.value !== "" : tok.value !== want) return null;
  }
  return { value: [...(t[i]?.value ?? "")].reverse().join(""), end: i + 2 + REVERSE.length };
}

/** A string a script's literals spell; `assembled` when joined or reversed (not a literal as written). */
export interface ScriptString {
  value: string;
  assembled: boolean;
}

/**
 * The strings an inline script's literals spell: every join of literals and bound variables (the
 * longest at each place), reversed literals, and every literal on its own.
 */
export function scriptStrings(script: string, max = MAX_SCRIPT): ScriptString[] {
  const t = tokenize(script, max);
  const bound = new Map<string, { value: string; assembled: boolean }>();
  const out: ScriptString[] = [];
  /** A join starting at token i: its value and where it ends (null when the term is not a known string). */
  const term = (i: number): { value: string; end: number; assembled: boolean } | null => {
    const tok = t[i];
    if (!tok) return null;
    if (tok.kind === "str") {
      const reversed = reversedAt(t, i);
      return reversed ? { ...reversed, assembled: true } : { value: tok.value, end: i + 1, assembled: false };
    }
    if (tok.kind === "id" && bound.has(tok.value) && t[i + 1]?.value !== "(" && t[i + 1]?.value !== ".") {
      const b = bound.get(tok.value) ?? { value: "", assembled: false };
      return { value: b.value, end: i + 1, assembled: b.assembled };
    }
    return null;
  };
  const join = (i: number): { value: string; end: number; assembled: boolean } | null => {
    const first = term(i);
    if (!first) return null;
    let { value, end, assembled } = first;
    while (t[end]?.value === "+") {
      const next = term(end + 1);
      if (!next) break;
      value += next.value;
      end = next.end;
      assembled = true;
    }
    return { value, end, assembled };
  };
  const ends = (tok: Token | undefined) =>
    tok === undefined || tok.kind === "id" || tok.value === ";" || tok.value === "," || tok.value === "}";
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    if (!tok) break;
    // `var x = <join>`, `let x = …`, `x = …` and `, y = …` in a declaration list.
    if (tok.kind === "id" && t[i + 1]?.value === "=" && t[i + 2]?.value !== "=") {
      const j = join(i + 2);
      if (j && ends(t[j.end])) {
        bound.set(tok.value, { value: j.value, assembled: j.assembled });
        out.push({ value: j.value, assembled: j.assembled });
        i = j.end - 1;
        continue;
      }
    }
    const previous = t[i - 1]?.value;
    // Only a join's start: not the middle of one already read.
    if (previous === "+") continue;
    const j = join(i);
    if (!j) continue;
    if (j.assembled || tok.kind === "str") out.push({ value: j.value, assembled: j.assembled });
    i = j.end - 1;
  }
  return out.filter((s) => s.value.length > 2);
}

/** Same-site JSON endpoints a script fetches (REST routes, WordPress JSON, framework data routes). */
const DATA_ROUTE =
  /^(?:https?:\/\/[^/\s"']+)?\/(?:[\w.-]+\/)*?(?:api|wp-json|rest|_next\/data|graphql|data|content|cms)(?:\/[^\s"'<>]*)?$|^(?:https?:\/\/[^/\s"']+)?\/[^\s"'<>]*(?:\.json|__data\.json)(?:\?[^\s"'<>]*)?$/i;
const FETCHES = /\bfetch\s*\(|\baxios\b|\$\.(?:getJSON|ajax|get)\s*\(|XMLHttpRequest|\buseFetch\s*\(|\$fetch\s*\(/;

/** The data URLs an inline script fetches (only scripts that fetch; relative to the page). */
export function fetchedDataUrls(script: string): string[] {
  if (!FETCHES.test(script)) return [];
  const routes = new Set(
    scriptStrings(script, MAX_FETCHING_SCRIPT).flatMap((s) =>
      DATA_ROUTE.test(s.value.trim()) ? [s.value.trim()] : [],
    ),
  );
  // A base the endpoints are joined to (`var API = "/api/v1"`) is no endpoint of its own.
  return [...routes].filter((r) => ![...routes].some((other) => other.startsWith(`${r.replace(/\/$/, "")}/`)));
}

/**
 * A split bundle's runtime assembling a chunk's URL from its number (webpack's `o.u`):
 * `"static/js/"+e+"."+{12:"a1b2c3d4",57:"9f8e7d6c"}[e]+".chunk.js"`.
 */
const CHUNK_URL =
  /(["'])([\w./-]*)\1\s*\+\s*([A-Za-z_$][\w$]*)\s*\+\s*(["'])([\w./-]*)\4\s*\+\s*\{((?:\s*\d+\s*:\s*["'][\w-]+["']\s*,?){1,500})\}\s*\[\s*\3\s*\]\s*\+\s*(["'])([\w./-]*)\7/;
/** A router's route and the chunk it loads (`{path:"/team",name:"team",load:function(){return o.e(12)…}`). */
const ROUTE_CHUNK = /\bpath\s*:\s*(["'])(\/[^"'\s]{0,200})\1((?:(?!\bpath\s*:)[^;]){0,400}?)\.e\(\s*(\d+)\s*\)/g;
/** The runtime's public path (`o.p="/"`): where chunk URLs start. */
const PUBLIC_PATH = /\.p\s*=\s*(["'])(\/[\w./-]*|https?:\/\/[^"'\s]+)\1/;

/**
 * The chunks a split bundle's router loads for its routes, each with its route's path and name: the chunk's
 * URL assembled as the runtime would (public path, prefix, number, hash from the map, suffix). Only
 * chunks a route names: the route's words tell which one holds a page's people.
 */
export function lazyChunks(script: string): { url: string; route: string }[] {
  const text = script.length > MAX_FETCHING_SCRIPT ? script.slice(0, MAX_FETCHING_SCRIPT) : script;
  if (!text.includes("}[") || !text.includes(".e(")) return [];
  const runtime = CHUNK_URL.exec(text);
  if (!runtime) return [];
  const [, , prefix = "", , , mid = "", map = "", , suffix = ""] = runtime;
  const hashes = new Map([...map.matchAll(/(\d+)\s*:\s*["']([\w-]+)["']/g)].map((m) => [m[1] ?? "", m[2] ?? ""]));
  const base = PUBLIC_PATH.exec(text)?.[2] ?? "/";
  const out: { url: string; route: string }[] = [];
  for (const m of text.matchAll(ROUTE_CHUNK)) {
    const [, , path = "", between = "", id = ""] = m;
    const hash = hashes.get(id);
    // The route's name, when the router gives one (`name:"team"`), says what its page is as its path does.
    const name = /\bname\s*:\s*["']([\w -]{1,60})["']/.exec(between)?.[1];
    const route = name ? `${path} ${name}` : path;
    if (hash !== undefined)
      out.push({ url: `${base.replace(/\/?$/, "/")}${prefix}${id}${mid}${hash}${suffix}`, route });
  }
  return out;
}

/** Where a script sends the page (`location.replace("/x")`, `location.href = "/x"`): the literal target. */
export function scriptRedirect(script: string): string | null {
  const m =
    /\blocation(?:\.href)?\s*=\s*(["'])([^"'\s]+)\1|\blocation\.(?:replace|assign)\s*\(\s*(["'])([^"'\s]+)\3\s*\)/.exec(
      script,
    );
  return m ? (m[2] ?? m[4] ?? null) : null;
}

/**
 * The text a script assembles for the reader (joins and reversed literals only: a literal as written
 * is the script's own business), tags dropped and mailto: targets kept.
 */
export function assembledText(script: string): string {
  const parts: string[] = [];
  for (const s of scriptStrings(script)) {
    if (!s.assembled || !/@|&#0*64;/.test(s.value)) continue;
    const mailto = [...s.value.matchAll(/mailto:([^"'?\s>]+)/gi)].map((m) => m[1] ?? "");
    parts.push(...mailto, s.value.replace(/<[^>]*>/g, " "));
  }
  return [...new Set(parts)].join(" ").replace(/\s+/g, " ").trim();
}
