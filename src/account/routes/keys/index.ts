import type { ApiApp } from "../../../http/openapi.js";
import { registerCreateKey, registerCreateKeyFromTemplate } from "./create.js";
import { registerGetKey } from "./get.js";
import { registerListKeys } from "./list.js";
import { registerRenameKey } from "./rename.js";
import { registerResetKey } from "./reset.js";
import { registerResetCurrentKey } from "./reset-current.js";
import { registerRevokeKey } from "./revoke.js";
import { registerRevokeCurrentKey } from "./revoke-current.js";

/** API keys under /v1/keys; each route carries its fixed limit (keys:read or keys:write). */
export function registerKeyRoutes(v1: ApiApp) {
  registerListKeys(v1);
  registerCreateKey(v1);
  registerGetKey(v1);
  registerRenameKey(v1);
  registerResetKey(v1);
  registerRevokeKey(v1);
  registerCreateKeyFromTemplate(v1);
  registerResetCurrentKey(v1);
  registerRevokeCurrentKey(v1);
}
