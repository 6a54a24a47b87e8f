import type { Env } from "../env.js";

/**
 * Variables the dashboard reads (docs/dashboard.md, "Mail"). Outside production, without
 * MAIL_API_KEY, mail is printed to the Worker's log instead of sent (`npm start` shows the links).
 */
export interface DashboardEnv {
  /** API key of the transactional email service (secret); set in production. */
  MAIL_API_KEY?: string;
  /** Sender of the dashboard's mail, e.g. "Contact Intelligence <no-reply@mail.example.com>" (a verified domain). */
  MAIL_FROM?: string;
  /** The email service's send endpoint; default Resend's (https://api.resend.com/emails). */
  MAIL_API_URL?: string;
  /** Origin put in mailed links (https://api.example.com); required in production so a forged Host header cannot steer them. */
  APP_ORIGIN?: string;
}

export type DashboardBindings = Env & DashboardEnv;

/** Where the dashboard lives, and its pages. */
export const APP = "/app";
export const PATHS = {
  overview: APP,
  signIn: `${APP}/sign-in`,
  signUp: `${APP}/sign-up`,
  signOut: `${APP}/sign-out`,
  confirm: `${APP}/confirm`,
  resendConfirmation: `${APP}/confirm/resend`,
  reset: `${APP}/reset`,
  newPassword: `${APP}/reset/new`,
  keys: `${APP}/keys`,
  tryIt: `${APP}/try`,
  bulk: `${APP}/bulk`,
  logs: `${APP}/logs`,
  leads: `${APP}/leads`,
  lists: `${APP}/lists`,
  webhooks: `${APP}/webhooks`,
  assets: `${APP}/assets`,
} as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;
