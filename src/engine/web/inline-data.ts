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

  /** The bytes of `chunk` worth keeping (the chunk itself when nothing is dropped). */
  push(chunk: Uint8Array): Uint8Array {
    let out: Uint8Array | null = null;
    let kept = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (this.skipping) {
        if (isPayloadByte(b)) {
          if (!out) {
            out = new Uint8Array(chunk.length);
            out.set(chunk.subarray(0, i));
            kept = i;
          }
          this.dropped++;
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
