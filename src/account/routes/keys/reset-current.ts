import type { ApiApp } from "../../../http/openapi.js";
import { resetCurrentRoute, targetKey } from "./current-key.js";
import { resetKey } from "./shared.js";

export function registerResetCurrentKey(v1: ApiApp) {
  v1.openapi(resetCurrentRoute, async (c) =>
    c.json(await resetKey(c, await targetKey(c, c.req.valid("json")?.id)), 200),
  );
}
