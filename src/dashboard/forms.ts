import { z } from "@hono/zod-openapi";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./config.js";

/** Form fields the dashboard's zod schemas share, with the messages a person reads. */
export const NewPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`)
  .max(MAX_PASSWORD_LENGTH, `A password has at most ${MAX_PASSWORD_LENGTH} characters.`);

export const EmailField = z.string().trim().max(254).email("Enter an email address like jane@example.com.");

/** The first problem of a form, as the page shows it. */
export const firstIssue = (e: z.ZodError) => e.issues[0]?.message ?? "Check the form.";
