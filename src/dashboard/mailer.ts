/**
 * The dashboard's messages. The mailer itself (local log and outbox, or the HTTPS email service)
 * is src/delivery/mail.ts, shared with the /v1 routes that mail (team invitations).
 */
import type { MailMessage } from "../delivery/mail.js";

export {
  httpMailer,
  linkOrigin,
  localOutbox,
  type Mailer,
  type MailMessage,
  MailNotConfigured,
  mailerFor,
} from "../delivery/mail.js";

export function confirmationMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: "Confirm your email address",
    link,
    text: `Welcome to Contact Intelligence.\n\nConfirm your email address to start using your account and its API keys:\n\n${link}\n\nThe link works for 48 hours. If you did not sign up, ignore this message.\n`,
  };
}

/** To the owner of an address someone tried to sign up with again (the sign-up page says the same either way). */
export function alreadyRegisteredMessage(to: string, signInLink: string, resetLink: string): MailMessage {
  return {
    to,
    subject: "You already have an account",
    link: signInLink,
    text: `Someone (hopefully you) tried to create a Contact Intelligence account with this address, which already has one.\n\nSign in here:\n\n${signInLink}\n\nForgot your password? Choose a new one here:\n\n${resetLink}\n\nIf it was not you, ignore this message: nothing changed.\n`,
  };
}

export function resetMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: "Reset your password",
    link,
    text: `Someone (hopefully you) asked to reset the password of your Contact Intelligence account.\n\nChoose a new password here:\n\n${link}\n\nThe link works for one hour and once. If you did not ask for it, ignore this message: your password stays as it is.\n`,
  };
}
