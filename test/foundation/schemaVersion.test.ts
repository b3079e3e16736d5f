// A read of a current store loads no migration (StateStore.ts): the current version is a constant beside them.
import { describe, expect, it } from "vitest"
import { migrations } from "../../src/services/StateStore/migrations"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/schemaVersion"

describe("the state store's current schema version", () => {
  it("is the last migration's, and the migrations run in version order", () => {
    expect(CURRENT_SCHEMA_VERSION).toBe(migrations[migrations.length - 1]!.version)
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1))
  })
})
