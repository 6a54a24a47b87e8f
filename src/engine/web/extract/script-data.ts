/**
 * The data an app-rendered page ships in its scripts: JSON islands (`<script type="application/json">`,
 * Next.js `__NEXT_DATA__`), Nuxt 3's devalue payload (`__NUXT_DATA__`), state assigned to `window`
 * (Nuxt 2's `window.__NUXT__=(function(a,b,…){return {…}}(…))`, `__INITIAL_STATE__`) and the React
 * Server Components stream (`self.__next_f.push`). Nothing is executed: a small reader of JavaScript
 * literals resolves a payload function's parameters from its arguments, and anything it does not
 * know makes it give up on that script.
 */

/** A `<script>` element's type, id and text, as the page extraction collects them. */
export interface ScriptBlock {
  type: string;
  id: string;
  text: string;
}

/** Scripts worth reading as data: JSON of any kind, and inline scripts that assign state to a global. */
export function isDataScript(type: string): "json" | "js" | null {
  const t = type.trim().toLowerCase();
  if (/json|astro-island/.test(t)) return "json";
  if (t === "" || /javascript|ecmascript|^module$/.test(t)) return "js";
  return null;
}

/** Inline scripts that carry state (a cheap test before any parsing). */
const STATE_SCRIPT = /\b(?:window|self|globalThis)\s*\.\s*[A-Za-z_$][\w$]*\s*=|__next_f\.push\(/;

/** The JSON-LD blocks among the collected scripts. */
export function jsonLdTexts(blocks: readonly ScriptBlock[]): string[] {
  return blocks.filter((b) => /ld\+json/i.test(b.type)).map((b) => b.text);
}

/** The values embedded in the page's non-JSON-LD data scripts (bad or unknown payloads are skipped). */
export function appDataOf(blocks: readonly ScriptBlock[]): unknown[] {
  const out: unknown[] = [];
  for (const b of blocks) {
    if (/ld\+json/i.test(b.type)) continue;
    try {
      if (isDataScript(b.type) === "json") {
        const value = JSON.parse(b.text.trim().replace(/^<!--|-->$/g, ""));
        out.push(b.id === "__NUXT_DATA__" ? unflatten(value) : b.type === "astro-island" ? astroProps(value) : value);
      } else if (STATE_SCRIPT.test(b.text)) {
        out.push(...stateAssignments(b.text));
      }
    } catch {
      /* not data this reader understands */
    }
  }
  return out;
}

/** Values assigned to globals (`window.__NUXT__=…`) and pushed to the RSC stream, in script order. */
function stateAssignments(script: string): unknown[] {
  const out: unknown[] = [];
  const assign = /\b(?:window|self|globalThis)\s*\.\s*([A-Za-z_$][\w$]*)\s*=(?!=)|__next_f\.push\(/g;
  for (const m of script.matchAll(assign)) {
    const reader = new LiteralReader(script, m.index + m[0].length, new Map(), 0);
    try {
      const value = reader.expression();
      if (m[1] === undefined) out.push(...rscValues(value));
      else out.push(value);
    } catch {
      /* this assignment is code, not data */
    }
  }
  return out;
}

/**
 * An RSC chunk (`[1,"5:{\"name\":…}\n6:[…]"]`): its rows are `id:JSON` (or text); the JSON rows are
 * the data, the text rows are kept as text.
 */
function rscValues(pushed: unknown): unknown[] {
  if (!Array.isArray(pushed) || typeof pushed[1] !== "string") return [];
  const out: unknown[] = [];
  for (const row of pushed[1].split("\n")) {
    const m = /^[0-9a-z]+:(?:[A-Z]?)(.*)$/is.exec(row);
    const body = (m ? m[1] : row).trim();
    if (!body) continue;
    try {
      out.push(/^[[{"]/.test(body) ? JSON.parse(body) : body);
    } catch {
      out.push(body);
    }
  }
  return out;
}

/**
 * devalue's flattened form (Nuxt 3 `__NUXT_DATA__`): an array whose first entry is the root and whose
 * objects and arrays hold indexes into it; a string at the head of an array is a type tag
 * (`["Reactive", 3]`, `["Date", "…"]`). Negative indexes are undefined, holes, NaN and infinities.
 */
export function unflatten(values: unknown): unknown {
  if (!Array.isArray(values) || values.length === 0) return values;
  const seen = new Map<number, unknown>();
  const at = (index: unknown, depth: number): unknown => {
    if (typeof index !== "number" || index < 0 || index >= values.length || depth > 64) return null;
    if (seen.has(index)) return seen.get(index);
    const v = values[index];
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) {
      if (typeof v[0] === "string") {
        const tag = v[0];
        // Reactive/Ref wrappers hold their value; Set and Map hold entries; other tags are scalars we do not need.
        if (/ref$|reactive$/i.test(tag)) return at(v[1], depth + 1);
        if (tag === "Set") return v.slice(1).map((i) => at(i, depth + 1));
        if (tag === "Map")
          return Object.fromEntries(
            v.slice(1).flatMap((_, i, a) => (i % 2 ? [] : [[String(at(a[i], depth + 1)), at(a[i + 1], depth + 1)]])),
          );
        return null;
      }
      const arr: unknown[] = [];
      seen.set(index, arr);
      for (const i of v) arr.push(at(i, depth + 1));
      return arr;
    }
    const obj: Record<string, unknown> = {};
    seen.set(index, obj);
    for (const [k, i] of Object.entries(v)) obj[k] = at(i, depth + 1);
    return obj;
  };
  return at(0, 0);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const mapValues = (o: Record<string, unknown>, f: (v: unknown) => unknown) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

/**
 * Astro's island props: every value a `[type, value]` pair, 0 a plain value (objects holding pairs
 * again), 1 an array of pairs; the other types (dates, maps, regular expressions, ...) are not needed.
 */
export function astroProps(value: unknown): unknown {
  const revive = (v: unknown): unknown => {
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "number") return null;
    const [type, x] = v as [number, unknown];
    if (type === 0) return isRecord(x) ? mapValues(x, revive) : x;
    if (type === 1) return Array.isArray(x) ? x.map(revive) : [];
    return null;
  };
  return isRecord(value) ? mapValues(value, revive) : null;
}

/** Raised when the text is not a literal this reader understands. */
class NotALiteral extends Error {}

/** A function written in a payload, not yet called. */
class PayloadFunction {
  constructor(
    readonly params: readonly string[],
    readonly bodyStart: number,
    readonly bodyEnd: number,
  ) {}
}

const IDENT = /[A-Za-z_$][\w$]*/y;
const NUMBER = /[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)/y;
const MAX_DEPTH = 64;

/**
 * Reads one JavaScript expression made of literals: objects (quoted or bare keys), arrays, strings,
 * numbers, `true`/`false`/`null`/`undefined`/`void 0`/`!0`/`!1`, names bound in `scope`,
 * `JSON.parse("…")`, constructors (`new Date(…)`, `Array(3)`, `Object.create(null)`: read as null
 * or empty), and a function called at once whose parameters its arguments fill (Nuxt 2).
 */
class LiteralReader {
  constructor(
    private readonly src: string,
    public pos: number,
    private readonly scope: Map<string, unknown>,
    private readonly depth: number,
  ) {}

  private fail(): never {
    throw new NotALiteral(`not a literal at ${this.pos}`);
  }

  private space() {
    for (;;) {
      const c = this.src.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || c === 0xfeff) this.pos++;
      else if (this.src.startsWith("//", this.pos)) {
        const end = this.src.indexOf("\n", this.pos);
        this.pos = end < 0 ? this.src.length : end;
      } else if (this.src.startsWith("/*", this.pos)) {
        const end = this.src.indexOf("*/", this.pos + 2);
        this.pos = end < 0 ? this.src.length : end + 2;
      } else return;
    }
  }

  private peek(): string {
    this.space();
    return this.src[this.pos] ?? "";
  }

  private eat(text: string): boolean {
    this.space();
    if (!this.src.startsWith(text, this.pos)) return false;
    this.pos += text.length;
    return true;
  }

  private expect(text: string) {
    if (!this.eat(text)) this.fail();
  }

  private ident(): string | null {
    this.space();
    IDENT.lastIndex = this.pos;
    const m = IDENT.exec(this.src);
    if (!m) return null;
    this.pos += m[0].length;
    return m[0];
  }

  private nested(pos = this.pos, scope = this.scope): LiteralReader {
    if (this.depth >= MAX_DEPTH) this.fail();
    return new LiteralReader(this.src, pos, scope, this.depth + 1);
  }

  private sub<T>(read: (r: LiteralReader) => T): T {
    const r = this.nested();
    const value = read(r);
    this.pos = r.pos;
    return value;
  }

  expression(): unknown {
    let value = this.primary();
    // A payload function is called right after it is written, or after the parenthesis around it.
    while (value instanceof PayloadFunction && this.peek() === "(") value = this.call(value);
    if (value instanceof PayloadFunction) this.fail();
    return value;
  }

  private primary(): unknown {
    const c = this.peek();
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"' || c === "'" || c === "`") return this.string();
    if (c === "(") {
      this.pos++;
      const value = this.sub((r) => r.maybeFunction());
      this.expect(")");
      return value;
    }
    if (c === "!") {
      this.pos++;
      return !this.sub((r) => r.expression());
    }
    if (c === "-" || c === "+" || c === "." || /\d/.test(c)) {
      NUMBER.lastIndex = this.pos;
      const m = NUMBER.exec(this.src);
      if (!m) this.fail();
      this.pos += m[0].length;
      return Number(m[0]);
    }
    const word = this.ident();
    if (word === null) this.fail();
    switch (word) {
      case "true":
        return true;
      case "false":
        return false;
      case "null":
        return null;
      case "undefined":
      case "NaN":
      case "Infinity":
        return word === "undefined" ? undefined : Number(word);
      case "void":
        this.sub((r) => r.expression());
        return undefined;
      case "function":
        return this.payloadFunction();
      case "new":
        this.ident();
        this.skipCall();
        return null;
      case "JSON":
        if (this.eat(".") && this.ident() === "parse" && this.eat("(")) {
          const text = this.sub((r) => r.expression());
          this.expect(")");
          if (typeof text !== "string") this.fail();
          return JSON.parse(text);
        }
        return this.fail();
      case "Array":
      case "Object":
        if (this.eat(".")) this.ident();
        this.skipCall();
        return word === "Array" ? [] : {};
    }
    if (!this.scope.has(word)) this.fail();
    return this.scope.get(word);
  }

  /** Inside parentheses a function may stand alone, to be called after them: `(function(){…})(…)`. */
  private maybeFunction(): unknown {
    let value = this.primary();
    while (value instanceof PayloadFunction && this.peek() === "(") value = this.call(value);
    return value;
  }

  /** Skips `(…)` after a constructor or builtin, reading nothing from it. */
  private skipCall() {
    if (this.peek() !== "(") return;
    this.pos = this.matching(this.pos, "(", ")") + 1;
  }

  private object(): Record<string, unknown> {
    this.expect("{");
    const out: Record<string, unknown> = {};
    while (!this.eat("}")) {
      const c = this.peek();
      let key: string | null;
      if (c === '"' || c === "'") key = this.string();
      else if (/[\d.]/.test(c)) key = String(this.expression());
      else key = this.ident();
      if (key === null) this.fail();
      if (this.eat(":")) out[key] = this.sub((r) => r.expression());
      else if (this.scope.has(key))
        out[key] = this.scope.get(key); // shorthand {a}
      else this.fail();
      if (!this.eat(",")) {
        this.expect("}");
        break;
      }
    }
    return out;
  }

  private array(): unknown[] {
    this.expect("[");
    const out: unknown[] = [];
    while (!this.eat("]")) {
      if (this.peek() === ",") {
        this.pos++;
        out.push(undefined);
        continue;
      }
      out.push(this.sub((r) => r.expression()));
      if (!this.eat(",")) {
        this.expect("]");
        break;
      }
    }
    return out;
  }

  private string(): string {
    this.space();
    const quote = this.src[this.pos];
    let out = "";
    let i = this.pos + 1;
    for (;;) {
      if (i >= this.src.length) this.fail();
      const c = this.src[i];
      if (c === quote) break;
      if (quote === "`" && c === "$" && this.src[i + 1] === "{") this.fail();
      if (c !== "\\") {
        out += c;
        i++;
        continue;
      }
      const e = this.src[i + 1] ?? "";
      i += 2;
      if (e === "u") {
        const braced = this.src[i] === "{";
        const hex = braced ? this.src.slice(i + 1, this.src.indexOf("}", i)) : this.src.slice(i, i + 4);
        const code = parseInt(hex, 16);
        if (!/^[0-9a-f]{1,6}$/i.test(hex) || !Number.isFinite(code)) this.fail();
        out += String.fromCodePoint(code);
        i += braced ? hex.length + 2 : 4;
      } else if (e === "x") {
        out += String.fromCharCode(parseInt(this.src.slice(i, i + 2), 16));
        i += 2;
      } else if (e === "\n" || e === "\r") {
        /* line continuation */
      } else
        out += ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" } as Record<string, string>)[e] ?? e;
    }
    this.pos = i + 1;
    return out;
  }

  /** Index of the bracket that closes the one at `open`, skipping strings and comments. */
  private matching(open: number, left: string, right: string): number {
    let depth = 0;
    for (let i = open; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === '"' || c === "'" || c === "`") {
        i = this.stringEnd(i);
        continue;
      }
      if (c === "/" && (this.src[i + 1] === "/" || this.src[i + 1] === "*")) {
        const end = this.src[i + 1] === "/" ? this.src.indexOf("\n", i) : this.src.indexOf("*/", i + 2) + 1;
        if (end <= 0) this.fail();
        i = end;
        continue;
      }
      if (c === left) depth++;
      else if (c === right && --depth === 0) return i;
    }
    return this.fail();
  }

  private stringEnd(start: number): number {
    const quote = this.src[start];
    for (let i = start + 1; i < this.src.length; i++) {
      if (this.src[i] === "\\") i++;
      else if (this.src[i] === quote) return i;
    }
    return this.fail();
  }

  /** `function(a,b){…}`: its parameters and where its body is, to be called with arguments next. */
  private payloadFunction(): PayloadFunction {
    this.ident(); // an optional function name
    this.expect("(");
    const params: string[] = [];
    while (!this.eat(")")) {
      const p = this.ident();
      if (p === null) this.fail();
      params.push(p);
      if (!this.eat(",")) {
        this.expect(")");
        break;
      }
    }
    if (this.peek() !== "{") this.fail();
    const bodyStart = this.pos;
    const bodyEnd = this.matching(bodyStart, "{", "}");
    this.pos = bodyEnd + 1;
    return new PayloadFunction(params, bodyStart + 1, bodyEnd);
  }

  /**
   * The call of a payload function: the arguments are read first, then the returned expression with
   * the parameters bound to them. Statements before the return (devalue's `a.self=a;`) are applied
   * when they are plain assignments, skipped otherwise.
   */
  private call(fn: PayloadFunction): unknown {
    this.expect("(");
    const args: unknown[] = [];
    while (!this.eat(")")) {
      args.push(this.sub((r) => r.expression()));
      if (!this.eat(",")) {
        this.expect(")");
        break;
      }
    }
    const scope = new Map(this.scope);
    for (const [i, p] of fn.params.entries()) scope.set(p, args[i]);
    return this.body(fn.bodyStart, fn.bodyEnd, scope);
  }

  private body(start: number, end: number, scope: Map<string, unknown>): unknown {
    const r = this.nested(start, scope);
    while (r.pos < end) {
      r.space();
      if (r.src.startsWith("return", r.pos) && !/[\w$]/.test(r.src[r.pos + 6] ?? "")) {
        r.pos += 6;
        return r.expression();
      }
      const statementEnd = r.statementEnd(end);
      r.assignment(statementEnd);
      r.pos = statementEnd + 1;
    }
    return undefined;
  }

  /** The `;` (or `end`) that ends the statement at the reader's position. */
  private statementEnd(end: number): number {
    for (let i = this.pos; i < end; i++) {
      const c = this.src[i];
      if (c === '"' || c === "'" || c === "`") i = this.stringEnd(i);
      else if (c === "{" || c === "[" || c === "(") i = this.matching(i, c, c === "{" ? "}" : c === "[" ? "]" : ")");
      else if (c === ";") return i;
    }
    return end;
  }

  /** `a.b=c` or `a[0]=c` within a payload function: applied to the bound value, when it is one. */
  private assignment(end: number) {
    try {
      const name = this.ident();
      if (name === null || !this.scope.has(name)) return;
      const path: string[] = [];
      for (;;) {
        if (this.eat(".")) {
          const key = this.ident();
          if (key === null) return;
          path.push(key);
        } else if (this.eat("[")) {
          path.push(String(this.sub((r) => r.expression())));
          this.expect("]");
        } else break;
      }
      const key = path.pop();
      let target = this.scope.get(name);
      for (const step of path)
        target = target !== null && typeof target === "object" ? (target as Record<string, unknown>)[step] : undefined;
      if (key === undefined || !this.eat("=") || target === null || typeof target !== "object") return;
      const value = this.sub((r) => r.expression());
      if (this.pos <= end) (target as Record<string, unknown>)[key] = value;
    } catch {
      /* a statement that is not a plain assignment */
    }
  }
}
