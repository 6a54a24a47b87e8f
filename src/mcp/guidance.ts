/**
 * What a model needs, beyond a capability's one-line summary, to pick the right tool: when to use
 * it (and which neighbour to use instead), and whether it reaches the open web (MCP's
 * `openWorldHint`). Keyed by capability name. Optional: a capability missing here is still served
 * as a tool, with its summary as the description and `openWorldHint: true` (the cautious default).
 */
export interface ToolGuidance {
  /** One or two sentences: when this is the right tool. */
  use: string;
  /** The tool may fetch third-party web pages, DNS or mail servers (false: our own index and local data only). */
  openWorld: boolean;
}

export const TOOL_GUIDANCE: Record<string, ToolGuidance> = {
  "email-finder": {
    use: "Use it to get one named person's work address at a company (name + domain, or name + company name). To list everyone at a company, use domain-search instead.",
    openWorld: true,
  },
  "email-verifier": {
    use: "Use it before emailing an address you found or were given: it says whether the address is deliverable, risky (catch-all, role, disposable) or invalid, with the domain's MX records.",
    openWorld: true,
  },
  "domain-search": {
    use: "Use it to list the people and addresses a company publishes (filter by department or personal/generic type); start here to find decision makers at a company.",
    openWorld: true,
  },
  "domain-status": {
    use: "Use it for a quick, free check whether a domain or an address's domain is a webmail provider or a disposable-email service (no network lookup).",
    openWorld: false,
  },
  "domain-suggestions": {
    use: "Use it when you only know a company's name (or part of its domain) and need its website domain for the other tools.",
    openWorld: false,
  },
  "email-format": {
    use: "Use it to learn how a company builds its addresses ({first}.{last}, {f}{last}, ...) before guessing addresses yourself.",
    openWorld: true,
  },
  "email-count": {
    use: "Use it to see how many addresses are known for a domain (by department and seniority) before running a paid search.",
    openWorld: true,
  },
  "email-sources": {
    use: "Use it to show where an address was published (pages, first and last seen), e.g. to justify why an address is trusted.",
    openWorld: true,
  },
  "author-finder": {
    use: "Use it with an article URL to find the email address of the article's author.",
    openWorld: true,
  },
  enrich: {
    use: "Use it when you have an email address and want the person's name, position, seniority, social profiles and company.",
    openWorld: true,
  },
  "combined/find": {
    use: "Use it when you have an email address and want the person and the full company record in one answer.",
    openWorld: true,
  },
  "people/find": {
    use: "Use it to look up a person by email, or to get the most senior known person of a domain.",
    openWorld: true,
  },
  "companies/find": {
    use: "Use it when you have a company's domain and want its facts: name, industry, size, location, social profiles.",
    openWorld: true,
  },
  "professional-network": {
    use: "Use it with a professional-network profile URL to get that person's work email address.",
    openWorld: false,
  },
  "phone-finder": {
    use: "Use it to get stored phone numbers of a person (by email or profile URL) or of a company (by domain).",
    openWorld: false,
  },
  "phone-legacy": {
    use: "Older form of phone-finder for a person's email address; prefer phone-finder.",
    openWorld: false,
  },
  "phone-validator": {
    use: "Use it to check and normalise a phone number (E.164 and other formats, country, mobile or landline, time zones) without any network lookup.",
    openWorld: false,
  },
  technology: {
    use: "Use it to see a company's technology stack, including its email provider (MX) and sending services (SPF), e.g. when checking a domain's email setup.",
    openWorld: true,
  },
  similar: {
    use: "Use it to find companies similar to a given company domain (lookalike prospecting).",
    openWorld: true,
  },
  location: {
    use: "Use it to see in which countries a company's known people are.",
    openWorld: false,
  },
};
