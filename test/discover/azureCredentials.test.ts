import { describe, expect, it } from "vitest"
import * as fc from "fast-check"
import { azureCredentialSource } from "../../src/platform/ObjectStore/azure"

describe("Azure credential source", () => {
  it("connection string, then account + key, then the account with the default chain", () => {
    expect(azureCredentialSource({ connectionString: true, account: true, accountKey: true })).toBe("connection_string")
    expect(azureCredentialSource({ connectionString: false, account: true, accountKey: true })).toBe("shared_key")
    expect(azureCredentialSource({ connectionString: false, account: true, accountKey: false })).toBe("default_chain")
    expect(azureCredentialSource({ connectionString: false, account: false, accountKey: true })).toBe("none")
  })

  it("a connection string always wins; without one nothing is chosen without an account (property)", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (connectionString, account, accountKey) => {
        const source = azureCredentialSource({ connectionString, account, accountKey })
        if (connectionString) expect(source).toBe("connection_string")
        else if (!account) expect(source).toBe("none")
        else expect(source).not.toBe("connection_string")
      })
    )
  })
})
