import { CJK_FAMILY_NAMES } from "../data/cjk-family-names.js";
import { nameKey, type PersonName } from "./names.js";

/**
 * Japanese, Chinese and Korean names in their own script beside a romanized form. The native script
 * writes the family name first (田中 太郎, 王伟, 김민준); the romanized form beside it may be in
 * either order ("Taro Tanaka", "Tanaka Taro"). The native family name's known spellings say which
 * romanized word is the family name; kana (furigana, ruby) is romanized outright.
 */

const NATIVE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const NATIVE_RUN = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}々〆ヶー]+$/u;
/** Separators written between family and given name: space, ideographic space, middle dots. */
const PART_SEPARATOR = /[\s\u3000・·･]+/u;

export function isNativeScript(text: string): boolean {
  return NATIVE.test(text);
}

/** "田中 太郎", "王伟", "김민준", "たなか たろう": one or two runs of CJK script, two to ten characters. */
export function looksLikeNativeName(text: string): boolean {
  const parts = text.trim().split(PART_SEPARATOR).filter(Boolean);
  if (parts.length === 0 || parts.length > 2 || !parts.every((p) => NATIVE_RUN.test(p))) return false;
  const length = parts.join("").length;
  return length >= 2 && length <= 10;
}

/** Titles and departments written in CJK script, which a page shows where a name could stand ("部長", "高级经理", "이사"). */
const TITLE_LIKE =
  /(?:部|課|室|長|役|員|社|所|局|係|係長|担当|代表|主任|顧問|理事|経理|经理|总监|總監|主管|总裁|總裁|董事|助理|秘书|秘書|工程师|工程師|设计师|設計師|律师|律師|会计|會計|师|師|员|員|部门|部門|센터|팀장|대표|이사|부장|과장|차장|사원|주임|실장|상무|전무|사장|회장|팀|부|실)$/u;

/** A title or department in CJK script ("営業部長", "项目经理", "영업팀장", "エンジニア"). */
export function isNativeTitle(text: string): boolean {
  const parts = text.trim().split(PART_SEPARATOR).filter(Boolean);
  return (
    parts.length > 0 && parts.every((p) => NATIVE_RUN.test(p) && (TITLE_LIKE.test(p) || NATIVE_TITLE_WORDS.test(p)))
  );
}

/** "田中 太郎 営業部長": a native name and a title written one after the other. */
export function nativeNameThenTitle(text: string): { name: string; title: string } | null {
  const parts = text.trim().split(PART_SEPARATOR).filter(Boolean);
  const title = parts.at(-1);
  if (parts.length < 2 || title === undefined) return null;
  const name = parts.slice(0, -1).join(" ");
  return isNativeTitle(title) && isNativePersonName(name) ? { name, title } : null;
}

/** Titles in CJK script that do not end like a department or a rank. */
const NATIVE_TITLE_WORDS =
  /マネージャー|エンジニア|コンサルタント|デザイナー|ディレクター|取締役|代表|顾问|顧問|经理|經理|总监|主管|컨설턴트|엔지니어|매니저|대표|담당/u;

/**
 * Labels a card writes before a value, some of which start like a family name (이메일 with 이, 전화
 * with 전, 주소 with 주): never a name.
 */
const NATIVE_LABEL =
  /^(?:이메일|메일|전화|전화번호|연락처|주소|팩스|휴대폰|휴대전화|홈페이지|이름|성명|직책|직위|부서|문의|邮箱|电邮|邮件|电子邮件|电话|手机|传真|地址|姓名|职位|部门|联系方式|メール|電話|住所|氏名|役職|連絡先|携帯|電子メール)(?:주소|번호)?$/u;

/**
 * Words of a page's own vocabulary in CJK script that a heading writes in two parts, like a name
 * ("スタッフ 大阪", "团队 上海", "구성원 소개", "회사 정보"): staff, team, members, introduction,
 * company, office, branch. Never a part of a person's name.
 */
const NATIVE_PAGE_WORDS = new Set(
  (
    "スタッフ メンバー チーム 社員 紹介 会社 概要 拠点 事務所 支社 支店 本社 営業所 " +
    "团队 團隊 成员 成員 员工 員工 介绍 介紹 公司 关于 關於 办公室 辦公室 分公司 " +
    "구성원 직원 팀원 소개 회사 정보 지사 사무소 사무실 본사"
  ).split(" "),
);

