import { ExpiringMap } from "./expiring-map.js";

/**
 * Every piece of state an isolate keeps in memory between requests is declared here, once: what it
 * holds, who reads and writes it, its bound, how long an entry lives and what drops it sooner. The
 * modules that use a piece ask for it by name; this module creates it, so it is the one owner of
 * all of them and can reset them together (`resetIsolateState`, between test files). The table in
 * docs/storage.md ("Not storage: per-isolate memory") is checked against these declarations.
 *
 * Nothing here is shared between isolates or survives one: every piece is a cache of something
 * stored elsewhere, or work waiting to be sent, and must be correct when it starts empty.
 */
export interface IsolateStateDeclaration {
  /** What it holds, in the words docs/storage.md uses. */
  holds: string;
  /** The module that reads and writes it. */
  owner: string;
  kind: "expiring map" | "bounded map" | "per binding" | "value";
  /** Entries at most; null for a single value or one entry per binding object. */
  maxEntries: number | null;
  /** How long an entry is used. */
  lifetime: string;
  /** What drops an entry before its lifetime ends. */
  invalidatedBy: string;
  /**
   * Computed from the bundled code and data alone (the same in every isolate), so a reset keeps it:
   * emptying it would only make the next reader build it again.
   */
  derived?: true;
}

export const ISOLATE_STATE = {
  verifiedKeys: {
    holds: "verified keys (rows of a key and its accounts, per exact credential)",
    owner: "src/auth/auth-cache.ts",
    kind: "expiring map",
    maxEntries: 5_000,
    lifetime: "10 s (`AUTH_CACHE_TTL_MS`)",
    invalidatedBy: "revoking, resetting or deleting the key in this isolate",
  },
  lastUsedWrites: {
    holds: "last `last_used_at` write per key",
    owner: "src/auth/authenticate.ts",
    kind: "bounded map",
    maxEntries: 5_000,
    lifetime: "one write a minute per key",
    invalidatedBy: "nothing (the oldest entry goes beyond the bound)",
  },
  oauthServers: {
    holds: "OAuth authorization servers, per issuer",
    owner: "src/auth/oauth-config.ts",
    kind: "bounded map",
    maxEntries: 16,
    lifetime: "the isolate's",
    invalidatedBy: "nothing (the oldest entry goes beyond the bound)",
  },
  signInDummyHash: {
    holds: "a password hash that sign-in checks unknown e-mail addresses against (equal timing)",
    owner: "src/auth/password-sign-in.ts",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "nothing",
    derived: true,
  },
  meViews: {
    holds: "`/v1/me`'s workspace view per login",
    owner: "src/account/me-cache.ts",
    kind: "expiring map",
    maxEntries: 5_000,
    lifetime: "10 s",
    invalidatedBy: "a key change of the account in this isolate",
  },
  clientCountries: {
    holds: "the caller's country per client address (from `request.cf`)",
    owner: "src/platform/client-country.ts",
    kind: "expiring map",
    maxEntries: 5_000,
    lifetime: "10 min (`COUNTRY_TTL_MS`)",
    invalidatedBy: "nothing",
  },
  requestLogBatches: {
    holds: "request-log rows waiting to be sent, per queue binding",
    owner: "src/platform/request-log-queue.ts",
    kind: "bounded map",
    maxEntries: 8,
    lifetime: "`LOG_WAIT_MS` (20 ms) or 100 rows, then sent",
    invalidatedBy: "the send",
  },
  drizzleClients: {
    holds: "the drizzle client of a D1 binding",
    owner: "src/db/client.ts",
    kind: "per binding",
    maxEntries: null,
    lifetime: "the binding's",
    invalidatedBy: "nothing",
    derived: true,
  },
  webEvidence: {
    holds: "Gravatar and WKD evidence per address (whether a profile or a key exists)",
    owner: "src/engine/verify/web-evidence.ts",
    kind: "expiring map",
    maxEntries: 5_000,
    lifetime: "24 h",
    invalidatedBy: "nothing",
  },
  wkdDirectories: {
    holds: "which Web Key Directory methods a domain publishes (its policy files)",
    owner: "src/engine/verify/web-evidence.ts",
    kind: "expiring map",
    maxEntries: 2_000,
    lifetime: "24 h",
    invalidatedBy: "nothing",
  },
  claimLookups: {
    holds: "removal-claim lookups",
    owner: "src/engine/index/claims-cache.ts",
    kind: "expiring map",
    maxEntries: 10_000,
    lifetime: "`CLAIMS_CACHE_TTL_MS` (5 s)",
    invalidatedBy: "a claim recorded in this isolate",
  },
  claimKinds: {
    holds: "every claim of a kind, while the kind has at most 10,000 claims",
    owner: "src/engine/index/claims-cache.ts",
    kind: "expiring map",
    maxEntries: 8,
    lifetime: "`CLAIMS_CACHE_TTL_MS` (5 s)",
    invalidatedBy: "a claim recorded in this isolate (also voids reads still in flight)",
  },
  claimKindsGeneration: {
    holds: "how many claims this isolate recorded (voids kind reads that started before one)",
    owner: "src/engine/index/claims-cache.ts",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "nothing",
  },
  dnsResolvers: {
    holds: "DNS resolvers, each with its answer cache (record TTL capped at 1 h, 5,000 answers)",
    owner: "src/engine/dns/resolver.ts",
    kind: "bounded map",
    maxEntries: 4,
    lifetime: "the isolate's",
    invalidatedBy: "nothing (answers expire by their TTL)",
  },
  domainLists: {
    holds: "free, disposable and role lists built from the bundled data",
    owner: "src/engine/data/domain-lists.ts",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "nothing",
    derived: true,
  },
  regionCodes: {
    holds: "country names to region codes, built from the bundled data",
    owner: "src/engine/web/extract/company.ts",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "nothing",
    derived: true,
  },
  nameSpellings: {
    holds: "ASCII spellings of name parts",
    owner: "src/engine/people/names.ts",
    kind: "bounded map",
    maxEntries: 10_000,
    lifetime: "the isolate's",
    invalidatedBy: "nothing (emptied when full)",
    derived: true,
  },
  indexRings: {
    holds: "the consistent-hash rings of the index layouts in use",
    owner: "src/db/shards.ts",
    kind: "bounded map",
    maxEntries: 8,
    lifetime: "the isolate's",
    invalidatedBy: "nothing",
    derived: true,
  },
  indexLayouts: {
    holds:
      "the contact index's layout (which databases reads and writes go to), per main-database binding and INDEX_SHARDS value",
    owner: "src/db/shards.ts",
    kind: "per binding",
    maxEntries: null,
    lifetime: "`INDEX_LAYOUT_TTL_MS` (5 s)",
    invalidatedBy: "a layout written in this isolate (the reshard workflow's phase changes)",
  },
  indexBookmarks: {
    holds: "the newest D1 bookmark this isolate has seen per index database (where its next sessions start)",
    owner: "src/db/index-sessions.ts",
    kind: "per binding",
    maxEntries: null,
    lifetime: "the binding's",
    invalidatedBy: "a newer bookmark",
  },
  agentsAccountIds: {
    holds: "the shared agents account's id",
    owner: "src/agent/agents-account.ts",
    kind: "per binding",
    maxEntries: null,
    lifetime: "the D1 binding's",
    invalidatedBy: "nothing",
  },
  paymentProviders: {
    holds: "payment providers, per env object and realm (at most 16 realms each)",
    owner: "src/agent/payment-config.ts",
    kind: "per binding",
    maxEntries: null,
    lifetime: "the env object's",
    invalidatedBy: "nothing",
  },
  mcpCatalogues: {
    holds: "MCP tool catalogues, per capability list and surface",
    owner: "src/mcp/endpoint.ts",
    kind: "per binding",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "nothing",
    derived: true,
  },
  limiterClient: {
    holds:
      "this isolate's side of the account limiters: per account, its line of messages (admissions waiting, settlements, late charges and counts owed, the message in flight), its lease of credits, the balances last read (1 s, 5,000 accounts) and the 30-day windows known open (20,000)",
    owner: "src/limits/limiter-client.ts",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's; a line ends when nothing waits on it, a lease when the limiter ends it",
    invalidatedBy:
      "a message answered (what it owed is decided), a credit change for the account in this isolate (its balances)",
  },
  mcpToolSchemas: {
    holds: "MCP tool input and output schemas, per capability",
    owner: "src/mcp/tools.ts",
    kind: "per binding",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "nothing",
    derived: true,
  },
  dashboardCalls: {
    holds: "the dashboard's `/v1` calls under way, by their one-call token",
    owner: "src/auth/session-calls.ts",
    kind: "bounded map",
    maxEntries: 10_000,
    lifetime: "while its in-process call runs",
    invalidatedBy: "the call's answer (beyond the bound the oldest goes: its call answers 400)",
  },
  dashboardOutbox: {
    holds: "the last 50 messages the local mailer printed (outside production, without `MAIL_API_KEY`)",
    owner: "src/delivery/mail.ts",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "nothing (the oldest of 50 goes)",
  },
  tryItCatalog: {
    holds: 'the "Try it" forms: capabilities, parameters and prices from the `/v1` OpenAPI document',
    owner: "src/dashboard/routes/try-it.tsx",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "a failed build (read again)",
    derived: true,
  },
  dashboardBulkTypes: {
    holds: "the bulk types as `GET /v1/bulk/types` lists them",
    owner: "src/dashboard/routes/bulk.tsx",
    kind: "value",
    maxEntries: null,
    lifetime: "the isolate's",
    invalidatedBy: "a failed read (read again)",
    derived: true,
  },
} as const satisfies Record<string, IsolateStateDeclaration>;

