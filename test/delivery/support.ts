import { expect } from "vitest";
import { eventually } from "../support/settle.js";

export const RECEIVER = "https://receiver.test";

export interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** Whether the receiver had answered it when the log was read (`/held/<key>` waits for releaseHeld). */
  answered: boolean;
}

/** What the fixture receiver got for a key. */
export async function receivedBy(key: string): Promise<Received[]> {
  const res = await fetch(`${RECEIVER}/__log/${key}`);
  return ((await res.json()) as { requests: Received[] }).requests;
}

/** Waits until the receiver has at least `count` requests for `key`. */
export async function waitForRequests(key: string, count: number, timeout = 15_000): Promise<Received[]> {
  let got: Received[] = [];
  await eventually(
    async () => {
      got = await receivedBy(key);
      expect(got.length).toBeGreaterThanOrEqual(count);
    },
    { timeout, interval: 100 },
  );
  return got;
}

/** Lets the receiver answer every request held for `key` (`/held/<key>`), and later ones at once. */
export async function releaseHeld(key: string): Promise<void> {
  await fetch(`${RECEIVER}/__release/${key}`, { method: "POST" });
}

export const uniqueKey = () => crypto.randomUUID().replaceAll("-", "");
