import { isRoleLocalPart } from "../data/domain-lists.js";
import {
  DEPARTMENT_RULES,
  type Department,
  ROLE_DEPARTMENTS,
  SENIORITY_RULES,
  type Seniority,
} from "../data/position-keywords.js";

export { DEPARTMENTS, type Department, SENIORITIES, type Seniority } from "../data/position-keywords.js";

/**
 * Department and seniority read from a job title or a role address's local part, by the keyword
 * rules of data/position-keywords.ts (the first rule whose pattern matches wins).
 */

export function departmentOf(position: string | null | undefined): Department | null {
  if (!position) return null;
  return DEPARTMENT_RULES.find(([re]) => re.test(position))?.[1] ?? null;
}

export function seniorityOf(position: string | null | undefined): Seniority | null {
  if (!position) return null;
  return SENIORITY_RULES.find(([re]) => re.test(position))?.[1] ?? null;
}

export function departmentOfRoleAddress(localPart: string): Department | null {
  const key = localPart.toLowerCase().replace(/\+.*$/s, "").replace(/[._-]/g, "");
  return ROLE_DEPARTMENTS[key] ?? null;
}

/** A mailbox of a function rather than a person: the maintained role list, plus the localised role words of ROLE_DEPARTMENTS (karriere@, presse@). */
export function isGenericLocalPart(localPart: string): boolean {
  return isRoleLocalPart(localPart) || departmentOfRoleAddress(localPart) !== null;
}

/**
 * A role address that cannot also be someone's initials: "md@", "pm@" and "la@" are role codes
 * on most sites and a person's initials on a domain whose format is {f}{l}, so those are
 * decided by what the page shows next to them (a name that fits), not by the list alone.
 */
export function isRoleOnly(localPart: string): boolean {
  return isGenericLocalPart(localPart) && !/^[a-z]{2,3}$/.test(localPart.toLowerCase());
}
