import { CJK_FAMILY_NAMES } from "../data/cjk-family-names.js";
import { isParticle, nameKey, type PersonName, splitFullName } from "../people/names.js";
import { countryOfDomain } from "../web/extract/company.js";

/**
 * Whether a company writes addresses where the family name may come first, read from its people's
 * names where its domain does not say its country. Companies in Japan, China, Taiwan, Korea, Vietnam
 * and Hungary often put the family name first in addresses (tanaka.h, nagy.peter); on their country's
 * domains (.jp, .hu...) the candidates' order already says so (candidates.ts), but many of them use
 * .com or another generic domain. There the names on the team page tell: when most of them carry a
 * Japanese, Chinese, Korean, Vietnamese or Hungarian family name, the company is taken to be one of
 * those. One name alone is not enough to overrule a Western team: a Chinese engineer at a company in
 * Ohio writes j.wang like everyone else there, so it takes most of the names the domain shows.
 */

/** Vietnamese family names without diacritics: the most common ones (some 14 names cover about 90% of people). */
const VIETNAMESE = `nguyen tran le pham hoang huynh phan vu vo dang bui do ho ngo duong ly dinh truong trinh doan
luong lam mai cao quach vuong ha thai ta luu tang`;

/** Hungarian family names without diacritics: the most common ones in Hungary. */
const HUNGARIAN = `nagy kovacs toth szabo horvath varga kiss molnar nemeth farkas balogh papp takacs juhasz lakatos
meszaros olah racz fekete szilagyi torok feher balazs gal kis szucs kocsis orsos pinter fodor szalai sipos magyar
lukacs gulyas biro kiraly katona laszlo jakab bogdan balog sandor boros fazekas kelemen antal orban somogyi vass
fulop veres budai hegedus deak pal bognar illes voros vincze szekeres szoke bakos`;

const FAMILY_FIRST_NAMES: ReadonlySet<string> = new Set([
  ...[...CJK_FAMILY_NAMES.values()].flat(),
  ...VIETNAMESE.split(/\s+/),
  ...HUNGARIAN.split(/\s+/),
]);

/**
 * Country-code domains companies everywhere use as generic ones (.io, .co, .ai...): their country
 * says nothing of the company's.
 */
const GENERIC_COUNTRY_CODES = new Set(["IO", "CO", "AI", "ME", "TV", "CC", "LY", "FM", "GG", "TO", "SO", "SH", "WS"]);

/** Whether `domain`'s suffix names no country its company is likely to be in (.com, .io, .ai...). */
export function countrylessDomain(domain: string): boolean {
  const country = countryOfDomain(domain);
  return country === undefined || GENERIC_COUNTRY_CODES.has(country);
}

/** Whether a full name carries a family name of a culture that writes it first. */
function hasFamilyFirstName(fullName: string): boolean {
  // Single letters (initials) and one-letter romanizations (Korean 이 → "i") say nothing.
  return fullName
    .split(/[\s,]+/)
    .map(nameKey)
    .some((w) => w.length >= 2 && FAMILY_FIRST_NAMES.has(w));
}

/**
 * Whether most of the names a domain shows (`shown`, its team page) and the person asked about
 * (`asked`, family name) carry a family name of a family-name-first culture. With nothing shown,
 * the asked name alone decides.
 */
export function namesWriteFamilyFirst(shown: readonly string[], asked: string): boolean {
  const names = [...new Set([...shown.filter(Boolean), asked])];
  const matching = names.filter(hasFamilyFirstName).length;
  return matching > 0 && matching * 2 > names.length;
}

/**
 * Countries whose people carry two family names after their given names, the first of them the one
 * used alone (Spanish naming: "Sofía José Martínez Ortega" is Sofía José, of the Martínez and the
 * Ortega families). Colombia's .co is left out: companies everywhere use it as a generic domain.
 */
