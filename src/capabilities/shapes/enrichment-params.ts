import { z } from "@hono/zod-openapi";
import { queryBool } from "../../http/validation.js";

/** Shared by enrich, professional-network (and usable by the email finder): phone numbers at extra phone-credit cost. */
export const enrichMobileParam = queryBool().openapi({
  description: "true: add data.phone_data (one phone credit when a number is found)",
});

export const extraPhoneCost = (p: { enrich_mobile?: boolean }) => (p.enrich_mobile ? { phone: 1 } : {});

export const nullableRecord = z.record(z.string(), z.unknown()).nullable();
