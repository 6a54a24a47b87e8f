import type { ApiApp } from "../../../http/openapi.js";
import { registerGetLog } from "./get.js";
import { registerListLogs } from "./list.js";

/** The account's request log under /v1/logs (not rate-limited). */
export function registerLogRoutes(v1: ApiApp) {
  registerListLogs(v1);
  registerGetLog(v1);
}
