import { z } from "@hono/zod-openapi";

/**
 * Social profile fields of a person or a company row, under both names clients read: the neutral
 * ones this API uses (`microblog`, `professional_network`) and the older ones existing clients
 * parse (`twitter`, `linkedin`). Every response that carries a person's profiles (domain-search
 * `emails[]`, email-finder, author-finder, enrich, people, professional-network, leads) builds them
 * here, so the two names can never disagree.
 */

export interface SocialProfiles {
  /** Microblog profile URL (the service other APIs call twitter). */
  microblog: string | null | undefined;
  /** Professional-network profile URL (the service other APIs call linkedin). */
  professionalNetwork: string | null | undefined;
}

export const SocialFieldsSchema = z.object({
  microblog: z.string().nullable().openapi({ description: "Microblog profile URL" }),
  professional_network: z.string().nullable().openapi({ description: "Professional-network profile URL" }),
  twitter: z.string().nullable().openapi({ description: "Older name of `microblog`, same value" }),
  linkedin: z.string().nullable().openapi({ description: "Older name of `professional_network`, same value" }),
});

export type SocialFields = z.infer<typeof SocialFieldsSchema>;

export function socialFields(p: SocialProfiles): SocialFields {
  const microblog = p.microblog ?? null;
  const professional_network = p.professionalNetwork ?? null;
  return { microblog, professional_network, twitter: microblog, linkedin: professional_network };
}

/** No profile known: every name present, all null (strict clients expect the keys). */
export const NO_SOCIAL_FIELDS: SocialFields = socialFields({ microblog: null, professionalNetwork: null });