export type IsolateStateName = keyof typeof ISOLATE_STATE;
type Declared<K extends IsolateStateDeclaration["kind"]> = {
  [N in IsolateStateName]: (typeof ISOLATE_STATE)[N]["kind"] extends K ? N : never;
}[IsolateStateName];

interface Resettable {
  reset(): void;
}

const live = new Map<IsolateStateName, Resettable>();
const isDerived = (name: IsolateStateName) => (ISOLATE_STATE[name] as IsolateStateDeclaration).derived === true;

// A module evaluated again (a test that loads a second copy) takes the piece over; that only one
// module asks for each name is checked on the sources (test/platform/isolate-state.test.ts).
function own<T extends Resettable>(name: IsolateStateName, piece: T): T {
  live.set(name, piece);
  return piece;
}

class ResettableExpiringMap<K, V> extends ExpiringMap<K, V> implements Resettable {
  reset(): void {
    this.clear();
  }
}

/** A Map that drops its oldest entry beyond `maxEntries`. */
export class BoundedMap<K, V> implements Resettable {
  private entries = new Map<K, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  reset(): void {
    this.entries = new Map();
  }
}

/** One entry per binding object (a D1 binding, an env object): it lives as long as the object does. */
export class PerBinding<K extends object, V> implements Resettable {
  private entries = new WeakMap<K, V>();

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    this.entries.set(key, value);
  }

  reset(): void {
    this.entries = new WeakMap();
  }
}

