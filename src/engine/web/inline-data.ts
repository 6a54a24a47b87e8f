/**
 * Drops the payload of base64 `data:` URIs (inline images, fonts) from a page's bytes as they
 * stream in. A 600 KB page whose hero images are inlined before the team section holds perhaps
 * 40 KB of markup and text: with the payloads gone, the page's byte limit is spent on what can
 * name a person, and the people after the images are not cut off. Only the payload goes (the
 * `data:image/png;base64,` prefix stays), so the markup around it is unchanged.
 */

const MARKER = new TextEncoder().encode(";base64,");

/**
 * Base64 letters and padding. Whitespace ends the payload: an unquoted attribute after it
 * (`src=data:…;base64,AAAA alt=Jane`) must survive; a payload folded over lines is only kept in part.
 */
function isPayloadByte(b: number): boolean {
  return (
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x30 && b <= 0x39) ||
    b === 0x2b ||
    b === 0x2f ||
    b === 0x3d
  );
}

export class InlineDataFilter {
  /** How many bytes of the marker the last bytes kept have matched. */
  private matched = 0;
  private skipping = false;
  /** Payload bytes dropped so far. */
  dropped = 0;
  /** Bytes seen so far (kept or dropped). */
  private seen = 0;
  /**
   * A page in UTF-16 (a byte-order mark first): the position parity of each character's ASCII byte
   * (0: little-endian, 1: big-endian), the other byte of an ASCII character being 0; null for a page
   * in an 8-bit or UTF-8 encoding. Without it the marker, spread over two bytes a letter, is never
   * seen, and a UTF-16 page with inline images is cut before its people.
   */
  private wide: 0 | 1 | null = null;
  private firstByte = -1;
  /** The high byte of a dropped payload letter is dropped with it. */
  private dropHigh = false;

  /** The bytes of `chunk` worth keeping (the chunk itself when nothing is dropped). */
  push(chunk: Uint8Array): Uint8Array {
    let out = null as Uint8Array | null;
    let kept = 0;
    const drop = (i: number) => {
      if (!out) {
        out = new Uint8Array(chunk.length);
        out.set(chunk.subarray(0, i));
        kept = i;
      }
      this.dropped++;
    };
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      const at = this.seen++;
      if (at === 0) this.firstByte = b;
      else if (at === 1)
        this.wide = this.firstByte === 0xff && b === 0xfe ? 0 : this.firstByte === 0xfe && b === 0xff ? 1 : null;
      // UTF-16: only the ASCII byte of a character is matched; the other must be 0.
      const letter = this.wide === null || at % 2 === this.wide;
      if (!letter) {
        if (this.dropHigh && b === 0) {
          this.dropHigh = false;
          drop(i);
          continue;
        }
        this.dropHigh = false;
        if (b !== 0) {
          this.matched = 0;
          this.skipping = false;
        }
        if (out) out[kept] = b;
        kept++;
        continue;
      }
      if (this.skipping) {
        if (isPayloadByte(b)) {
          drop(i);
          if (this.wide !== null) this.dropHigh = true;
          continue;
        }
        this.skipping = false;
      }
      if (out) out[kept] = b;
      kept++;
      const lower = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
      if (lower === MARKER[this.matched]) {
        this.matched++;
        if (this.matched === MARKER.length) {
          this.matched = 0;
          this.skipping = true;
        }
      } else this.matched = lower === MARKER[0] ? 1 : 0;
    }
    return out ? out.subarray(0, kept) : chunk;
  }
}
