import type { AdmissionKeys } from "./admission-keys.js";
import type { ChargeDecision } from "./limiter-messages.js";

const PREFIX = "charge:";

/**
 * Late charges the limiter decided not to bill (the balance could not pay), kept by key in the
 * admission keys' table as `charge:<key>`: a charge sent again is answered the same, never billed
 * behind a reply already taken (money-defects.test.ts).
 *
 * Most limiters never refuse one, and a billed call's late charge looked its key up all the same
 * (one SQLite read per billed call, `npm run bench -- profile`). So whether this limiter holds any
 * refusal is read from storage once per object's life, and kept true once one is made: until then
 * no key is looked up. Never false while one is stored: a refusal sets it in the transaction that
 * writes it, and a new object reads it from storage (a flag left true after the sweep only looks
 * up a key for nothing).
 */
export class RefusedCharges {
  private any: boolean | undefined;

  constructor(private readonly keys: () => AdmissionKeys) {}

  /** The decision kept for charge `key`, or null when it was never refused. */
  find(key: string): ChargeDecision | null {
    this.any ??= this.keys().anyStartingWith(PREFIX);
    return this.any ? this.keys().find<ChargeDecision>(`${PREFIX}${key}`) : null;
  }

  /** Keeps the refusal of charge `key`, decided at `now`. */
  remember(key: string, now: number, decision: ChargeDecision): void {
    this.keys().remember(`${PREFIX}${key}`, now, decision);
    this.any = true;
  }
}
