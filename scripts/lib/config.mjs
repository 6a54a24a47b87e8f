// The one set of environment variables the local scripts read (docs/configuration.md).
// Pure (no Node built-ins): the test suite imports it inside workerd.

export const DEFAULT_PORT = 8787;

/**
 * PORT: where `npm start` serves (default 8787). BASE_URL: where the client scripts (`npm run
 * agent`, `npm run bulk`) send requests; by default the server `npm start` runs with the same PORT.
 * AGENT_BASE_URL is the older name of BASE_URL, still read by `npm run agent`.
 */
export function localConfig(env) {
  const rawPort = env.PORT ?? String(DEFAULT_PORT);
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) {
    throw new Error(`PORT must be a port number (1-65535), not "${rawPort}".`);
  }
  const base = env.BASE_URL || env.AGENT_BASE_URL || `http://localhost:${port}`;
  let url;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`BASE_URL must be an absolute http(s) URL such as http://localhost:${port}, not "${base}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`BASE_URL must be an http(s) URL, not "${base}".`);
  return { port, baseUrl: base.replace(/\/+$/, "") };
}

/** For the scripts: the configuration of this shell, or the message and exit code 2. */
export function localConfigOrExit() {
  try {
    return localConfig(process.env);
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
}
