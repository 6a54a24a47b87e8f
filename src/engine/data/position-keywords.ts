/**
 * Departments and seniorities, and the keyword rules that read them from a job title or a role
 * address's local part (src/engine/people/positions.ts). Rules are in priority order: the first
 * whose pattern matches wins, so specific titles precede broad ones.
 */

export const DEPARTMENTS = [
  "engineering",
  "finance",
  "hr",
  "it",
  "marketing",
  "operations",
  "management",
  "sales",
  "legal",
  "support",
  "communication",
  "executive",
  "security",
  "accounting",
  "administrative",
  "diversity",
  "facilities",
  "pr",
  "software",
  "warehouse",
] as const;
export type Department = (typeof DEPARTMENTS)[number];

export const SENIORITIES = ["junior", "senior", "executive"] as const;
export type Seniority = (typeof SENIORITIES)[number];

export const DEPARTMENT_RULES: [RegExp, Department][] = [
  [
    /\b(ceo|chief executive|founder|co-?founder|owner|president|chair(man|woman|person)?|managing director|geschäftsführer(in)?|inhaber(in)?|vorstand)\b/i,
    "executive",
  ],
  [/\b(ciso|security|infosec|cyber)\b/i, "security"],
  [/\b(cfo\b|finance|financial|treasur|controller|controlling|investor relations|finanz)/i, "finance"],
  [/\b(accountant|accounting|bookkeep|buchhalt|payroll|billing)/i, "accounting"],
  [
    /\b(cto\b|chief technology|engineer|engineering|devops|sre\b|architect|qa\b|quality assurance|entwickl)/i,
    "engineering",
  ],
  [/\b(software|developer|programmer|front-?end|back-?end|full-?stack|mobile dev)/i, "software"],
  [/\b(cio|it|information technology|sysadmin|system administrator|helpdesk|network admin)\b/i, "it"],
  [
    /\b(general counsel|counsel|legal|lawyer|attorney|compliance|paralegal|jurist|privacy officer|dpo|data protection)/i,
    "legal",
  ],
  [/\b(public relations|press|media relations|pr)\b/i, "pr"],
  [/\b(communications?|spokes(person|man|woman)|kommunikation)\b/i, "communication"],
  [/\b(cmo\b|marketing|growth\b|content\b|brand\b|social media)/i, "marketing"],
  // Upper case only: "Seo" is a Korean family name ("Sua Seo").
  [/\bSEO\b/, "marketing"],
  [
    /\b(sales|account executive|account manager|business development|bdr\b|sdr\b|vertrieb|verkauf|partnerships)/i,
    "sales",
  ],
  [
    /\b(chro\b|hr\b|human resources|people (ops|operations|partner)|talent\b|recruit|personal(abteilung|leitung))/i,
    "hr",
  ],
  [/\b(diversity|inclusion|dei)\b/i, "diversity"],
  [/\b(support|customer success|customer service|customer care|kundenservice)/i, "support"],
  [/\b(warehouse|fulfil?ment|lager)/i, "warehouse"],
  [/\b(facilit(y|ies)|maintenance|hausmeister)/i, "facilities"],
  [/\b(coo\b|operations|logistics|supply chain|procurement|einkauf)/i, "operations"],
  [
    /\b(assistant|secretary|receptionist|office (manager|administrator)|administrative|sekretariat|empfang)/i,
    "administrative",
  ],
  [/\b(manager|management|head of|director|leitung|leiter(in)?)\b/i, "management"],
];

export const SENIORITY_RULES: [RegExp, Seniority][] = [
  [
    /\b(chief|ceo|cto|cfo|coo|cmo|cio|ciso|chro|founder|co-?founder|owner|president|vp|vice president|evp|svp|managing director|geschäftsführer(in)?|inhaber(in)?|vorstand|partner|chair(man|woman|person)?)\b/i,
    "executive",
  ],
  [
    /\b(junior|jr\.?|intern|internship|trainee|apprentice|werkstudent(in)?|praktikant(in)?|graduate|entry[- ]level|azubi)\b/i,
    "junior",
  ],
  [/\b(senior|sr\.?|lead|principal|head|director|staff engineer|manager|leiter(in)?|leitung)\b/i, "senior"],
];

/** Role mailboxes whose purpose names a department (sales@, press@, jobs@...); info@ and the like name none. */
export const ROLE_DEPARTMENTS: Record<string, Department> = {
  sales: "sales",
  vertrieb: "sales",
  bizdev: "sales",
  partners: "sales",
  partnerships: "sales",
  support: "support",
  help: "support",
  helpdesk: "support",
  service: "support",
  customerservice: "support",
  kundenservice: "support",
  press: "pr",
  presse: "pr",
  media: "pr",
  pr: "pr",
  newsroom: "pr",
  jobs: "hr",
  careers: "hr",
  career: "hr",
  hr: "hr",
  recruiting: "hr",
  talent: "hr",
  bewerbung: "hr",
  karriere: "hr",
  billing: "accounting",
  accounting: "accounting",
  invoices: "accounting",
  invoice: "accounting",
  buchhaltung: "accounting",
  rechnung: "accounting",
  finance: "finance",
  ir: "finance",
  investors: "finance",
  legal: "legal",
  privacy: "legal",
  dpo: "legal",
  datenschutz: "legal",
  compliance: "legal",
  gdpr: "legal",
  security: "security",
  abuse: "security",
  cert: "security",
  psirt: "security",
  marketing: "marketing",
  it: "it",
  sysadmin: "it",
  webmaster: "it",
  hostmaster: "it",
  postmaster: "it",
  engineering: "engineering",
  dev: "software",
  developers: "software",
  ops: "operations",
  operations: "operations",
  office: "administrative",
  admin: "administrative",
  empfang: "administrative",
  facilities: "facilities",
  warehouse: "warehouse",
  logistics: "operations",
  shipping: "warehouse",
  ceo: "executive",
};
