// Progress lines for slow script steps (each wrangler call takes a few seconds). Pure: the test
// suite imports it inside workerd.

/**
 * `step(label, fn)` writes "label…" before fn runs and " done (1.2 s)" (or " failed") after it, so
 * a person watching sees what the script is doing. `write` gets whole lines or line parts.
 */
export function stepper(write, now = () => Date.now()) {
  return function step(label, fn) {
    write(`${label}…`);
    const started = now();
    let result;
    try {
      result = fn();
    } catch (err) {
      write(" failed\n");
      throw err;
    }
    write(` done (${((now() - started) / 1000).toFixed(1)} s)\n`);
    return result;
  };
}
