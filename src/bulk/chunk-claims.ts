/**
 * A bulk job's chunks in flight and done (tables `claims`, `chunks`). A chunk sent to the queue
 * holds a claim until it is finished: the job's alarm sends it again when the claim runs out. Each
 * delivery that starts a chunk takes the next fencing token: only the latest delivery may record
 * its rows, and only it renews the claim.
 */
export class ChunkClaims {
  constructor(private readonly sql: SqlStorage) {}

  /** A delivery starts `chunk` of `run`: its claim runs until `due`; answers the delivery's fencing token. */
  begin(chunk: number, run: number, due: number): number {
    return this.sql
      .exec<{ token: number }>(
        `INSERT INTO claims (chunk, run, due, sends, token) VALUES (?, ?, ?, 1, 1)
         ON CONFLICT (chunk) DO UPDATE SET run = excluded.run, due = excluded.due, token = token + 1 RETURNING token`,
        chunk,
        run,
        due,
      )
      .one().token;
  }

  /** Renews the claim of the delivery holding `token`; false when another delivery holds the chunk now. */
  renew(chunk: number, run: number, token: number, due: number): boolean {
    return (
      this.sql.exec(`UPDATE claims SET due = ? WHERE chunk = ? AND run = ? AND token = ?`, due, chunk, run, token)
        .rowsWritten > 0
    );
  }

  /** The fencing token of the delivery holding `chunk` of `run`, if any. */
  token(chunk: number, run: number): number | undefined {
    return this.sql
      .exec<{ token: number }>(`SELECT token FROM claims WHERE chunk = ? AND run = ?`, chunk, run)
      .toArray()[0]?.token;
  }

  /** Claims new chunks of `run` (sent now), each until `due`. */
  claim(chunks: readonly number[], run: number, due: number): void {
    for (const chunk of chunks)
      this.sql.exec(`INSERT OR REPLACE INTO claims (chunk, run, due, sends) VALUES (?, ?, ?, 1)`, chunk, run, due);
  }

  /** Claimed chunks not finished whose claim ran out at `now`, with how many times each was sent. */
  overdue(now: number): { chunk: number; sends: number }[] {
    return this.sql
      .exec<{ chunk: number; sends: number }>(
        `SELECT chunk, sends FROM claims WHERE due <= ? AND chunk NOT IN (SELECT chunk FROM chunks) ORDER BY chunk`,
        now,
      )
      .toArray();
  }

  /** Chunks sent again: their claims run until `due`. */
  resent(chunks: readonly number[], due: number): void {
    for (const chunk of chunks)
      this.sql.exec(`UPDATE claims SET due = ?, sends = sends + 1 WHERE chunk = ?`, due, chunk);
  }

  /** When the first claim runs out, null when none is held. */
  firstDue(): number | null {
    return this.sql.exec<{ due: number | null }>(`SELECT min(due) AS due FROM claims`).one().due;
  }

  inFlight(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM claims`).one().n;
  }

  claimed(): Set<number> {
    return new Set(
      this.sql
        .exec<{ chunk: number }>(`SELECT chunk FROM claims`)
        .toArray()
        .map((r) => r.chunk),
    );
  }

  /**
   * The next chunks to send from `cursor` on, while fewer than `window` are in flight (not finished,
   * not claimed); answers them and where the next pick starts.
   */
  pick(cursor: number, total: number, window: number): { picked: number[]; cursor: number } {
    const inFlight = this.inFlight();
    const picked: number[] = [];
    if (inFlight >= window) return { picked, cursor };
    const finished = this.finishedFrom(cursor);
    const claimed = this.claimed();
    while (cursor < total && inFlight + picked.length < window) {
      if (!finished.has(cursor) && !claimed.has(cursor)) picked.push(cursor);
      cursor += 1;
    }
    return { picked, cursor };
  }

  /** Every claim goes (a run starts or ends). */
  clear(): void {
    this.sql.exec(`DELETE FROM claims`);
  }

  isFinished(chunk: number): boolean {
    return this.sql.exec(`SELECT 1 FROM chunks WHERE chunk = ?`, chunk).toArray().length > 0;
  }

  /** Chunks finished from `from` on. */
  finishedFrom(from: number): Set<number> {
    return new Set(
      this.sql
        .exec<{ chunk: number }>(`SELECT chunk FROM chunks WHERE chunk >= ?`, from)
        .toArray()
        .map((r) => r.chunk),
    );
  }

  /** `chunk` of `run` is finished: its claim goes. */
  finish(chunk: number, run: number, now: number): void {
    this.sql.exec(`INSERT OR IGNORE INTO chunks (chunk, run, at) VALUES (?, ?, ?)`, chunk, run, now);
    this.sql.exec(`DELETE FROM claims WHERE chunk = ?`, chunk);
  }

  finishedCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM chunks`).one().n;
  }
}
