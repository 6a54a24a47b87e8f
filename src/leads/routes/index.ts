import type { ApiApp } from "../../http/openapi.js";
import { registerCreateAttribute } from "./create-attribute.js";
import { registerCreateFlag } from "./create-flag.js";
import { registerCreateLead } from "./create-lead.js";
import { registerCreateList } from "./create-list.js";
import { registerCreateWebhook } from "./create-webhook.js";
import { registerDeleteAttribute } from "./delete-attribute.js";
import { registerDeleteLead } from "./delete-lead.js";
import { registerDeleteList } from "./delete-list.js";
import { registerDeleteWebhook } from "./delete-webhook.js";
import { registerDisableWebhook } from "./disable-webhook.js";
import { registerEnableWebhook } from "./enable-webhook.js";
import { registerGetAttribute } from "./get-attribute.js";
import { registerGetLead } from "./get-lead.js";
import { registerGetList } from "./get-list.js";
import { registerGetWebhook } from "./get-webhook.js";
import { registerListAttributes } from "./list-attributes.js";
import { registerListDeliveries } from "./list-deliveries.js";
import { registerListFlags } from "./list-flags.js";
import { registerListLeads } from "./list-leads.js";
import { registerListLists } from "./list-lists.js";
import { registerListWebhooks } from "./list-webhooks.js";
import { registerRotateWebhookSecret } from "./rotate-webhook-secret.js";
import { registerTestWebhook } from "./test-webhook.js";
import { registerUpdateAttribute } from "./update-attribute.js";
import { registerUpdateLead } from "./update-lead.js";
import { registerUpdateList } from "./update-list.js";
import { registerUpdateWebhook } from "./update-webhook.js";
import { registerWebhookDeliveries } from "./webhook-deliveries.js";
import { registerWebhookSecret } from "./webhook-secret.js";

/** Leads, lead lists, lead attributes, webhook configurations, the delivery log and flags under /v1. None is rate-limited except flags. */
export function registerLeadRoutes(v1: ApiApp) {
  // /leads/attributes... before /leads/{id}, and /webhooks/secret before /webhooks/{id}: the first match answers.
  registerListAttributes(v1);
  registerGetAttribute(v1);
  registerCreateAttribute(v1);
  registerUpdateAttribute(v1);
  registerDeleteAttribute(v1);

  registerListLeads(v1);
  registerGetLead(v1);
  registerCreateLead(v1);
  registerUpdateLead(v1);
  registerDeleteLead(v1);

  registerListLists(v1);
  registerGetList(v1);
  registerCreateList(v1);
  registerUpdateList(v1);
  registerDeleteList(v1);

  registerWebhookSecret(v1);
  registerRotateWebhookSecret(v1);
  registerListWebhooks(v1);
  registerCreateWebhook(v1);
  registerGetWebhook(v1);
  registerUpdateWebhook(v1);
  registerDeleteWebhook(v1);
  registerEnableWebhook(v1);
  registerDisableWebhook(v1);
  registerTestWebhook(v1);
  registerWebhookDeliveries(v1);
  registerListDeliveries(v1);

  registerListFlags(v1);
  registerCreateFlag(v1);
}
