import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { parseableSql, substituteWindow } from "../../src/services/Project/sql"

// parseableSql skips texts without `@`; the plain definition substitutes the epoch everywhere.
const fragment = fc.constantFrom("@start_date", "@end_date", "@start_datex", "@", "@end", " ", "SELECT ", "'x'", "\n", "é", "$&", "a")
const sqlText = fc.oneof(fc.string(), fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join("")))

describe("parseableSql", () => {
  it("equals the epoch window substituted into the text", () => {
    fc.assert(
      fc.property(sqlText, (sql) => {
        expect(parseableSql(sql)).toBe(substituteWindow(sql, new Date(0), new Date(0)))
      }),
      { numRuns: 500 }
    )
  })

  it("replaces whole placeholders only", () => {
    expect(parseableSql("WHERE t >= @start_date AND t < @end_date AND @start_datex")).toBe(
      "WHERE t >= '1970-01-01 00:00:00' AND t < '1970-01-01 00:00:00' AND @start_datex"
    )
  })
})
