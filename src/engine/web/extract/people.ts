import { readJointly } from "../../finder/joint-reading.js";
import { fullNameOf, looksLikePersonName, nameKey, type PersonName, QUOTED_NICKNAME } from "../../people/names.js";
import {
  alignRomanized,
  annotatedName,
  isNativePersonName,
  isNativeTitle,
  namesAnotherFamily,
  nativeNameThenTitle,
  writtenInParts,
} from "../../people/native-names.js";
import { departmentOf, isRoleOnly, seniorityOf } from "../../people/positions.js";
import { type NameEvidence, readingsOf } from "../../people/readings.js";
import { looksLikeScriptName } from "../../people/script-skeletons.js";

export interface FoundAddress {
  email: string;
  /**
   * What the page tells about the owner's name. Which word is the given name is decided when the
   * index is written, over all the domain's addresses (finder/joint-reading.ts).
   */
  evidence: NameEvidence | null;
  /** This page's own reading of that evidence, for page-level use (the index may read it otherwise). */
  name: PersonName | null;
  position: string | null;
  via: "mailto" | "text" | "cfemail" | "jsonld" | "microdata" | "data" | "vcard";
  /** The owner's name in its own script (CJK), when the page shows it: read with a rendering another page gives. */
  native?: string | null;
}

/** Evidence for a name written out on a page. */
export function shown(text: string, familyFirstPage = false): NameEvidence {
  return { kind: "shown", text, familyFirstPage };
}

const TITLE_WORDS =
  /(?<![\p{L}])(avocate?|avocat|notaire|juriste|comptable|architecte|ingenieure?|ingénieure?|directrice|directeur|gérante?|associée?|secrétaire|advocaat|notaris|adviseur|eigenaar|vennoot|secretaris|directeur|rechtsanwalt|rechtsanwältin|steuerberater(in)?|notar(in)?|abogad[oa]|asesor[a]?|director[a]?|gerente|socio|socia|secretari[oa]|avvocato|avvocata|ingegnere|commercialista|notaio|direttore|direttrice|advogad[oa]|contador[a]?|sócio|sócia|adwokat|radca|prawny|księgowa|księgowy|dyrektor|kierownik|prezes|avukat|müdür|müdürü|mühendis|muhasebeci|ügyvéd|mérnök|igazgató|könyvelő|ügyvezető|ceo|cto|cfo|coo|cmo|cio|ciso|founder|co-?founder|owner|president|vp|director|manager|head|lead|engineer|developer|designer|officer|partner|counsel|analyst|consultant|specialist|coordinator|assistant|associate|architect|scientist|recruiter|editor|writer|journalist|reporter|advisor|intern|representative|executive|administrator|geschäftsführer(in)?|leiter(in)?|referent(in)?|berater(in)?|vorstand|inhaber(in)?|ingenieur(in)?|projektleiter(in)?|prokurist(in)?|sachbearbeiter(in)?|assistent(in)?|diretor(a)?|engenheir[oa]|consultor(a)?|coordenador(a)?|assistente|analista|técnic[oa]|tecnic[oa]|presidente|administrador(a)?|contabilista|economista|arquitet[oa]|ingenier[oa]|coordinador(a)?|jefe|jefa|responsable|administrativ[oa]|arquitect[oa]|consultante?|chef|chargée?|assistante?|experte?|présidente?|analyste|consulente|responsabile|impiegat[oa]|amministratore|architetto|medewerker|projectleider|specjalista|inżynier|konsultant|doradca|asystent(ka)?|wiceprezes|uzman|danışman|genel|konsult|rådgivare|rådgiver|ingenjör|ingeniør|projektledare|prosjektleder|leder|ledare|sjef|daglig leder|vd|segretari[oa]|segreteria|commerciale|amministrazione|assistenz|technik|verwaltung|ventes|technique|administration|administración|ventas|ingeniería|gestor(a)?|comercial|engenharia|verkoop|financiën|techniek|administratie|specjalist(k)?a|sprzedaż|księgowość|technika|administracja|yönetici(si)?|asistan(ı)?|satış|finans|mühendislik|[iİ]dari|försäljning|ekonomi|teknik|teknikk|salg|økonomi|administrasjon|\p{L}*vezető|értékesítés|pénzügy|műszaki|adminisztráció|quản lý|kế toán|kinh doanh|tài chính|kỹ thuật|hành chính|отдел|бухгалтерия|администрация|технический|tanácsadó|vezető|директор|менеджер|инженер|бухгалтер|юрист|руководитель|специалист|консультант|giám đốc|trưởng phòng|kỹ sư|chuyên viên|nhân viên)(?![\p{L}])/iu;

