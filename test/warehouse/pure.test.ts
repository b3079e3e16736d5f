import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { WorkspaceBinding } from "../../src/schemas/warehouse-api"
import { diffBindings } from "../../src/services/WarehouseClient/bindings"
import { decodeCell } from "../../src/services/WarehouseClient/cells"
import { warehouseIdOf } from "../../src/services/WarehouseClient/WarehouseClient"

const bindingsArb = fc
  .uniqueArray(
    fc.record({
      workspace_id: fc.integer({ min: 1, max: 20 }),
      binding_type: fc.constantFrom("BINDING_TYPE_READ_WRITE" as const, "BINDING_TYPE_READ_ONLY" as const)
    }),
    { selector: (b) => b.workspace_id, maxLength: 10 }
  )

const apply = (current: ReadonlyArray<WorkspaceBinding>, changes: ReturnType<typeof diffBindings>) => {
  const state = new Map(current.map((b) => [b.workspace_id, b.binding_type]))
  for (const add of changes.add) state.set(add.workspace_id, add.binding_type)
  for (const id of changes.remove) state.delete(id)
  return state
}

describe("pure helpers", () => {
  it("binding diff: applying it to the current bindings yields exactly the desired ones, and is empty when equal", () =>
    fc.assert(
      fc.property(bindingsArb, bindingsArb, (current, desired) => {
        const changes = diffBindings(current, desired)
        expect(apply(current, changes)).toEqual(new Map(desired.map((b) => [b.workspace_id, b.binding_type])))
        expect(diffBindings(desired, desired)).toEqual({ add: [], remove: [] })
      })
    ))

  it("warehouse id is the last non-empty http_path segment", () => {
    expect(warehouseIdOf("/sql/1.0/warehouses/abc123")).toBe("abc123")
    expect(warehouseIdOf("/sql/1.0/warehouses/abc123/")).toBe("abc123")
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 5 }), (segments) => {
        expect(warehouseIdOf("/" + segments.join("/"))).toBe(segments[segments.length - 1])
      })
    )
  })

  it("cells keep integers exact: LONG beyond 2^53 becomes a bigint", () => {
    expect(decodeCell("LONG", "42")).toBe(42)
    expect(decodeCell("LONG", "9007199254740993")).toBe(9007199254740993n)
    expect(decodeCell("BOOLEAN", "true")).toBe(true)
    expect(decodeCell("DECIMAL", "1.10")).toBe("1.10")
    expect(decodeCell("INT", null)).toBe(null)
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        const value = decodeCell("LONG", n.toString())
        expect(BigInt(value as number | bigint)).toBe(n)
      })
    )
  })
})
