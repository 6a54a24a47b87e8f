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
  plans: `${APP}/plans`,
  settings: `${APP}/settings`,
  team: `${APP}/team`,
  attributes: `${APP}/attributes`,
  flags: `${APP}/flags`,
  assets: `${APP}/assets`,
} as const;

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../auth/password-policy.js";
