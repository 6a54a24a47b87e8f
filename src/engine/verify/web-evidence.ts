import type { Env } from "../../env.js";
import { expiringMap } from "../../platform/isolate-state.js";
import { guardedFetch } from "../web/egress.js";

/**
 * Evidence a Worker can gather itself, over HTTPS, that an address exists: a Gravatar profile for
 * its hash, or an OpenPGP key published for it in the domain's Web Key Directory. Either is
 * positive evidence (someone registered or published that exact address); their absence proves
 * nothing (most people have neither). Both go through the egress guard and are cached per isolate.
 * A domain's keys are asked for only by the methods it publishes: a Web Key Directory must serve a
 * policy file (draft-koch-openpgp-webkey-service, "Policy Flags"), looked up once per domain, so a
 * domain without one costs two requests, not two per address.
 */

export interface WebEvidence {
  gravatar: boolean;
  wkd: boolean;
}

const TTL_MS = 24 * 3_600_000;
const cache = expiringMap<string, WebEvidence>("webEvidence");
const directories = expiringMap<string, { advanced: boolean; direct: boolean }>("wkdDirectories");
const TIMEOUT_MS = 4_000;

async function digestHex(algorithm: "SHA-256" | "SHA-1", text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(algorithm, new TextEncoder().encode(text)));
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

const ZBASE32 = "ybndrfg8ejkmcpqxot1uwisza345h769";

/** z-base-32 (RFC 6189 §5.1.6), as WKD uses it for the SHA-1 of the local part: 20 bytes → 32 characters. */
export function zBase32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ZBASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ZBASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/** Gravatar's URL for an address: the SHA-256 of the trimmed, lower-cased address; `d=404` when there is none. */
export async function gravatarUrl(email: string): Promise<string> {
  return `https://gravatar.com/avatar/${hex(await digestHex("SHA-256", email.trim().toLowerCase()))}?d=404`;
}

/** A domain's WKD policy files: the advanced method's, then the direct one's. */
export const wkdPolicyUrls = (domain: string) => [
  `https://openpgpkey.${domain}/.well-known/openpgpkey/${domain}/policy`,
  `https://${domain}/.well-known/openpgpkey/policy`,
];

/** Which WKD methods `domain` publishes (its policy file answers), cached per domain. */
async function wkdDirectory(env: Env, domain: string, now: number) {
  const known = directories.get(domain, now, TTL_MS);
  if (known) return known;
  const [advanced = false, direct = false] = await Promise.all(wkdPolicyUrls(domain).map((u) => answers200(env, u)));
  const methods = { advanced, direct };
  directories.set(domain, methods, now);
  return methods;
}

/** The WKD lookups for an address (draft-koch-openpgp-webkey-service): the advanced method first, then the direct one. */
export async function wkdUrls(email: string): Promise<string[]> {
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at);
  const domain = email.slice(at + 1).toLowerCase();
  const hu = zBase32(await digestHex("SHA-1", local.toLowerCase()));
  const l = encodeURIComponent(local);
  return [
    `https://openpgpkey.${domain}/.well-known/openpgpkey/${domain}/hu/${hu}?l=${l}`,
    `https://${domain}/.well-known/openpgpkey/hu/${hu}?l=${l}`,
  ];
}

/** True when the URL answers 200; any refusal, failure or other status is "no evidence". */
async function answers200(env: Env, url: string): Promise<boolean> {
  try {
    const res = await guardedFetch(env, url, {
      method: "GET",
      timeoutMs: TIMEOUT_MS,
      maxBytes: 1,
      accept: /^$/,
      maxRedirects: 2,
    });
    return res.status === 200;
  } catch {
    return false;
  }
}

export async function webEvidence(env: Env, email: string, now = Date.now()): Promise<WebEvidence> {
  const key = email.trim().toLowerCase();
  const known = cache.get(key, now, TTL_MS);
  if (known) return known;
  const domain = key.slice(key.lastIndexOf("@") + 1);
  const [advanced, direct] = await wkdUrls(key);
  const published = async () => {
    const methods = await wkdDirectory(env, domain, now);
    return [methods.advanced ? advanced : null, methods.direct ? direct : null].filter((u): u is string => !!u);
  };
  const [gravatar, ...wkd] = await Promise.all([
    answers200(env, await gravatarUrl(key)),
    ...(await published()).map((u) => answers200(env, u)),
  ]);
  const evidence = { gravatar: gravatar === true, wkd: wkd.some(Boolean) };
  cache.set(key, evidence, now);
  return evidence;
}
