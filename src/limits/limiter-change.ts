/**
 * The key-value changes of one limiter decision: every module of the limiter adds to it, and the
 * limiter writes them all in the decision's one storage transaction (AccountLimiter.persist).
 */
export class Change {
  writes: Record<string, unknown> = {};
  deletes: string[] = [];

  put(key: string, value: unknown) {
    this.writes[key] = value;
  }

  delete(key: string) {
    delete this.writes[key];
    this.deletes.push(key);
  }
}
