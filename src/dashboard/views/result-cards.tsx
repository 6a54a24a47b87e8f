import type { FC } from "hono/jsx";

/**
 * A capability's answer drawn for a person: a found person (name, position, company, address and how
 * sure we are), a verdict with its reasons, a phone with its line type; anything else as a short list
 * of its plain fields. The JSON itself stays one click away (the page's <details>).
 */
// biome-ignore lint/suspicious/noExplicitAny: answers of every capability; each card reads the fields it knows
type Data = Record<string, any>;

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : null);
const words = (v: string) => v.replace(/[_-]+/g, " ").toLowerCase();

export const ResultCards: FC<{ body: unknown }> = ({ body }) => {
  const data = (body as { data?: unknown } | null)?.data;
  if (!data || typeof data !== "object") return <p class="muted">Nothing to show.</p>;
  const d = data as Data;
  if (Array.isArray(d.emails)) return <PeopleList people={d.emails as Data[]} domain={str(d.domain)} />;
  if (d.email && typeof d.email === "object" && "result" in d.email) return <VerdictCard v={d.email as Data} />;
  if ("line_type" in d || "e164_format" in d) return <PhoneCard p={d} />;
  if (Array.isArray(d.phones)) return <PhonesList phones={d.phones as Data[]} />;
  if (str(d.email) || str(d.first_name) || str(d.full_name)) return <PersonCard p={d} />;
  return <FieldsCard d={d} />;
};

/** 0–100 as words a person can act on. */
function confidence(score: unknown): string | null {
  if (typeof score !== "number") return null;
  const how = score >= 90 ? "very likely" : score >= 70 ? "likely" : score >= 40 ? "possible" : "unlikely";
  return `${score}% confidence (${how})`;
}

const PersonCard: FC<{ p: Data }> = ({ p }) => {
  const name = str(p.full_name) ?? ([str(p.first_name), str(p.last_name)].filter(Boolean).join(" ") || null);
  const sources = Array.isArray(p.sources) ? p.sources.length : 0;
  return (
    <article class="result person">
      <h3>{name ?? str(p.email) ?? "Someone"}</h3>
      {str(p.position) || str(p.company) ? (
        <p>{[str(p.position), str(p.company)].filter(Boolean).join(" at ")}</p>
      ) : null}
      {str(p.email) ? (
        <p>
          <strong>{p.email}</strong>
        </p>
      ) : (
        <p class="muted">No address found.</p>
      )}
      <p class="muted">
        {[
          confidence(p.score),
          sources ? `seen on ${sources} public page${sources === 1 ? "" : "s"}` : null,
          str(p.verification?.status) ? `verification: ${words(p.verification.status)}` : null,
        ]
          .filter(Boolean)
          .join(" · ")}
      </p>
    </article>
  );
};

const PeopleList: FC<{ people: Data[]; domain: string | null }> = ({ people, domain }) => (
  <>
    <p>
      {people.length === 0
        ? `No published address was found${domain ? ` on ${domain}` : ""}.`
        : `${people.length} address${people.length === 1 ? "" : "es"}${domain ? ` at ${domain}` : ""}:`}
    </p>
    <div class="cards">
      {people.slice(0, 12).map((p) => (
        <PersonCard p={{ ...p, email: p.value ?? p.email }} />
      ))}
    </div>
  </>
);

const VERDICTS: Record<string, [string, string]> = {
  deliverable: ["Deliverable", "ok"],
  undeliverable: ["Undeliverable", "bad"],
  risky: ["Risky", "warn"],
  unknown: ["Unknown", "warn"],
};

/** The checks a verdict rests on, each as a sentence that reads true. */
function reasonsOf(v: Data): string[] {
  const out: string[] = [];
  out.push(v.regex ? "The address is well formed." : "The address is not well formed.");
  if (v.regex) out.push(v.mx_records ? "Its domain accepts mail (MX records)." : "Its domain has no mail server.");
  if (v.disposable) out.push("It is a throwaway (disposable) address.");
  if (v.webmail) out.push("It is a webmail address, not a company's.");
  if (v.role) out.push("It reaches a function (like info@), not a person.");
  if (v.accept_all) out.push("The server accepts any address, so this one cannot be told apart.");
  if (v.gibberish) out.push("The name part looks random.");
  if (v.smtp_check_run === false) out.push("The mailbox itself was not tested.");
  if (str(v.did_you_mean)) out.push(`Did you mean ${v.did_you_mean}?`);
  return out;
}

const VerdictCard: FC<{ v: Data }> = ({ v }) => {
  const [label, tone] = VERDICTS[String(v.result)] ?? [words(String(v.result ?? "unknown")), "warn"];
  return (
    <article class="result verdict">
      <h3>
        <span class={`badge ${tone}`}>{label}</span> {str(v.email) ?? ""}
      </h3>
      {typeof v.score === "number" ? <p class="muted">Score {v.score} of 100</p> : null}
      <ul>
        {reasonsOf(v).map((r) => (
          <li>{r}</li>
        ))}
      </ul>
      {str(v.note) ? <p class="hint">{v.note}</p> : null}
    </article>
  );
};

const LINE_TYPES: Record<string, string> = {
  MOBILE: "Mobile",
  FIXED_LINE: "Landline",
  FIXED_LINE_OR_MOBILE: "Landline or mobile",
  TOLL_FREE: "Toll-free",
  PREMIUM_RATE: "Premium rate",
  VOIP: "Internet (VoIP)",
};

const PhoneCard: FC<{ p: Data }> = ({ p }) => (
  <article class="result phone">
    <h3>
      {str(p.intl_format) ?? str(p.e164_format) ?? str(p.number) ?? "This number"}{" "}
      <span class={`badge ${p.valid === false ? "bad" : "ok"}`}>{p.valid === false ? "Not valid" : "Valid"}</span>
    </h3>
    <p>
      {[
        str(p.line_type) ? (LINE_TYPES[p.line_type] ?? words(p.line_type)) : null,
        str(p.country_code) ? `country ${p.country_code}` : null,
        str(p.carrier) ? `carrier ${p.carrier}` : null,
      ]
        .filter(Boolean)
        .join(" · ") || "No details for this number."}
    </p>
    {Array.isArray(p.timezones) && p.timezones.length ? <p class="muted">Time zone: {p.timezones.join(", ")}</p> : null}
  </article>
);

const PhonesList: FC<{ phones: Data[] }> = ({ phones }) =>
  phones.length ? (
    <div class="cards">
      {phones.slice(0, 12).map((p) => (
        <PhoneCard p={p} />
      ))}
    </div>
  ) : (
    <p>No phone number was found.</p>
  );

/** The plain fields of an answer no card knows (up to 12), as a definition list. */
const FieldsCard: FC<{ d: Data }> = ({ d }) => {
  const plain = Object.entries(d)
    .filter(([, v]) => v !== null && v !== "" && (typeof v !== "object" || (Array.isArray(v) && v.length)))
    .slice(0, 12);
  return (
    <article class="result">
      <dl class="facts">
        {plain.map(([k, v]) => (
          <>
            <dt>{words(k)}</dt>
            <dd>
              {Array.isArray(v)
                ? v
                    .slice(0, 8)
                    .map((x) => (typeof x === "object" ? (x.name ?? x.domain ?? x.value ?? "…") : String(x)))
                    .join(", ")
                : String(v)}
            </dd>
          </>
        ))}
      </dl>
    </article>
  );
};
