import { describe, expect, it } from "vitest";
import { isDisposableDomain, isRoleLocalPart, isWebmailDomain, listSizes } from "../../src/engine/data/domain-lists.js";

describe("domain lists (maintained packages, loaded in workerd)", () => {
  it("loads every list with its expected order of magnitude", () => {
    const sizes = listSizes();
    expect(sizes.disposable).toBeGreaterThan(8_000);
    expect(sizes.webmail).toBeGreaterThan(3_000);
    expect(sizes.role).toBeGreaterThan(900);
  });

  it("knows throwaway services, including their subdomains, case-insensitively", () => {
    expect(isDisposableDomain("mailinator.com")).toBe(true);
    expect(isDisposableDomain("YOPmail.com")).toBe(true);
    expect(isDisposableDomain("guerrillamail.com.")).toBe(true);
    expect(isDisposableDomain("inbox.mailinator.com")).toBe(true);
    expect(isDisposableDomain("gmail.com")).toBe(false);
    expect(isDisposableDomain("stripe.com")).toBe(false);
    // A suffix walk must never end on a bare TLD.
    expect(isDisposableDomain("com")).toBe(false);
  });

  it("knows webmail providers and keeps disposable services out of that list", () => {
    for (const d of [
      "gmail.com",
      "outlook.com",
      "hotmail.com",
      "yahoo.com",
      "web.de",
      "gmx.de",
      "icloud.com",
      "proton.me",
      "aol.com",
    ]) {
      expect(isWebmailDomain(d), d).toBe(true);
    }
    // free-email-domains lists mailinator too; it must be disposable, not webmail.
    expect(isWebmailDomain("mailinator.com")).toBe(false);
    expect(isWebmailDomain("stripe.com")).toBe(false);
    expect(isWebmailDomain("mail.google.com")).toBe(false);
  });

  it("recognises role accounts, ignoring the +tag", () => {
    for (const l of ["info", "sales", "support", "Admin", "noreply", "sales+eu"])
      expect(isRoleLocalPart(l), l).toBe(true);
    for (const l of ["jane.doe", "jdoe", "marie"]) expect(isRoleLocalPart(l), l).toBe(false);
  });
});
