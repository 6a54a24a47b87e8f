import type { MiddlewareHandler } from "hono";
import { setOnFinalResponse } from "./final-header.js";

/** HSTS: a year, this host only (the service does not know what else runs under its parent domain). */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

/** Every answer over HTTPS tells the browser to use nothing else for this host (plain-HTTP local runs get none). */
export function withTransportSecurity(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (new URL(c.req.url).protocol === "https:")
      setOnFinalResponse(c, "Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
  };
}
