/** Every bare specifier imported by a .ts/.tsx file under `dirs` whose package `root`/package.json depends on. */
export function bareImports(root: string, dirs: string[]): string[];
