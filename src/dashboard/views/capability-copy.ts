/**
 * What the dashboard calls each capability, in words a person reads: a title that says what it does,
 * one sentence, and labels for its fields. A capability not named here (a path kept for existing clients, an alias) has
 * no form of its own: the list shows each thing once, in this order.
 */
export interface CapabilityCopy {
  title: string;
  pitch: string;
  /** Works without the internet (no public page or DNS lookup): the first try of a new account. */
  offline?: boolean;
  /** Field labels by parameter name; a parameter listed as null is not offered (an alias). */
  fields?: Record<string, string | null>;
}

export const CAPABILITY_COPY: Record<string, CapabilityCopy> = {
  "phone-validator": {
    title: "Check a phone number",
    pitch: "Is it a real number, which country, and is it a mobile or a landline?",
    offline: true,
    fields: { phone: "Phone number", country_code: "Country, for a number without +code (e.g. FR)", country: null },
  },
  "email-verifier": {
    title: "Verify an email address",
    pitch: "Would mail to this address be delivered? The verdict comes with its reasons.",
    fields: { email: "Email address" },
  },
  "email-finder": {
    title: "Find someone's email address",
    pitch: "A person's work address from their name and their company's website.",
  },
  "domain-search": {
    title: "Find everyone at a company",
    pitch: "The addresses published on a company's website, with names and positions.",
  },
  "professional-network": {
    title: "Email address from a profile",
    pitch: "The address of the person behind a professional-network profile.",
  },
  "author-finder": {
    title: "Find an article's author",
    pitch: "The author of a web page and their email address.",
  },
  "phone-finder": {
    title: "Find a phone number",
    pitch: "Phone numbers of a person (by email or profile) or of a company (by website).",
  },
  enrich: {
    title: "Enrich an email address",
    pitch: "Who is behind an address: name, position, company.",
  },
  "people/find": {
    title: "Look up a person",
    pitch: "A person's details from their email address, or a company's lead person.",
  },
  "companies/find": {
    title: "Look up a company",
    pitch: "What a company does, its size, location and links, from its website.",
  },
  "combined/find": {
    title: "Person and company together",
    pitch: "A person and their company in one answer, from an email address.",
  },
  "email-count": {
    title: "Count a company's addresses",
    pitch: "How many addresses are known for a website, by department and seniority. Free.",
  },
  "email-format": {
    title: "A company's email format",
    pitch: "How a company writes its addresses (first.last@, f.last@ …). Free.",
  },
  "email-sources": {
    title: "Where an address was seen",
    pitch: "The public pages that show an address, and when.",
  },
  similar: {
    title: "Similar companies",
    pitch: "Companies like this one: same industry, keywords or technologies.",
  },
  technology: {
    title: "Technologies a website uses",
    pitch: "The tools a site runs on, read from its pages and DNS.",
  },
  "domain-suggestions": {
    title: "Website of a company",
    pitch: "The likely website for a company name.",
  },
  "domain-status": {
    title: "Webmail or disposable?",
    pitch: "Whether a domain is a webmail provider or a throwaway mail service. Free.",
  },
};

/** Labels for parameters shared by many capabilities (a capability's own labels win). */
const COMMON_FIELDS: Record<string, string> = {
  domain: "Company website (e.g. stripe.com)",
  company: "Company name",
  first_name: "First name",
  last_name: "Last name",
  full_name: "Full name",
  email: "Email address",
  url: "Page address (URL)",
  linkedin: "Profile URL",
  professional_network: "Profile URL",
  phone: "Phone number",
  enrich_mobile: "Also look for a mobile number (extra phone credit)",
  full: "Every known address, not just the most likely",
  limit: "How many results",
  offset: "Skip this many results",
  page: "Page",
  type: "Only this type",
  seniority: "Only this seniority",
  department: "Only this department",
  query: "Company name or partial website",
  country_code: "Country code (e.g. FR)",
  max_duration: "Give up after (seconds)",
};

export const DEFAULT_CAPABILITY = "phone-validator";

/** The label a field shows: the capability's own, a common one, else its name in words. Null: not offered. */
export function fieldLabel(capability: string, param: string): string | null {
  const own = CAPABILITY_COPY[capability]?.fields;
  if (own && param in own) return own[param] ?? null;
  if (param === "webhook_url") return null;
  return COMMON_FIELDS[param] ?? humanise(param);
}

const humanise = (name: string) => {
  const words = name.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};
