/**
 * Stand-in for `ajv` and `ajv-formats` (wrangler.toml [alias]). The MCP SDK's `Server` imports its
 * ajv validator statically even when it is given another one; this Worker always passes the SDK's
 * @cfworker/json-schema validator (ajv compiles schemas with `new Function`, which workerd forbids),
 * so ajv would only add ~290 KB of dead code to the bundle. Using it is a bug, and says so.
 */
export default function absent(): never {
  throw new Error("ajv is not bundled in this Worker: give the MCP SDK the @cfworker/json-schema validator.");
}
