/** The fixture network's module (built first when a file of it changed): `outbound(request)`. */
export function fixtureNetwork(): Promise<typeof import("../test/fixtures/outbound.js")>;
