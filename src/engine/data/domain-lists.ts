import { disposableEmailBlocklist } from "disposable-email-domains-js";
import { isolateValue } from "../../platform/isolate-state.js";
import { FREE_EMAIL_DOMAINS } from "./free-email-domains.js";
import roleAddresses from "./role-addresses.json";

/**
 * Domain and local-part lists from maintained packages (see data/free-email-domains.md for the
 * vendored one). Sets are built lazily, once per isolate: building them costs a few milliseconds
 * and most requests (auth, keys, logs) never need them.
 */

interface Lists {
  disposable: Set<string>;
  webmail: Set<string>;
  role: Set<string>;
}

const lists = isolateValue<Lists>("domainLists");

function load(): Lists {
  const built = lists.get();
  if (built) return built;
  // disposable-email-domains-js (CC0, maintained) rather than mailchecker's larger list (56k): that
  // list's single 1 MB module breaks the test runner's 1 MiB module transport in workerd.
  const disposable = new Set<string>();
  for (const d of disposableEmailBlocklist()) disposable.add(d.toLowerCase());
  // The free-provider list also carries throwaway services (the vendoring script leaves them out,
  // and this leaves out those the disposable package lists since); an address is one or the other,
  // and disposable is the stronger (riskier) verdict.
  const webmail = new Set<string>();
  for (const d of FREE_EMAIL_DOMAINS.split("\n")) {
    const domain = d.toLowerCase();
    if (!isListed(disposable, domain)) webmail.add(domain);
  }
  const role = new Set<string>(roleAddresses.map((r) => r.toLowerCase()));
  return lists.set({ disposable, webmail, role });
}

/** True when `domain` or one of its parent domains is in `set` (throwaway services hand out subdomains). */
function isListed(set: Set<string>, domain: string): boolean {
  let d = domain;
  for (;;) {
    if (set.has(d)) return true;
    const dot = d.indexOf(".");
    if (dot < 0) return false;
    d = d.slice(dot + 1);
    if (!d.includes(".")) return false; // never match a bare TLD
  }
}

function clean(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, "");
}

export function isDisposableDomain(domain: string): boolean {
  return isListed(load().disposable, clean(domain));
}

/** Free webmail providers (gmail.com, outlook.com, web.de, ...), exact domain only, disposable ones excluded. */
export function isWebmailDomain(domain: string): boolean {
  return load().webmail.has(clean(domain));
}

/**
 * Role accounts (info@, sales@, support@): addresses of a function rather than a person. The
 * sub-address (+tag) is ignored, so `sales+eu@` is a role account too.
 */
export function isRoleLocalPart(localPart: string): boolean {
  const base = localPart.toLowerCase().replace(/\+.*$/s, "");
  return load().role.has(base);
}

export function listSizes(): { disposable: number; webmail: number; role: number } {
  const l = load();
  return { disposable: l.disposable.size, webmail: l.webmail.size, role: l.role.size };
}
