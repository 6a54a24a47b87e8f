import type { PersonName } from "../../people/names.js";
import { isNativePersonName, isNativeScript } from "../../people/native-names.js";
import { readLine } from "./people.js";

/**
 * People in structured data, whatever carried it: JSON-LD, microdata items (read into the same
 * shape), and the JSON an app-rendered page embeds (Next.js, Nuxt, JSON islands). One walker over
 * the values finds person-like objects by their keys — a schema.org `Person`, or an untyped object
 * with given and family names, or a person-like name beside an address or a job title — and keeps
 * every string it passes as text, in order, for the address scan.
 */

export interface DataPerson {
  /** Addresses the object gives (mailto: stripped, not yet filtered by domain). */
  emails: string[];
  /** Latin-script parts, when the data names them. */
  given: string | null;
  family: string | null;
  middle: string | null;
  /** The displayed full name in Latin script. */
  name: string | null;
  /** The name (or its family and given parts, family first) in the person's own script: 田中 太郎. */
  native: string | null;
  /** Which part is which, when a name value says so itself ("田中(Tanaka) 太郎(Taro)", "小林 宏 (Hiroshi Kobayashi)"). */
  stated: PersonName | null;
  /** The Latin name renders one in another script beside it: written for Western readers, given name first. */
  transcribed: boolean;
  position: string | null;
}

export interface DataReading {
  people: DataPerson[];
  /** Every string value met, in document order (rich text among them), for the line scan. */
  texts: string[];
}

const MAX_NODES = 20_000;
const MAX_TEXTS = 5_000;
const MAX_DEPTH = 40;

/** Object keys folded for comparison: "first_name", "firstName" and "First-Name" are one key. */
const fold = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, "");

// Keys by role, folded. A suffix naming a language or script ("givenNameEn", "name_ja", "nameKana")
// is allowed: which script a value is in is read from the value itself.
const LANG_SUFFIX =
  "(?:en|ja|jp|zh|cn|tw|ko|kr|native|local|latin|roman|romaji|romanized|romanised|kana|kanji|reading|yomi|furigana|english|ascii|alt|original)?";
const GIVEN_KEY = new RegExp(`^(?:givenname|firstname|first|given|forename|vorname|prenom|fname|mei)${LANG_SUFFIX}$`);
const FAMILY_KEY = new RegExp(`^(?:familyname|lastname|last|family|surname|nachname|lname|sei|sn)${LANG_SUFFIX}$`);
const MIDDLE_KEY = /^(?:additionalname|middlename|middle|middleinitial)$/;
const NAME_KEY = new RegExp(
  `^(?:(?:full|display|person|english|latin|roman|romanized|native|local|kana|kanji)?name|fn|romaji|kana|furigana|yomigana|yomi|reading)${LANG_SUFFIX}$`,
);
const EMAIL_KEY =
  /^(?:e?mail|emailaddress|mailaddress|emails?|workemail|businessemail|contactemail|primaryemail|emailadresse|courriel|correo|mailto)$/;
const POSITION_KEY =
  /^(?:jobtitle|title|position|role|function|designation|post|jobposition|job|occupation|funktion|poste|cargo|ruolo|yakushoku|katagaki)$/;
/** Keys whose object value describes the object that holds them (its name parts, its contact details). */
const DETAIL_KEY =
  /^(?:name|names|contact|contacts|contactinfo|details|profile|info|person|links|i18n|translations|localized)$/;

