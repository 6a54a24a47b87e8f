import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { McpSurface } from "./tools.js";

/**
 * Workflows a user can pick in their MCP client: each expands into instructions that chain the
 * tools this endpoint serves. A step whose tool is not served here (the agent surface sells fewer
 * capabilities) is left out rather than named.
 */

interface Step {
  /** Tool names the step calls; the step is dropped when one of them is not served. */
  tools: string[];
  text: string;
}

interface Workflow {
  prompt: Prompt;
  intro(args: Record<string, string>): string;
  steps(args: Record<string, string>, surface: McpSurface): Step[];
  outro: string;
}

const WORKFLOWS: Workflow[] = [
  {
    prompt: {
      name: "find-decision-makers",
      title: "Find and verify the decision makers at a company",
      description:
        "Lists the people who decide at a company (executives, heads of department) with verified work email addresses.",
      arguments: [
        { name: "company", description: "The company's website domain (acme.com) or its name", required: true },
        {
          name: "department",
          description: "Optional: only this department (sales, marketing, engineering, finance, hr, it, ...)",
          required: false,
        },
      ],
    },
    intro: (a) => `Find and verify the decision makers at ${a.company}${a.department ? ` in ${a.department}` : ""}.`,
    steps: (a) => [
      {
        tools: ["domain-suggestions"],
        text: `If "${a.company}" is not a domain, call domain-suggestions with query="${a.company}" and take the company's website domain (ask me when several companies fit).`,
      },
      {
        tools: ["domain-search"],
        text: `Call domain-search with the domain, type="personal"${a.department ? `, department="${a.department}"` : ""} and limit=50. Keep the people whose position or seniority shows they decide: founders, C-level, VPs, heads and directors.`,
      },
      {
        tools: ["people-find"],
        text: "If fewer than three decision makers come back, call people-find with the domain for the most senior person known.",
      },
      {
        tools: ["email-finder"],
        text: "For a decision maker you know by name but who has no address yet, call email-finder with the domain and their first and last name.",
      },
      {
        tools: ["email-verifier"],
        text: "Verify every address with email-verifier. Keep 'valid' ones, mark 'accept_all' and 'unknown' as risky, drop 'invalid' ones.",
      },
    ],
    outro:
      "Answer with a table: name, position, email, verification status, score, and the page where the address was found. Do not invent people or addresses.",
  },
  {
    prompt: {
      name: "enrich-leads",
      title: "Enrich a list of leads",
      description:
        "Completes each lead (an email address, or a name and a company) with the person's position, company and a verified address.",
      arguments: [
        {
          name: "leads",
          description: "One lead per line: an email address, or 'First Last, company name or domain'",
          required: true,
        },
      ],
    },
    intro: (a) => `Enrich these leads, one per line:\n${a.leads}`,
    steps: (_a, surface) => [
      {
        tools: ["enrich"],
        text: "For a lead given as an email address, call enrich with the address for the person's name, position, seniority, profiles and company.",
      },
      {
        tools: ["domain-suggestions"],
        text: "For a lead given as a name and a company name, find the company's domain with domain-suggestions.",
      },
      {
        tools: ["email-finder"],
        text: "For a lead given as a name and a domain, call email-finder with the domain and the name.",
      },
      { tools: ["email-verifier"], text: "Verify each address you found or were given with email-verifier." },
      ...(surface === "account"
        ? [
            {
              tools: [],
              text: "If the list has more than a hundred leads, stop and suggest a bulk job instead (POST /v1/bulk/finder or /v1/bulk/verifier in the account API): it costs the same credits and runs in the background.",
            },
          ]
        : []),
    ],
    outro:
      "Answer with one row per lead: the input, full name, position, company, domain, email, verification status and score. Leave a field empty when nothing was found; never guess.",
  },
  {
    prompt: {
      name: "check-email-setup",
      title: "Check a domain's email setup",
      description:
        "Reports how a domain receives email: provider (MX), catch-all, webmail or disposable, sending services (SPF) and the address formats it uses.",
      arguments: [{ name: "domain", description: "The domain to check (acme.com)", required: true }],
    },
    intro: (a) => `Check the email setup of ${a.domain}.`,
    steps: (a) => [
      {
        tools: ["domain-status"],
        text: `Call domain-status with domain="${a.domain}": is it a webmail provider or a disposable-email service?`,
      },
      {
        tools: ["email-verifier"],
        text: `Call email-verifier with email="postmaster@${a.domain}" to read the domain's MX records, its mail provider and whether it accepts every address (catch-all, accept_all).`,
      },
      {
        tools: ["technology"],
        text: `Call technology with domain="${a.domain}" for the email provider and the sending services named in its SPF record.`,
      },
      {
        tools: ["email-format", "email-count"],
        text: `Call email-format and email-count with domain="${a.domain}" for the address formats it uses and how many addresses are published.`,
      },
    ],
    outro:
      "Summarise: provider and MX hosts (or missing / null MX), catch-all or not, webmail or disposable, sending services, and the usual address format with its share.",
  },
];

export function listPrompts(): Prompt[] {
  return WORKFLOWS.map((w) => w.prompt);
}

/** Undefined for an unknown prompt; throws for a missing required argument (the caller answers -32602). */
export function renderPrompt(
  name: string,
  args: Record<string, string> | undefined,
  served: ReadonlySet<string>,
  surface: McpSurface,
): GetPromptResult | undefined {
  const workflow = WORKFLOWS.find((w) => w.prompt.name === name);
  if (!workflow) return undefined;
  const given = args ?? {};
  const missing = (workflow.prompt.arguments ?? [])
    .filter((a) => a.required && !given[a.name]?.trim())
    .map((a) => a.name);
  if (missing.length) throw new MissingPromptArguments(missing);
  const steps = workflow.steps(given, surface).filter((s) => s.tools.every((t) => served.has(t)));
  const text = [workflow.intro(given), "", ...steps.map((s, i) => `${i + 1}. ${s.text}`), "", workflow.outro].join(
    "\n",
  );
  return { description: workflow.prompt.description, messages: [{ role: "user", content: { type: "text", text } }] };
}

export class MissingPromptArguments extends Error {
  constructor(readonly names: string[]) {
    super(`Missing required argument${names.length === 1 ? "" : "s"}: ${names.join(", ")}.`);
  }
}
