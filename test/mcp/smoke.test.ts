import { describe, expect, it } from "vitest";
import { createAccount } from "../support/accounts.js";
import { connect } from "./support.js";

describe("smoke", () => {
  it("lists and calls", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    console.log(client.getServerVersion(), client.getInstructions()?.slice(0, 40));
    const { tools } = await client.listTools();
    console.log(tools.length, tools.map((t) => t.name).join(" "));
    const r = await client.callTool({ name: "email-finder", arguments: { domain: "acme-widgets.test", first_name: "Jane", last_name: "Cooper" } });
    console.log(JSON.stringify(r).slice(0, 600));
    expect(r.isError).toBeFalsy();
  });
});
