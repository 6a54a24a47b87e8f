/**
 * What a new password must be (sign-up, reset, change): long enough, not absurdly long, and not one
 * a guesser tries first: a well-known password, a run of a few characters repeated, or the account's
 * own address. Length does most of the work; the list only closes the obvious doors, the throttle
 * (password-sign-in.ts) the rest.
 */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * Passwords of at least MIN_PASSWORD_LENGTH characters found near the top of public breach
 * frequency lists, compared lower-cased with spaces removed.
 */
const COMMON_PASSWORDS = new Set([
  "1234567890",
  "0123456789",
  "0987654321",
  "12345678910",
  "123456789a",
  "qwertyuiop",
  "1q2w3e4r5t",
  "1qaz2wsx3edc",
  "qazwsxedc123",
  "asdfghjkl1",
  "zxcvbnm123",
  "qwerty1234",
  "qwerty12345",
  "qwerty123456",
  "password12",
  "password123",
  "password1234",
  "password12345",
  "passw0rd123",
  "iloveyou12",
  "iloveyou123",
  "letmein123",
  "welcome123",
  "welcome1234",
  "changeme123",
  "abcdefghij",
  "abcd123456",
  "abc1234567",
  "administrator",
  "admin12345",
  "baseball123",
  "football123",
  "princess123",
  "sunshine123",
  "superman123",
  "trustno1234",
]);

/** Why `password` will not do for the account at `email`, as a sentence for the form; null when it will. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `A password may be at most ${MAX_PASSWORD_LENGTH} characters.`;
  const folded = password.toLowerCase().replace(/\s+/g, "");
  const address = email.trim().toLowerCase();
  const localPart = address.split("@")[0] ?? "";
  if (folded === address.replace(/\s+/g, "") || (localPart.length >= 4 && folded.includes(localPart)))
    return "Choose a password that does not contain your email address.";
  if (COMMON_PASSWORDS.has(folded) || new Set(folded).size < 4)
    return "This password is among the first ones guessers try. Choose another.";
  return null;
}