const TWO_FAMILY_NAMES = new Set([
  "ES",
  "MX",
  "AR",
  "CL",
  "PE",
  "VE",
  "EC",
  "GT",
  "CU",
  "BO",
  "DO",
  "HN",
  "PY",
  "SV",
  "NI",
  "CR",
  "PA",
  "UY",
]);

/** Whether `domain`'s country names its people with two family names (Spain, Spanish America). */
export function writesTwoFamilyNames(domain: string): boolean {
  return TWO_FAMILY_NAMES.has(countryOfDomain(domain) ?? "");
}

/**
 * The most common Spanish family names without diacritics (INE, Spain's statistics office: the
 * first hundred cover about half of the population; Spanish America shares most of them).
 */
const SPANISH = `garcia rodriguez gonzalez fernandez lopez martinez sanchez perez gomez martin jimenez ruiz hernandez
diaz moreno munoz alvarez romero alonso gutierrez navarro torres dominguez vazquez ramos gil ramirez serrano blanco
molina morales suarez ortega delgado castro ortiz rubio marin sanz nunez iglesias medina garrido cortes castillo
santos lozano guerrero cano prieto mendez cruz calvo gallego vidal leon marquez herrera pena flores cabrera campos
vega fuentes carrasco diez caballero reyes nieto aguilar pascual santana herrero lorenzo montero hidalgo gimenez
ibanez ferrer duran santiago benitez mora vicente vargas arias carmona crespo roman pastor soto saez velasco moya
soler parra esteban bravo gallardo rojas`;
const SPANISH_FAMILY_NAMES: ReadonlySet<string> = new Set(SPANISH.split(/\s+/));

/**
 * Whether a company names its people with two family names, where its domain does not say its
 * country (.com, .io...): most names its team page shows (at least two) end in two common Spanish
 * family names ("María Antonio Díaz Sánchez"). Else, as for "Sofía José Martínez Ortega" on a .mx
 * domain, a four-word name would be read with the middle name "Antonio Díaz".
 */
export function namesCarryTwoFamilyNames(shown: readonly string[]): boolean {
  const names = [...new Set(shown.filter(Boolean))];
  const spanish = names.filter((n) => {
    const words = n.split(/\s+/).map(nameKey);
    return words.length >= 3 && words.slice(-2).every((w) => SPANISH_FAMILY_NAMES.has(w));
  }).length;
  return spanish >= 2 && spanish * 2 > names.length;
}

/** Whether people at `domain` carry two family names: by its country, or on a countryless domain by its team page. */
export function twoFamilyNamesAt(domain: string, shown: readonly string[]): boolean {
  return writesTwoFamilyNames(domain) || (countrylessDomain(domain) && namesCarryTwoFamilyNames(shown));
}

/**
 * The reading of a full name (`readings`: nameSplits) with a given name, a middle name and a family
 * name of two words, where the usual reading has a one-word family name; else the usual one.
 */
export function twoFamilyNameReading(usual: PersonName, readings: readonly PersonName[]): PersonName {
  if (usual.last.includes(" ")) return usual;
  return readings.find((r) => r.middle && !r.first.includes(" ") && r.last.split(" ").length === 2) ?? usual;
}

/**
 * A name the domain's team page shows, read the way its country names people: where people carry
 * two family names, the last two words of a name of three or more (no particle: "Nuno das Neves"
 * keeps its own reading) are the family name, so "Íñigo Gómez Jiménez" has no middle name and
 * "Sofía José Martínez Ortega" has José.
 */
export function readShownName(
  fullName: string,
  domain: string,
  twoFamilyNames = writesTwoFamilyNames(domain),
): PersonName | null {
  const usual = splitFullName(fullName);
  if (!usual || !twoFamilyNames) return usual;
  const words = [usual.first, usual.middle, usual.last].filter(Boolean).join(" ").split(" ");
  if (words.length < 3 || usual.last.includes(" ") || words.some(isParticle)) return usual;
  const middle = words.slice(1, -2).join(" ");
  return { first: words[0] ?? "", ...(middle ? { middle } : {}), last: words.slice(-2).join(" ") };
}