/** One value, empty until first set. */
export class IsolateValue<T> implements Resettable {
  private current: T | undefined;

  get(): T | undefined {
    return this.current;
  }

  set(value: T): T {
    this.current = value;
    return value;
  }

  reset(): void {
    this.current = undefined;
  }
}

export function expiringMap<K, V>(name: Declared<"expiring map">): ExpiringMap<K, V> {
  return own(name, new ResettableExpiringMap<K, V>(ISOLATE_STATE[name].maxEntries));
}

export function boundedMap<K, V>(name: Declared<"bounded map">): BoundedMap<K, V> {
  return own(name, new BoundedMap<K, V>(ISOLATE_STATE[name].maxEntries));
}

export function perBinding<K extends object, V>(name: Declared<"per binding">): PerBinding<K, V> {
  return own(name, new PerBinding<K, V>());
}

export function isolateValue<T>(name: Declared<"value">): IsolateValue<T> {
  return own(name, new IsolateValue<T>());
}

/**
 * Empties every piece of per-isolate state that holds something read from outside (D1, DNS, the
 * limiter, requests), as a new isolate would start; tests call it before each file.
 */
export function resetIsolateState(): void {
  for (const [name, piece] of live) if (!isDerived(name)) piece.reset();
}

/** The names of the pieces some module has asked for (every declaration should be in use). */
export function piecesInUse(): IsolateStateName[] {
  return [...live.keys()];
}