/** Titles written as one compound word (German, Dutch, Nordic): "Accountmanager", "Projektleiterin", "Bedrijfsleider". */
const COMPOUND_TITLE =
  /^\p{Lu}\p{Ll}{2,}(manager|managerin|leiter|leiterin|leider|direktor|direktorin|directeur|adviseur|adviseuse|berater|beraterin|assistent|assistentin|ingenieur|ingenieurin|medewerker|medewerkster|referent|referentin|sachbearbeiter|sachbearbeiterin|chef|chefin|konsulent|konsult|koordinator|koordinatorin|leder|ledare|sjef|ansvarlig|ansvarig|rådgiver|rådgivare|sekretær|sekreterare|ingeniør|ingenjör|medarbeider)$/u;

export function looksLikePosition(text: string): boolean {
  const t = text.trim();
  if (t.length < 2 || t.length > 80 || /[@\d]/.test(t) || t.split(/\s+/).length > 9) return false;
  return (
    TITLE_WORDS.test(t) ||
    COMPOUND_TITLE.test(t) ||
    departmentOf(t) !== null ||
    seniorityOf(t) !== null ||
    isNativeTitle(t)
  );
}

/** Runs of capitalised Latin words inside text in another script ("田中 太郎 Taro Tanaka" → "Taro Tanaka"). */
const LATIN_NAME =
  /\p{Lu}[\p{Ll}'’.-]+(?:\s+(?:(?:van|von|de|der|den|da|di|du|del|della|la|le|ter|ten|dos|das|zu|ap|ab|mac|nic|ní|ó|ua)\s+)*\p{Lu}[\p{Ll}'’.-]+){1,3}/gu;

/**
 * A line's parts, with a name written family name first kept whole ("Sullivan, Katherine –
 * Consultant" → "Sullivan, Katherine", "Consultant"): its comma is not a separator.
 */
