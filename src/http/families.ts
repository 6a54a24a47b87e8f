/**
 * Route families: the parts of the app (OAuth pages, /v1/bulk, /v1/leads, the capabilities, ...)
 * whose modules are imported, and whose routes are built, on the first request that may need them
 * rather than when an isolate starts. Building every zod schema and OpenAPI route of every family
 * at startup cost most of the Worker's startup time, and one request needs one family.
 *
 * A family says where its routes live as path prefixes of one or two segments ("/oauth",
 * "/v1/bulk"). A request needs the families that claim its first segment or its first two; under a
 * parent prefix ("" for the root, "/v1") a path no family claims goes to the parent's fallback
 * family. The app built for a request then holds every route that can match its path, in the
 * order the complete app would hold them, so it answers exactly as the complete app would (404,
 * 405 with Allow, the middlewares that run). test/http/families.test.ts checks every route of
 * every family against these claims.
 */
export interface Family<T, D> {
  readonly name: string;
  /** Where its routes are mounted: their paths start with this ("/", "/v1", "/operator"). */
  readonly at: string;
  /** The prefixes under which all of the family's routes live; none for a fallback family. */
  readonly prefixes: readonly string[];
  /** Imports the family's modules and builds it (once per app). */
  readonly build: (deps: D) => Promise<T>;
}

/** A family of any kind (each builds its own type of sub-app). */
type AnyFamily<D> = Family<unknown, D>;

export class FamilyIndex<D> {
  private readonly claims = new Map<string, AnyFamily<D>[]>();
  private readonly fallbacks = new Map<string, AnyFamily<D>>();
  /** Every family, in the order given. */
  readonly all: readonly AnyFamily<D>[];

  /**
   * @param families every family, with its prefixes
   * @param fallbacks by parent prefix ("" for the root): the family serving the paths under it that
   *   no family claims
   * @param framePaths prefixes served by the app's frame (routes built at startup): claimed, so
   *   they need no fallback
   */
  constructor(
    families: readonly AnyFamily<D>[],
    fallbacks: Record<string, AnyFamily<D>>,
    framePaths: readonly string[] = [],
  ) {
    this.all = families;
    for (const prefix of framePaths) this.claims.set(prefix, this.claims.get(prefix) ?? []);
    for (const family of families) {
      for (const prefix of family.prefixes) {
        if (!/^(\/[^/]*){1,2}$/.test(prefix))
          throw new Error(`${family.name}: a family prefix is one or two path segments, not ${prefix}`);
        this.claims.set(prefix, [...(this.claims.get(prefix) ?? []), family]);
      }
    }
    for (const [parent, family] of Object.entries(fallbacks)) this.fallbacks.set(parent, family);
  }

  /** The families a request for `path` (as hono reads it: hono/utils/url getPath) may need. */
  familiesFor(path: string): AnyFamily<D>[] {
    const [, first = "", second] = path.split("/");
    const needed = new Set<AnyFamily<D>>();
    let parent = "";
    for (const segment of second === undefined ? [first] : [first, second]) {
      const prefix = `${parent}/${segment}`;
      const claimed = this.claims.get(prefix);
      if (claimed) for (const family of claimed) needed.add(family);
      else {
        const fallback = this.fallbacks.get(parent);
        if (fallback) needed.add(fallback);
      }
      parent = prefix;
    }
    return [...needed];
  }
}

/**
 * Builds each family once, on demand, and counts what is built: an app composed from the built
 * families is current while `built` has not changed. A family that failed to build keeps failing
 * (its modules are half-evaluated; a retry would not start them again).
 */
export class FamilyLoader<D> {
  private readonly pending = new Map<AnyFamily<D>, Promise<unknown>>();
  private readonly ready = new Map<AnyFamily<D>, unknown>();

  constructor(private readonly deps: D) {}

  /** How many families are built; grows by one with each. */
  get built(): number {
    return this.ready.size;
  }

  /** The names of the built families, in the order they were built. */
  names(): string[] {
    return [...this.ready.keys()].map((f) => f.name);
  }

  /** The built family, or undefined while it is not. */
  get<T>(family: Family<T, D>): T | undefined {
    return this.ready.get(family) as T | undefined;
  }

  /** The built family; throws when it is not built yet (for use after `load`). */
  loaded<T>(family: Family<T, D>): T {
    const built = this.get(family);
    if (built === undefined) throw new Error(`The route family '${family.name}' is used before it is built.`);
    return built;
  }

  /** Every family built (the already built ones at once, without waiting a turn). */
  async load(families: readonly AnyFamily<D>[]): Promise<void> {
    const missing = families.filter((f) => !this.ready.has(f));
    if (missing.length) await Promise.all(missing.map((f) => this.loadOne(f)));
  }

  private loadOne<T>(family: Family<T, D>): Promise<T> {
    let pending = this.pending.get(family) as Promise<T> | undefined;
    if (!pending) {
      pending = family.build(this.deps).then((built) => {
        this.ready.set(family, built);
        return built;
      });
      this.pending.set(family, pending);
    }
    return pending;
  }
}
