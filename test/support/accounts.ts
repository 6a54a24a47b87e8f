import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { db } from "../../src/db/client.js";
import { accounts, apiKeys, workspaceMembers, workspaces } from "../../src/db/schema.js";
import { hashPassword, newKeyPair, sha256Hex } from "../../src/platform/crypto.js";

let counter = 0;

export interface TestAccount {
  accountId: number;
  keyId: number;
  key: string;
  secret: string;
  headers: Record<string, string>;
}

// PBKDF2 at 100k iterations is slow; hash once per isolate and reuse it for every test account.
let passwordHash: Promise<string> | undefined;

export async function createAccount(
  opts: {
    plan?: string;
    confirmed?: boolean;
    password?: boolean;
    subscriptionExpiresAt?: number | null;
    keyExpiresAt?: number | null;
  } = {},
): Promise<TestAccount> {
  const store = db(env.DB);
  passwordHash ??= hashPassword("correct horse battery staple");
  const [account] = await store
    .insert(accounts)
    .values({
      email: `user${++counter}-${crypto.randomUUID()}@example.test`,
      firstName: "Test",
      lastName: "User",
      passwordHash: opts.password === false ? null : await passwordHash,
      confirmed: opts.confirmed ?? true,
      plan: opts.plan ?? "pro",
      subscriptionExpiresAt: opts.subscriptionExpiresAt ?? null,
    })
    .returning();
  const key = await addKey(account!.id, opts.keyExpiresAt);
  return { accountId: account!.id, ...key };
}

export async function addKey(accountId: number, expiresAt: number | null = Date.now() + 86_400_000) {
  const { publicKey, secret } = newKeyPair();
  const [row] = await db(env.DB)
    .insert(apiKeys)
    .values({ accountId, name: "test", publicKey, secretHash: await sha256Hex(secret), expiresAt })
    .returning();
  return {
    keyId: row!.id,
    key: publicKey,
    secret,
    headers: { "X-Service-Key": publicKey, "X-Service-Secret": secret },
  };
}

/** Makes `member` act on `owner`'s account. */
export async function joinWorkspace(ownerAccountId: number, memberAccountId: number) {
  const store = db(env.DB);
  const [ws] = await store.insert(workspaces).values({ ownerAccountId, name: "Team" }).returning();
  await store.insert(workspaceMembers).values({ workspaceId: ws!.id, accountId: memberAccountId });
}

export function call(path: string, init: RequestInit = {}) {
  return exports.default.fetch(new Request(`https://api.test${path}`, init));
}

export async function json<T = any>(res: Response): Promise<T> {
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  return (await res.json()) as T;
}
