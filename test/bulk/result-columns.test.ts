import { beforeAll, describe, expect, it } from "vitest";
import { BULK_TYPES } from "../../src/bulk/types.js";
import { importRows } from "../people/support.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";
import { createdId, createJob, waitForEnd } from "./support.js";

/**
 * For every bulk type, the same input through the single call and through a bulk
 * job; each result column the type declares must exist in the single call's answer and the bulk
 * file must show that value. (The verifier's columns read `data.status` while the answer nests the
 * verdict under `data.email`: every cell was blank.)
 */
interface Sample {
  /** The single call on /v1. */
  single: string;
  /** The bulk job's input: header row and one row. */
  rows: string[][];
}

const SAMPLES: Record<string, Sample> = {
  finder: {
    single: "/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper",
    rows: [
      ["domain", "first_name", "last_name"],
      ["acme-widgets.test", "Jane", "Cooper"],
    ],
  },
  search: { single: "/domain-search?domain=acme-widgets.test", rows: [["domain"], ["acme-widgets.test"]] },
  similar: { single: "/similar?domain=cols-corp.test", rows: [["domain"], ["cols-corp.test"]] },
  company: { single: "/companies/find?domain=cols-corp.test", rows: [["domain"], ["cols-corp.test"]] },
  enrich: {
    single: "/enrich?email=milton.waddams%40cols-corp.test",
    rows: [["email"], ["milton.waddams@cols-corp.test"]],
  },
  linkedin: {
    single: "/professional-network?url=https://www.linkedin.com/in/milton-waddams-cols",
    rows: [["linkedin"], ["https://www.linkedin.com/in/milton-waddams-cols"]],
  },
  author: {
    single: "/author-finder?url=https://daily-news.test/opinion/meta-author",
    rows: [["url"], ["https://daily-news.test/opinion/meta-author"]],
  },
  // A definitive verdict (the domain does not exist), so the verdict columns are all filled.
  verifier: {
    single: "/email-verifier?email=nobody%40gone-verify.test",
    rows: [["email"], ["nobody@gone-verify.test"]],
  },
  "phone-finder": {
    single: "/phone-finder?email=milton.waddams%40cols-corp.test",
    rows: [["email"], ["milton.waddams@cols-corp.test"]],
  },
  "phone-validator": { single: "/phone-validator?phone=%2B33612345678", rows: [["phone"], ["+33612345678"]] },
};

/** The value at a dot path of the single answer; through a list, each element's value. Undefined: the path is not in the answer. */
function get(value: unknown, path: string[]): unknown {
  if (path.length === 0) return value;
  if (Array.isArray(value)) return value.map((v) => get(v, path));
  if (value === null || typeof value !== "object" || !(path[0]! in value)) return undefined;
  return get((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

/** How a value reads in a result cell: text, empty for null, a list of addresses, URLs or values joined with "; ". */
function asCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value))
    return value
      .map((v) =>
        v && typeof v === "object"
          ? asCell((v as { email?: unknown; uri?: unknown }).email ?? (v as { uri?: unknown }).uri)
          : asCell(v),
      )
      .filter(Boolean)
      .join("; ");
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount({ plan: "scale" });
  await importRows([
    {
      kind: "company",
      domain: "cols-corp.test",
      name: "Cols Corp",
      industry: "Computer Software",
      country: "US",
      city: "Austin",
      employee_count: "120",
    },
    {
      kind: "company",
      domain: "cols-twin.test",
      name: "Cols Twin",
      industry: "Computer Software",
      country: "US",
      employee_count: "90",
    },
    {
      kind: "person",
      email: "milton.waddams@cols-corp.test",
      first_name: "Milton",
      last_name: "Waddams",
      position: "Collator",
      country: "US",
      linkedin: "https://www.linkedin.com/in/milton-waddams-cols",
      phone: "+1 512 555 0199",
    },
  ]);
});

describe("bulk result columns are the single call's answer", () => {
  it("has a sample for every bulk type", () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(BULK_TYPES.map((t) => t.type).sort());
  });

  for (const { type, decl } of BULK_TYPES) {
    it(`${type}: every declared column exists in the single answer and the bulk row shows the same value`, async () => {
      const sample = SAMPLES[type]!;
      const single = await call(`/v1${sample.single}`, { headers: account.headers });
      expect(single.status, sample.single).toBe(200);
      const data = (await json(single)).data;

      const id = await createdId(
        await createJob(account, type, { name: `Columns ${type}`, data: sample.rows, launch: true }),
      );
      expect((await waitForEnd(account, type, id)).status).toBe("completed");
      const download = await call(`/v1/bulk/${type}/${id}/download?format=json`, { headers: account.headers });
      const { header, rows } = (await download.json()) as { header: string[]; rows: string[][] };
      expect(rows).toHaveLength(1);
      const row = rows[0]!;

      const columns = Object.entries(decl.resultColumns);
      expect(columns.length).toBeGreaterThan(0);
      for (const [name, path] of columns) {
        const expected = get(data, path.split("."));
        expect(expected, `${type} column ${name}: '${path}' is not in the single answer`).not.toBeUndefined();
        const at = header.indexOf(name, sample.rows[0]!.length);
        expect(at, `${type} column ${name} is in the download`).toBeGreaterThan(0);
        expect(row[at], `${type} column ${name}`).toBe(asCell(expected));
      }
      // The answer's first column (the address, the verdict, the company...) is filled in.
      expect(row[header.indexOf(columns[0]![0], sample.rows[0]!.length)]).not.toBe("");
      expect(row.at(-2)).toMatch(/^(found|invalid)$/);
    });
  }
});
