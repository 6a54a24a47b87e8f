/** A deferred SMTP check or finder search to run again (queue "smtp-retries", src/engine/verify/smtp-retries.ts). */
export interface SmtpRetryMessage {
  kind: "check" | "find";
  /** The address to check again ("check"). */
  email?: string;
  /** The domain whose pending finder searches are due ("find"). */
  domain?: string;
}

export const SMTP_RETRY_QUEUE = "smtp-retries";