const ADDRESS = /^(?:mailto:)?\s*[^\s@<>()[\],;:"']+@[a-z0-9-]+(?:\.[a-z0-9-]+)+\s*$/i;

type Obj = Record<string, unknown>;

function typesOf(o: Obj): string[] {
  const t = o["@type"] ?? o.type;
  return (Array.isArray(t) ? t : [t])
    .filter((x): x is string => typeof x === "string")
    .map((x) => x.replace(/^.*[/#]/, ""));
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Strings of a value: itself, the entries of an array, or an object's `@value`/`value`/`address`/`href`. */
function stringsOf(v: unknown): string[] {
  if (typeof v === "string") return v.trim() ? [v.trim()] : [];
  if (Array.isArray(v)) return v.flatMap(stringsOf);
  if (isObject(v)) return stringsOf(v["@value"] ?? v.value ?? v.address ?? v.href ?? v.url ?? v.email ?? null);
  return [];
}

interface Keyed {
  given: string[];
  family: string[];
  middle: string[];
  names: string[];
  emails: string[];
  positions: string[];
}

/** The object's own keys sorted by role, with the details objects under it read as its own. */
function keyed(
  o: Obj,
  into: Keyed = { given: [], family: [], middle: [], names: [], emails: [], positions: [] },
  depth = 0,
): Keyed {
  for (const [rawKey, value] of Object.entries(o)) {
    const key = fold(rawKey);
    if (key === "type" || key === "id" || key === "context") continue;
    if (isObject(value) && depth < 2 && DETAIL_KEY.test(key) && !isPersonTyped(value)) {
      keyed(value, into, depth + 1);
      // A name object ({first, last} or {ja, en}) may also hold plain strings under language keys.
      if (key === "name" || key === "names")
        for (const v of Object.values(value)) if (typeof v === "string") into.names.push(v.trim());
      continue;
    }
    const values = stringsOf(value);
    if (values.length === 0) continue;
    if (EMAIL_KEY.test(key)) into.emails.push(...values.map(bareAddress).filter((s): s is string => s !== null));
    else if (MIDDLE_KEY.test(key)) into.middle.push(...values);
    else if (FAMILY_KEY.test(key)) into.family.push(...values);
    else if (GIVEN_KEY.test(key)) into.given.push(...values);
    else if (NAME_KEY.test(key)) into.names.push(...values);
    else if (POSITION_KEY.test(key)) into.positions.push(...values);
    else
      for (const s of values)
        if (/^mailto:/i.test(s)) into.emails.push(...[bareAddress(s)].filter((x): x is string => x !== null));
  }
  return into;
}

function bareAddress(s: string): string | null {
  const t = s.trim();
  if (!ADDRESS.test(t)) return null;
  return t
    .replace(/^mailto:\s*/i, "")
    .replace(/\?.*$/s, "")
    .trim();
}

const isPersonTyped = (v: Obj) => typesOf(v).includes("Person");
const latin = (values: readonly string[]) => values.find((v) => !isNativeScript(v) && /\p{L}/u.test(v)) ?? null;
const native = (values: readonly string[]) => values.find((v) => isNativeScript(v)) ?? null;

/** The person an object describes, or null when its keys do not make it one. */
function personOf(o: Obj, typed: boolean): DataPerson | null {
  const types = typesOf(o);
  // schema.org says what the object is; a typed object that is not a Person is an organisation, a place, ...
  if (typed && types.length > 0 && !types.includes("Person")) return null;
  if (!typed && types.length > 0 && !types.some((t) => /person|employee|member|staff|author|people|team/i.test(t)))
    return null;
  const k = keyed(o);
  const given = latin(k.given);
  const family = latin(k.family);
  const nativeFamily = native(k.family);
  const nativeGiven = native(k.given);
  // Name values are read as a line of page text is: "小林 宏 (Hiroshi Kobayashi)" gives both scripts.
  const reads = k.names.filter((n) => n.length <= 120).map((n) => readLine(n));
  const fullLatin = reads.find((r) => r.name)?.name ?? null;
  const stated = reads.find((r) => r.stated)?.stated ?? null;
  const fullNative =
    reads.find((r) => r.native)?.native ??
    k.names.find((n) => isNativePersonName(n)) ??
    (nativeFamily && nativeGiven ? `${nativeFamily} ${nativeGiven}` : nativeFamily);
  const emails = [...new Set(k.emails)];
  const hasParts = !!(given && family);
  const hasName = hasParts || !!fullLatin || !!fullNative;
  if (!hasName) return null;
  // An untyped object is a person when its name reads like one and something else says so (an
  // address, a job title, or the name given in parts): {name: "Acme GmbH", email: "info@…"} is not.
  if (!types.includes("Person") && !hasParts && emails.length === 0 && k.positions.length === 0) return null;
  const middle = k.middle.find((m) => !isNativeScript(m)) ?? null;
  return {
    emails,
    given: hasParts ? given : null,
    family: hasParts ? family : null,
    middle: hasParts ? middle : null,
    name: fullLatin ?? (given && family ? [given, middle, family].filter(Boolean).join(" ") : null),
    native: fullNative,
    stated,
    transcribed: reads.some((r) => r.name && r.transcribed),
    position: k.positions.find((p) => p.length <= 80 && !ADDRESS.test(p)) ?? null,
  };
}

/**
 * Every person-like object under the roots, and the strings met on the way. `typed` marks JSON-LD
 * and microdata, whose `@type` says outright what each object is.
 */
export function readStructured(roots: readonly unknown[], typed: boolean): DataReading {
  const people: DataPerson[] = [];
  const texts: string[] = [];
  let nodes = 0;
  const walk = (value: unknown, depth: number) => {
    if (nodes++ > MAX_NODES || depth > MAX_DEPTH) return;
    if (typeof value === "string") {
      if (texts.length < MAX_TEXTS && /\p{L}/u.test(value)) texts.push(value);
      return;
    }
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1);
      return;
    }
    const o = value as Obj;
    const person = personOf(o, typed);
    if (person) people.push(person);
    // "@type", "@context" and "@id" name the vocabulary, not anything the page says.
    for (const [k, v] of Object.entries(o)) if (!k.startsWith("@")) walk(v, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  return { people, texts };
}

/**
 * The lines of a text value: rich text (HTML) breaks at block tags and `<br>`, plain text at line
 * breaks; tags are dropped, entities are left for the line scan to decode.
 */
export function linesOfText(text: string): string[] {
  if (!/[<\n]/.test(text)) return [text];
  return text
    .replace(
      /<(?:br|\/?(?:p|div|li|ul|ol|tr|td|th|h[1-6]|section|article|dd|dt|blockquote|address|table))\b[^>]*>/gi,
      "\n",
    )
    .replace(/<a\b[^>]*href\s*=\s*["']?mailto:([^"'\s>]+)[^>]*>/gi, " $1 ")
    .replace(/<[^>]*>/g, "")
    .split(/\n/)
    .map((l) => l.replace(/\s+/g, " ").trim())
    .filter(Boolean);
}
