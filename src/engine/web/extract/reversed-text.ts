// Text the page's own CSS shows reversed: an element under `unicode-bidi: bidi-override;
// direction: rtl` renders its characters right to left, so "moc.emca@enaj" reads "jane@acme.com".
// The CSS is in the page's bytes (an inline style or a rule in a <style> block, which may come after
// the element), so a reader without a JavaScript engine can read it. Only a reversed text that is a
// well-formed address at the site's own domain is taken; any other reversed text is left as written.
import { acceptAddress } from "./email-addresses.js";

const OVERRIDE = /unicode-bidi\s*:\s*bidi-override/i;
const RTL = /direction\s*:\s*rtl/i;
const STYLE_BLOCK = /<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi;
const RULE = /([^{}]+)\{([^{}]*)\}/g;
// A rule's selector this reader follows: a class, optionally on a tag (".mail-r", "span.mail-r").
const CLASS_SELECTOR = /^[a-z]*\.([a-z_][\w-]*)$/i;

/** Whether a declaration block renders its text reversed. */
export function declaresReversed(css: string): boolean {
  return OVERRIDE.test(css) && RTL.test(css);
}

/**
 * The HTMLRewriter selector of the elements a page renders reversed: any inline style naming the
 * override (its direction checked on the element) and the classes its <style> blocks reverse.
 */
export function reversedSelector(body: string): string {
  const classes = new Set<string>();
  if (/bidi-override/i.test(body))
    for (const [, css = ""] of body.matchAll(STYLE_BLOCK))
      for (const [, selectors = "", declarations = ""] of css.matchAll(RULE)) {
        if (!declaresReversed(declarations)) continue;
        for (const s of selectors.split(",")) {
          const name = CLASS_SELECTOR.exec(s.trim())?.[1];
          if (name) classes.add(name);
        }
      }
  return ['[style*="bidi-override"]', ...[...classes].map((c) => `.${c}`)].join(", ");
}

/** The address a reversed text shows at `targetDomain`, or null (not an address, or another domain's). */
export function reversedAddress(text: string, targetDomain: string): string | null {
  const shown = [...text.trim()].reverse().join("");
  if (!/^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i.test(shown)) return null;
  return acceptAddress(shown, targetDomain);
}
