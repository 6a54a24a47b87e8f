import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Optional agent identities registered on the agent surface. Enrollment grants nothing: paid
 * endpoints never read this table. It lets an operator put a name and a contact on a payer.
 */
export const agentEnrollments = sqliteTable(
  "agent_enrollments",
  {
    /** Public id handed back to the agent ("agt_..."). */
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    contact: text("contact").notNull(),
    /** Either a public key (PEM, JWK JSON or 0x address) or a DID; at least one is present. */
    publicKey: text("public_key"),
    did: text("did"),
    createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [index("agent_enrollments_did_idx").on(t.did)],
);

export type AgentEnrollment = typeof agentEnrollments.$inferSelect;
