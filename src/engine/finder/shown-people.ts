import { isLegalForm as isWrittenLegalForm } from "../data/company-words.js";
import { nameKey } from "../people/names.js";

/**
 * The people a domain's team page shows, for the SMTP search's cues (the names' culture, the formats
 * two colleagues cannot share, middle names): the names the crawl kept without an address, less the
 * ones that are the company's own name. A page's header or imprint shows the company as a line of
 * capitalised words that reads like a name ("Linde Partners LLP", then "Linde Partners" beside the
 * logo); taken for two colleagues they share linde@, and {first}, the format of one domain in ten,
 * was lowered tenfold at every such domain. Left out here:
 *  - a name with a legal form after its first word ("LLP", "Co., Ltd.", "Ltd. Şti.", "AS");
 *  - a name whose last word is a lone initial ("Kuipers B." is "Kuipers B.V." cut at its first dot;
 *    a person shown that way gives no family name to write either);
 *  - a name every word of which is in the domain ("Linde Partners" at linde-partners.com, "Le Goff"
 *    at legoff-avocats.be): the company, or a founder whose name the company carries, whose address
 *    says nothing the domain's own name does not.
 */
export function shownPeople(shown: readonly (string | null)[], domain: string): string[] {
  return shown.filter((n): n is string => !!n && !isCompanyName(n, domain));
}

/** Whether a shown "name" is the company's (see shownPeople). */
export function isCompanyName(fullName: string, domain: string): boolean {
  const words = fullName.split(/[\s,]+/).filter(Boolean);
  if (words.slice(1).some(isLegalForm)) return true;
  const last = words.at(-1) ?? "";
  if (words.length > 1 && /^\p{L}\.$/u.test(last)) return true;
  const inDomain = nameKey(domain);
  const keys = words.map(nameKey).filter(Boolean);
  return keys.length > 0 && keys.join("").length >= 5 && keys.every((k) => inDomain.includes(k));
}

function isLegalForm(word: string): boolean {
  if (!isWrittenLegalForm(word)) return false;
  // "AS", "A.Ş.", "Co." are legal forms; "As", "Sa" may be words of a name.
  return nameKey(word).length > 2 || word.includes(".") || word === word.toUpperCase();
}
