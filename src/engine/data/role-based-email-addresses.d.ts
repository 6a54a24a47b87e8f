// The package ships no types: a CommonJS array of lowercase prefixes with category arrays attached.
declare module "role-based-email-addresses" {
  const prefixes: string[] & { MARKETING: string[]; NOTIFICATION: string[]; MEETING: string[]; OTHER: string[] };
  export default prefixes;
}
