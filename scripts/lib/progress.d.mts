// Types for progress.mjs (the test suite imports it).
export declare function stepper(
  write: (text: string) => void,
  now?: () => number,
): <T>(label: string, fn: () => T) => T;