/**
 * A native-script text that is a person's name, not a title or department beside it: family name
 * and given name written apart ("田中 太郎", neither part a title), or written together after a
 * known family name ("王伟", "김민준").
 */
export function isNativePersonName(text: string): boolean {
  if (!looksLikeNativeName(text) || NATIVE_LABEL.test(text.trim())) return false;
  const parts = text.trim().split(PART_SEPARATOR).filter(Boolean);
  const [familyPart, givenPart] = parts;
  if (parts.length === 2 && familyPart && givenPart) {
    return (
      parts.every((p) => [...p].length <= 5 && !NATIVE_PAGE_WORDS.has(p)) &&
      !TITLE_LIKE.test(givenPart) &&
      (!TITLE_LIKE.test(familyPart) || CJK_FAMILY_NAMES.has(familyPart))
    );
  }
  const family = nativeFamily(text);
  const length = [...text].length;
  return (
    !!family &&
    length >= 2 &&
    length <= 4 &&
    !TITLE_LIKE.test(text.slice(family.family.length)) &&
    !TITLE_LIKE.test(text)
  );
}

/** Written in two parts, family name apart from given name, as Japanese sites write names. */
export function writtenInParts(text: string): boolean {
  return text.trim().split(PART_SEPARATOR).filter(Boolean).length === 2;
}

// Hepburn romanization of kana, as passports write it (long vowels unmarked).
const KANA: Record<string, string> = {};
const ROWS = `あa いi うu えe おo かka きki くku けke こko さsa しshi すsu せse そso たta ちchi つtsu てte とto なna にni ぬnu ねne のno
はha ひhi ふfu へhe ほho まma みmi むmu めme もmo やya ゆyu よyo らra りri るru れre ろro わwa ゐi ゑe をo んn がga ぎgi ぐgu げge ごgo
ざza じji ずzu ぜze ぞzo だda ぢji づzu でde どdo ばba びbi ぶbu べbe ぼbo ぱpa ぴpi ぷpu ぺpe ぽpo ゔvu ぁa ぃi ぅu ぇe ぉo`;
for (const entry of ROWS.split(/\s+/)) KANA[entry.charAt(0)] = entry.slice(1);
const SMALL_Y: Record<string, string> = { ゃ: "a", ゅ: "u", ょ: "o" };

/** Katakana folded to hiragana (ァ-ヶ are hiragana + 0x60). */
const toHiragana = (text: string) =>
  text.replace(/[\u30a1-\u30f6]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60));

/** The Hepburn spelling of kana text, or null when it holds anything else. */
export function romanizeKana(text: string): string | null {
  const chars = [...toHiragana(text.replace(/\s+/g, ""))];
  let out = "";
  let double = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === "っ") {
      double = true;
      continue;
    }
    if (c === "ー") continue;
    let syllable = KANA[c];
    if (syllable === undefined) return null;
    const next = chars[i + 1];
    const smallVowel = next && /[ぁぃぅぇぉ]/.test(next) ? KANA[next] : undefined;
    if (next && SMALL_Y[next] && syllable.endsWith("i") && syllable.length > 1) {
      const stem = syllable.slice(0, -1);
      syllable = /^(sh|ch|j)$/.test(stem) ? stem + SMALL_Y[next] : `${stem}y${SMALL_Y[next]}`;
      i++;
    } else if (smallVowel !== undefined && syllable.length > 1) {
      syllable = syllable.slice(0, -1) + smallVowel;
      i++;
    }
    if (double) syllable = (syllable.startsWith("ch") ? "t" : syllable[0]) + syllable;
    double = false;
    out += syllable;
  }
  return out || null;
}

/** Ways names spelled from kana appear in addresses: as romanized, and with long vowels shortened (Satou → sato, satoh). */
export function kanaSpellings(text: string): string[] {
  const full = romanizeKana(text);
  if (!full) return [];
  const short = full.replace(/ou/g, "o").replace(/uu/g, "u").replace(/oo/g, "o");
  const oh = full.replace(/ou$/, "oh");
  return [...new Set([short, full, oh])];
}

/** The romanized spellings of a native family name: from the list of common names, or from its kana. */
function spellingsOf(family: string): readonly string[] {
  return (
    CJK_FAMILY_NAMES.get(family) ??
    (/^[\p{Script=Hiragana}\p{Script=Katakana}ー]+$/u.test(family) ? kanaSpellings(family) : [])
  );
}

