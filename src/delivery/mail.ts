import { guardedFetch } from "../engine/web/egress.js";
import { type Env, isProduction } from "../env.js";
import { isolateValue } from "../platform/isolate-state.js";

/**
 * The service's outgoing mail (the dashboard's confirmation and password-reset links, team
 * invitations) behind one interface. In
 * production a transactional email service over HTTPS (Resend's API by default, docs/dashboard.md),
 * through the egress guard like every outbound request. Locally, without MAIL_API_KEY, each message
 * is printed to the Worker's log (so `npm start` shows the link) and kept in a short outbox the tests
 * read.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The link the message is about (what the local mailer prints). */
  link: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export class MailNotConfigured extends Error {
  constructor(what: string) {
    super(`mail is not configured: ${what} (docs/dashboard.md, "Mail")`);
    this.name = "MailNotConfigured";
  }
}

/** The last messages the local mailer "sent", newest last (per isolate; see docs/storage.md). */
const OUTBOX_SIZE = 50;
const outbox = isolateValue<MailMessage[]>("dashboardOutbox");

export function localOutbox(): readonly MailMessage[] {
  return outbox.get() ?? [];
}

const logMailer: Mailer = {
  async send(message) {
    const kept = outbox.get() ?? outbox.set([]);
    kept.push(message);
    if (kept.length > OUTBOX_SIZE) kept.shift();
    console.log(`[mail] to ${message.to}: ${message.subject}\n[mail]   ${message.link}`);
  },
};

const DEFAULT_MAIL_API_URL = "https://api.resend.com/emails";

/** Resend's send-email API (and any service speaking it): POST JSON {from, to, subject, text}, bearer key. */
export function httpMailer(env: Env): Mailer {
  const key = env.MAIL_API_KEY;
  const from = env.MAIL_FROM;
  if (!key) throw new MailNotConfigured("MAIL_API_KEY is not set");
  if (!from) throw new MailNotConfigured("MAIL_FROM is not set");
  const url = env.MAIL_API_URL || DEFAULT_MAIL_API_URL;
  return {
    async send(message) {
      const res = await guardedFetch(env, url, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ from, to: [message.to], subject: message.subject, text: message.text }),
        timeoutMs: 10_000,
        maxBytes: 16_384,
        maxRedirects: 0,
      });
      if (res.status < 200 || res.status >= 300)
        throw new Error(`the email service answered ${res.status}: ${res.text().slice(0, 200)}`);
    },
  };
}

export function mailerFor(env: Env): Mailer {
  if (env.MAIL_API_KEY) return httpMailer(env);
  if (isProduction(env)) throw new MailNotConfigured("MAIL_API_KEY is not set");
  return logMailer;
}

/** The origin mailed links point to: APP_ORIGIN, or outside production the request's own. */
export function linkOrigin(env: Env, requestUrl: string): string {
  if (env.APP_ORIGIN) return new URL(env.APP_ORIGIN).origin;
  if (isProduction(env)) throw new MailNotConfigured("APP_ORIGIN is not set");
  return new URL(requestUrl).origin;
}