function segmentsOf(line: string): string[] {
  // A nickname in brackets inside a name ("Robert (Bob) Smith") is not a separator: quote it.
  return line
    .replace(/\((\p{Lu}[\p{L}'’.-]{1,20})\)(?=\s+\p{Lu})/gu, '"$1"')
    .split(NON_COMMA_SEPARATORS)
    .flatMap((part) => (familyCommaGiven(part) ? [part] : commaPieces(part)))
    .map((s) => s.trim())
    .filter(Boolean);
}

/** "Leclerc, François Louis, Segreteria": a "Family, Given" name at the head of a list that ends in a title. */
function commaPieces(part: string): string[] {
  const pieces = part.split(",");
  if (
    pieces.length >= 3 &&
    familyCommaGiven(`${pieces[0]},${pieces[1]}`) &&
    pieces.slice(2).every((p) => looksLikePosition(p))
  ) {
    return [`${pieces[0]},${pieces[1]}`, ...pieces.slice(2)];
  }
  return pieces;
}

const NON_COMMA_SEPARATORS = /\s*(?:\||–|—|\s-\s|:|\(|\)|·|•)\s*/;

/** "Family, Given" with both sides name-like and neither a position ("Doe, Jane" but not "Jane Doe, CTO"). */
function familyCommaGiven(text: string): boolean {
  const m = /^([^,]{2,40}),([^,]{2,40})$/.exec(text.replace(QUOTED_NICKNAME, " ").trim());
  if (!m) return false;
  const [, familyText, givenText] = m;
  const [family, given] = [familyText.trim(), givenText.trim()];
  if (looksLikePosition(family) || looksLikePosition(given) || given.split(/\s+/).length > 3) return false;
  return looksLikePersonName(
    `${given} ${family}`
      .split(/\s+/)
      .filter((t) => !/^(dr|prof|mr|mrs|ms)\.?$/i.test(t))
      .join(" "),
  );
}

/** A word in a script whose names are written given name first (Arabic, Hebrew, Thai, Cyrillic, Greek, Indic...). */
const GIVEN_FIRST_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Thai}\p{Script=Lao}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Georgian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Gujarati}\p{Script=Gurmukhi}]{2}/u;

export interface LineReading {
  name: string | null;
  position: string | null;
  /**
   * The Latin name is a rendering of a name in another script on the same line ("田中 太郎 Taro
   * Tanaka", "王伟 (David Wang)"): written for Western readers, given name first unless the native
   * name says otherwise, whatever the page's language.
   */
  transcribed: boolean;
  /** The name in its own script (CJK) that the line shows, with or without a Latin rendering. */
  native: string | null;
  /** Which part is which, told by the native name beside the rendering (its family name comes first). */
  stated: PersonName | null;
}

/**
 * A name and position read from one line ("Jane Doe, CTO" / "Jane Doe" / "Chief Technology Officer").
 * `localPart` (the address the name is looked up for) picks among spellings a native name allows.
 */
export function readLine(line: string, localPart = ""): LineReading {
  // Ruby as it renders without ruby support: each reading after its part, family name first.
  const annotated = annotatedName(line, localPart);
  if (annotated) {
    const rest = readLine(annotated.rest, localPart);
    return {
      name: fullNameOf(annotated.name),
      position: rest.position,
      transcribed: true,
      native: null,
      stated: annotated.name,
    };
  }
  const segments = segmentsOf(line);
  let name: string | null = null;
  let position: string | null = null;
  let transcribed = false;
  let native: string | null = null;
  let single: string | null = null;
  let scriptName: string | null = null;
  for (const s of segments) {
    if (!scriptName && looksLikeScriptName(s)) scriptName = s;
    // "Leiterin Buchhaltung" is capitalised like a name; a title word makes it a position.
    const isPosition = looksLikePosition(s);
    const glued: { name: string; position: string } | null = isPosition && !name ? nameThenPosition(s) : null;
    const nativeGlued: { name: string; title: string } | null = native ? null : nativeNameThenTitle(s);
    if (nativeGlued) {
      native = nativeGlued.name;
      position ??= nativeGlued.title;
    } else if (!native && isNativePersonName(s)) native = s;
    else if (glued) {
      name = glued.name;
      position ??= glued.position;
    } else if (!name && !isPosition && (looksLikePersonName(s) || familyCommaGiven(s))) name = s;
    else if (!position && isPosition) position = s;
    else if (!name && !isPosition && /[^\p{Script=Latin}\s\p{P}\d]/u.test(s)) {
      name =
        [...s.matchAll(LATIN_NAME)]
          // A run cut inside a word ("Delta Shoji K." of "K.K.") is not a whole name.
          .filter((m) => !/\p{L}/u.test(s.charAt(m.index + m[0].length)))
          .map((m) => m[0])
          .find((m) => looksLikePersonName(m)) ?? null;
      transcribed = name !== null;
      const rest = name ? s.replace(name, " ").trim() : "";
      if (name && !native && isNativePersonName(rest)) native = rest;
    } else if (!single && /^\p{Lu}\p{Ll}+$/u.test(s)) single = s;
  }
  // "أحمد حداد", "נועה כהן", "สมชาย ศรีสุข" with no Latin form: the name as written, given name first.
  if (!name && !native && scriptName) {
    name = scriptName;
    transcribed = true;
  }
  // "สมชาย ศรีสุข (Somchai Srisuk)", "أحمد حداد (Ahmed Haddad)": a rendering of a name written given name first.
  if (name && !native && segments.some((s) => s !== name && GIVEN_FIRST_SCRIPT.test(s) && !looksLikePosition(s)))
    transcribed = true;
  if (native && name) {
    const stated = alignRomanized(native, name, localPart);
    // Without a known family name, a name written in two parts beside it is still a rendering for Western readers.
    return { name, position, transcribed: transcribed || !!stated || writtenInParts(native), native, stated };
  }
  // "王伟 (David)": the given name the person goes by, beside the native name that gives the family name.
  const goesBy = native && single ? alignRomanized(native, single, localPart) : null;
  if (goesBy) return { name: fullNameOf(goesBy), position, transcribed: true, native, stated: goesBy };
  return { name, position, transcribed, native, stated: null };
}

/**
 * Every name a line shows, not only the first: "Directeur de la publication : Anaïs C. Tessier
 * (…), Daniel J. Sullivan, Lisa-Marie A. Strauß" names three people.
 */
export function namesOnLine(line: string): string[] {
  const first = readLine(line).name;
  if (!first || !/[,;]/.test(line)) return first ? [first] : [];
  const out = new Set([first]);
  for (const s of segmentsOf(line)) {
    const read = readLine(s);
    if (read.name) out.add(read.name);
  }
  return [...out];
}

/** "Inês M. das Neves Diretor-geral": a name and a title with nothing between them (a link, then a span). */
function nameThenPosition(segment: string): { name: string; position: string } | null {
  const words = segment.split(/\s+/);
  for (let k = words.length - 1; k >= 2; k--) {
    const name = words.slice(0, k).join(" ");
    const position = words.slice(k).join(" ");
    if (looksLikePosition(position) && !looksLikePosition(name) && looksLikePersonName(name)) return { name, position };
  }
  return null;
}

/** A line read as a Latin name rendered from the native name on a line beside it (a two-column table, a card). */
function besideNative(read: LineReading, neighbours: readonly (string | undefined)[], localPart: string): LineReading {
  if (!read.name || read.native) return read;
  const native = neighbours.find(
    (l): l is string => !!l && isNativePersonName(l) && !namesAnotherFamily(l, read.name ?? ""),
  );
  if (!native) return read;
  const stated = alignRomanized(native, read.name, localPart);
  return { ...read, transcribed: read.transcribed || !!stated || writtenInParts(native), native, stated };
}

/** The evidence a line's reading gives: stated when the native name tells the parts, else the name as shown. */
function evidenceOf(read: LineReading, familyFirstPage: boolean): NameEvidence | null {
  if (read.stated) return { kind: "stated", name: read.stated };
  return read.name ? shown(read.name, familyFirstPage && !read.transcribed) : null;
}

/**
 * The reading of the name evidence under which the address is this person's, or null: the address
 * judged alone, the way the domain-wide reading judges a domain with one address.
 */
export function readingFor(email: string, evidence: NameEvidence): PersonName | null {
  const local = email.slice(0, email.indexOf("@"));
  return readJointly([{ localPart: local, readings: readingsOf(evidence) }]).names[0] ?? null;
}

/** The reading of a displayed full name under which the address is this person's, or null. */
export function fittingName(email: string, fullName: string, familyFirstPage = false): PersonName | null {
  return readingFor(email, shown(fullName, familyFirstPage));
}

/** Lines a card may hold between a name and its address (title, phone, department, an "E-Mail:" label...). */
const LOOK_BACK = 6;

/**
 * The person an address belongs to, read from the page around it: the link text, the text before it
 * on its line, then up to four lines above (a team card: name, title, address), stopping at the
 * previous card's address. Role addresses (info@, sales@) get no person.
 */
export function personNear(
  email: string,
  lines: readonly string[],
  lineIndex: number,
  anchorText: string,
  sameLineBefore?: string,
  familyFirstPage = false,
): Person {
  const local = email.slice(0, email.indexOf("@"));
  if (isRoleOnly(local)) return NOBODY;

  let found: Person | null = null;
  let position: string | null = null;
  let native: string | null = null;
  const consider = (line: string, neighbours: readonly (string | undefined)[] = []) => {
    const read = besideNative(readLine(line, local), neighbours, local);
    if (!native && read.native) native = read.native;
    // A line that reads a name always gives evidence for it.
    const evidence = !found && read.name ? evidenceOf(read, familyFirstPage) : null;
    if (evidence) {
      const name = readingFor(email, evidence);
      if (name) {
        found = { evidence, name, position: position ?? read.position, native: read.native };
        return;
      }
    }
    if (!position && read.position) position = read.position;
  };

  if (anchorText && !anchorText.includes("@")) consider(anchorText);
  const here = sameLineBefore ?? lines[lineIndex] ?? "";
  // "Işıl Koç (isilk@…), Koen Hendriks (koenh@…)": the text since the line's previous address first.
  const own = ownText(email, here, sameLineBefore !== undefined);
  if (!found && own) consider(own, [lines[lineIndex - 1]]);
  if (!found) consider(here.replace(ADDRESS_TOKEN, " | "), [lines[lineIndex - 1]]);
  for (let i = lineIndex - 1; i >= Math.max(0, lineIndex - LOOK_BACK) && !found; i--) {
    const line = lines[i];
    if (/@/.test(line)) break;
    consider(line, [lines[i - 1], lines[i + 1]]);
  }
  // A table written row by row: a row of names, perhaps a row of titles, then their addresses.
  if (!found) {
    const partner = columnPartner(lines, lineIndex);
    if (partner !== null) consider(lines[partner], [lines[partner - 1], lines[partner + 1]]);
  }
  if (found) return found;
  // A position without the person it belongs to is not attached to anyone; a native name is kept,
  // for a rendering of it on another page (an English version) to be read with.
  return native ? { ...NOBODY, native } : NOBODY;
}

const ADDRESS_TOKEN = /\S+@\S+/g;

/** The text of a line before the address and after any address before it; `before` says the line is already cut there. */
function ownText(email: string, line: string, before: boolean): string | null {
  const at = before ? line.length : line.toLowerCase().indexOf(email);
  if (at < 0) return null;
  const text = line.slice(0, at).split(ADDRESS_TOKEN).at(-1)?.trim();
  return text || null;
}

const isAddressCell = (line: string | undefined) => !!line && line.length <= 80 && /@|\(at\)|\[at\]/i.test(line);

/**
 * The line in the same column as the address, in the rows above its row of addresses: a layout
 * table of k people gives k name cells, (k title cells,) then k address cells, one line each.
 */
function columnPartner(lines: readonly string[], lineIndex: number): number | null {
  if (!isAddressCell(lines[lineIndex])) return null;
  let start = lineIndex;
  while (start > 0 && isAddressCell(lines[start - 1])) start--;
  let end = lineIndex;
  while (isAddressCell(lines[end + 1])) end++;
  const width = end - start + 1;
  if (width < 2) return null;
  for (let rows = 1; rows <= 3 && start - rows * width >= 0; rows++) {
    const at = start - rows * width + (lineIndex - start);
    if (readLine(lines[at]).name) return at;
  }
  return null;
}

/** A person read off a page for an address: the name evidence, this page's reading of it, and a position. */
export interface Person {
  evidence: NameEvidence | null;
  name: PersonName | null;
  position: string | null;
  /** The owner's name in its own script (CJK), when the page shows it. */
  native?: string | null;
}
const NOBODY: Person = { evidence: null, name: null, position: null };

/** The person a profile page is about (its heading, title or JSON-LD Person), when the address is theirs. */
export function personOfPage(email: string, pageNames: readonly string[], familyFirstPage = false): Person {
  const local = email.slice(0, email.indexOf("@"));
  if (isRoleOnly(local)) return NOBODY;
  for (const text of pageNames) {
    const read = readLine(text, local);
    const evidence = evidenceOf(read, familyFirstPage);
    const name = evidence ? readingFor(email, evidence) : null;
    if (name) return { evidence, name, position: null, native: read.native };
  }
  return NOBODY;
}

/** A name a page shows without an address, and whether that page writes names family name first (lang ja, hu...). */
export interface ShownName {
  text: string;
  familyFirstPage: boolean;
}

/**
 * The person an address found without one belongs to, from the names the site shows elsewhere (a
 * team page listing "Jane Doe" without her address, a contact page showing only jdoe@): only when
 * exactly one of those names turns into the address. Each name is read in its own page's order.
 */
export function nameFromSite(email: string, names: Iterable<ShownName>): Person | null {
  const local = email.slice(0, email.indexOf("@"));
  if (isRoleOnly(local)) return null;
  let found: Person | null = null;
  const bare = local.replace(/[^a-z0-9]/g, "");
  for (const { text, familyFirstPage } of names) {
    // Cheap gate before trying every reading and format: some part of the name must be in the address.
    const parts = text
      .split(/[\s-]+/)
      .map((t) => nameKey(t))
      .filter((t) => t.length >= 2);
    if (!parts.some((t) => bare.includes(t) || (t.length > 4 && bare.includes(t.slice(0, 4))))) continue;
    const evidence = shown(text, familyFirstPage);
    const name = readingFor(email, evidence);
    if (!name) continue;
    if (found?.name && nameKeyOf(found.name) !== nameKeyOf(name)) return null;
    found = { evidence, name, position: null };
  }
  return found;
}

const nameKeyOf = (n: PersonName) => `${n.first}|${n.last}`.toLowerCase();