/**
 * The native family name and its spellings: the first part when the name is written in two parts,
 * else the longest known prefix (田中太郎 → 田中; 김민준 → 김; 欧阳明 → 欧阳).
 */
export function nativeFamily(native: string): { family: string; spellings: readonly string[] } | null {
  const parts = native.trim().split(PART_SEPARATOR).filter(Boolean);
  const [head] = parts;
  if (head === undefined) return null;
  if (parts.length >= 2) {
    const spellings = spellingsOf(head);
    return spellings.length ? { family: head, spellings } : null;
  }
  const chars = [...head];
  for (let n = Math.min(3, chars.length - 1); n >= 1; n--) {
    const prefix = chars.slice(0, n).join("");
    const spellings = CJK_FAMILY_NAMES.get(prefix);
    if (spellings) return { family: prefix, spellings };
  }
  return null;
}

/**
 * A native name whose family name is spelled by none of a romanized name's words ("松本 健二" or
 * a heading "スタッフ 大阪" beside "Suzuki Kenta"): not that name in its own script, so it says
 * nothing of the romanized name's order. Unknown family names contradict nothing.
 */
export function namesAnotherFamily(native: string, romanized: string): boolean {
  const family = nativeFamily(native);
  if (!family) return false;
  return !romanized
    .split(/[\s(),]+/)
    .filter(Boolean)
    .some((word) => family.spellings.includes(nameKey(word)));
}

const INITIAL = /^\p{Lu}\.$/u;
const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The name a romanized rendering gives, its family name told by the native name beside it: "Taro
 * Tanaka" and "Tanaka Taro" beside 田中 太郎 are both Taro of the Tanaka family. A one-word rendering
 * is the given name the person goes by ("David" beside 王伟: David Wang; the spelling of the family
 * name that the address uses when it shows one). Null when the native family name is not known or
 * the rendering does not say which word it is.
 */
export function alignRomanized(native: string, romanized: string, localPart = ""): PersonName | null {
  const family = nativeFamily(native);
  if (!family) return null;
  const tokens = romanized
    .replace(/[(),]/g, " ")
    .split(/\s+/)
    .filter((t) => /\p{L}/u.test(t));
  const head = tokens[0];
  const tail = tokens.at(-1);
  if (head === undefined || tail === undefined) return null;
  const isFamily = (token: string) => family.spellings.includes(nameKey(token));
  if (tokens.length === 1) {
    if (isFamily(head)) return null;
    const local = localPart.toLowerCase();
    const spelling = family.spellings.find((s) => local.includes(s)) ?? family.spellings[0];
    if (spelling === undefined) throw new Error(`the known family name ${family.family} has no spelling`);
    return { first: head, last: capitalised(spelling) };
  }
  const first = isFamily(head);
  const last = isFamily(tail);
  if (first === last) return null;
  const familyToken = first ? head : tail;
  const rest = first ? tokens.slice(1) : tokens.slice(0, -1);
  const middle = rest.filter((t) => INITIAL.test(t));
  const given = rest.filter((t) => !INITIAL.test(t)).join(" ");
  if (!given) return null;
  return { first: given, last: familyToken, ...(middle.length ? { middle: middle.join(" ") } : {}) };
}

/**
 * A name annotated part by part, as ruby renders it without ruby support ("田中(Tanaka) 太郎(Taro)",
 * "田中（たなか） 太郎（たろう）"): each reading belongs to the part before it, and the native order is
 * family name first. Kana readings are romanized; `localPart` picks the spelling an address uses.
 */
export function annotatedName(line: string, localPart = ""): { name: PersonName; rest: string } | null {
  const m =
    /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}々]+)\s*[(（]\s*([^()（）]{1,30}?)\s*[)）][\s\u3000・]*([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}々]+)\s*[(（]\s*([^()（）]{1,30}?)\s*[)）]/u.exec(
      line,
    );
  if (!m) return null;
  const local = localPart.toLowerCase();
  const spell = (reading: string): string | null => {
    if (/^[\p{Script=Latin}'’ -]+$/u.test(reading)) return reading.trim();
    const options = kanaSpellings(reading);
    const [usual] = options;
    if (usual === undefined) return null;
    return capitalised(options.find((o) => local.includes(o)) ?? usual);
  };
  const [, , familyReading, , givenReading] = m;
  const family = spell(familyReading);
  const given = spell(givenReading);
  if (!family || !given) return null;
  return { name: { first: given, last: family }, rest: line.slice(0, m.index) + line.slice(m.index + m[0].length) };
}
