import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { httpMailer, linkOrigin, localOutbox, MailNotConfigured, mailerFor } from "../../src/dashboard/mailer.js";
import type { Env } from "../../src/env.js";
import { Browser, confirmedUser, lastMail, newEmail, PASSWORD, pathOf, signUp } from "./support.js";

async function askReset(email: string, browser = new Browser()) {
  const csrf = await browser.csrfOf("/app/reset");
  return browser.post("/app/reset", { csrf, email });
}

describe("password reset", () => {
  it("mails a one-hour link; the new password works, the old one and every other session do not", async () => {
    const { email, browser: elsewhere, accountId } = await confirmedUser();
    const res = await askReset(email);
    expect(await res.text()).toContain("If an account uses this address, we sent it a link");
    const mail = lastMail(email);
    expect(mail.subject).toBe("Reset your password");
    expect(mail.link).toMatch(/^https:\/\/api\.test\/app\/reset\/new\?token=/);

    const browser = new Browser();
    const form = await browser.get(pathOf(mail.link));
    expect(form.status).toBe(200);
    const html = await form.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const token = /name="token" value="([^"]+)"/.exec(html)![1]!;
    const saved = await browser.post("/app/reset/new", { csrf, token, password: "a brand new password" });
    expect(saved.headers.get("location")).toBe("/app?ok=password-reset");
    expect((await browser.get("/app")).status).toBe(200);
    // The session opened before the reset is gone.
    expect((await elsewhere.get("/app")).status).toBe(303);
    // The link worked once.
    expect((await new Browser().get(pathOf(mail.link))).status).toBe(400);

    const signIn = async (password: string) => {
      const b = new Browser();
      return b.post("/app/sign-in", { csrf: await b.csrfOf("/app/sign-in"), email, password });
    };
    expect((await signIn(PASSWORD)).status).toBe(400);
    expect((await signIn("a brand new password")).status).toBe(303);
    expect(accountId).toBeGreaterThan(0);
  });

  it("refuses a weak new password (here: the account's address) and keeps the link usable", async () => {
    const { email } = await confirmedUser();
    await askReset(email);
    const browser = new Browser();
    const link = pathOf(lastMail(email).link);
    const html = await (await browser.get(link)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const token = /name="token" value="([^"]+)"/.exec(html)![1]!;
    const refused = await browser.post("/app/reset/new", { csrf, token, password: email });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("does not contain your email address");
    expect((await browser.get(link)).status).toBe(200);
  });

  it("answers the same for an address without an account, and mails nothing", async () => {
    const stranger = newEmail();
    const sent = localOutbox().length;
    const res = await askReset(stranger);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("If an account uses this address, we sent it a link");
    expect(localOutbox().filter((m) => m.to === stranger)).toHaveLength(0);
    expect(localOutbox().length).toBe(sent);
  });

  it("confirms the address too (the link reached its mailbox)", async () => {
    const { email, accountId } = await signUp();
    await askReset(email);
    const browser = new Browser();
    const html = await (await browser.get(pathOf(lastMail(email).link))).text();
    const [csrf, token] = [
      /name="csrf" value="([^"]+)"/.exec(html)![1]!,
      /name="token" value="([^"]+)"/.exec(html)![1]!,
    ];
    await browser.post("/app/reset/new", { csrf, token, password: "another good password" });
    expect(
      (await env.DB.prepare("SELECT confirmed FROM accounts WHERE id = ?")
        .bind(accountId)
        .first<{ confirmed: number }>())!.confirmed,
    ).toBe(1);
  });

  it("sends at most three messages an hour to one address", async () => {
    const { email } = await signUp(); // its confirmation was the first
    expect((await askReset(email)).status).toBe(200);
    expect((await askReset(email)).status).toBe(200);
    const refused = await askReset(email);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("the mailer", () => {
  const base = env as Env;

  it("sends through the email service's HTTPS API, with its key, from the configured sender", async () => {
    const box = `mail-${crypto.randomUUID()}`;
    const mailer = httpMailer({
      ...base,
      MAIL_API_KEY: "re_test_key",
      MAIL_FROM: "Contact Intelligence <no-reply@example.com>",
      MAIL_API_URL: `https://receiver.test/ok/${box}`,
    });
    await mailer.send({
      to: "jane@example.com",
      subject: "Confirm your email address",
      text: "Open https://api.test/app/confirm?token=x",
      link: "https://api.test/app/confirm?token=x",
    });
    const { requests } = await (await fetch(`https://receiver.test/__log/${box}`)).json<{
      requests: { method: string; headers: Record<string, string>; body: string }[];
    }>();
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe("POST");
    expect(requests[0]!.headers.authorization).toBe("Bearer re_test_key");
    expect(JSON.parse(requests[0]!.body)).toEqual({
      from: "Contact Intelligence <no-reply@example.com>",
      to: ["jane@example.com"],
      subject: "Confirm your email address",
      text: "Open https://api.test/app/confirm?token=x",
    });
  });

  it("fails loudly when the service refuses, and goes only where the egress guard allows", async () => {
    const failing = httpMailer({
      ...base,
      MAIL_API_KEY: "k",
      MAIL_FROM: "a@example.com",
      MAIL_API_URL: "https://receiver.test/fail/mail",
    });
    await expect(failing.send({ to: "x@example.com", subject: "s", text: "t", link: "l" })).rejects.toThrow(
      /answered 500/,
    );
    const internal = httpMailer({
      ...base,
      ENVIRONMENT: "production",
      MAIL_API_KEY: "k",
      MAIL_FROM: "a@example.com",
      MAIL_API_URL: "https://127.0.0.1/emails",
    });
    await expect(internal.send({ to: "x@example.com", subject: "s", text: "t", link: "l" })).rejects.toThrow();
  });

  it("in production needs its key, sender and link origin; elsewhere without a key it prints", async () => {
    const production = { ...base, ENVIRONMENT: "production" };
    expect(() => mailerFor(production)).toThrow(MailNotConfigured);
    expect(() => mailerFor({ ...production, MAIL_API_KEY: "k" })).toThrow(/MAIL_FROM/);
    expect(() => linkOrigin(production, "https://evil.example/app/reset")).toThrow(/APP_ORIGIN/);
    expect(linkOrigin({ ...production, APP_ORIGIN: "https://api.example.com/" }, "https://evil.example/x")).toBe(
      "https://api.example.com",
    );
    expect(linkOrigin(base, "http://localhost:8870/app/sign-up")).toBe("http://localhost:8870");
    expect(mailerFor(base)).not.toBeNull();
  });
});
