import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describeError, errorTable, ReportedFailure } from "../../src/render/errors"

const srcRoot = join(__dirname, "../../src")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith(".ts") ? [full] : []
  })

/** Every `TaggedError("Tag")` declared under src/, with the stable code its class carries. */
const declaredErrors = () =>
  sourceFiles(srcRoot).flatMap((file) => {
    const text = readFileSync(file, "utf8")
    return [...text.matchAll(/TaggedError\("([A-Za-z]+)"\)/g)].map((m) => {
      // The class body runs to the next top-level closing brace.
      const end = text.indexOf("\n}\n", m.index)
      const body = text.slice(m.index, end === -1 ? undefined : end)
      const exported = text.slice(Math.max(0, text.lastIndexOf("\n", m.index)), m.index).includes("export ")
      return { tag: m[1]!, file, exported, code: /readonly code = "([^"]+)"/.exec(body)?.[1] ?? /get code\(\)|readonly code: [A-Z]\w+/.exec(body)?.[0] }
    })
  })

describe("render/errors.ts", () => {
  it("has a row for every tagged error declared under src/", () => {
    const declared = declaredErrors()
    expect(declared.length).toBeGreaterThan(50)
    const missing = declared.filter((d) => !(d.tag in errorTable)).map((d) => `${d.tag} (${d.file})`)
    expect(missing).toEqual([])
  })

  it("every declared error carries a stable kebab-case code", () => {
    const bad = declaredErrors().filter((d) => d.exported && d.tag !== "ReportedFailure" && (d.code === undefined || !/^[a-z0-9]+([-_][a-z0-9]+)*$|^get code\(\)$|^readonly code: [A-Z]\w+$/.test(d.code)))
    expect(bad.map((d) => `${d.tag}: ${String(d.code)}`)).toEqual([])
  })

  it("exit codes are 0, 1 or 2 (130 only for a run stopped by Ctrl-C) and statuses are HTTP error statuses", () => {
    for (const [tag, row] of Object.entries(errorTable)) {
      expect(tag === "RunInterrupted" ? [130] : [0, 1, 2], tag).toContain(row.exit)
      expect(row.status >= 400 && row.status < 600, tag).toBe(true)
    }
  })

  it("describes an error as one bounded line without control characters", () => {
    const long = new ReportedFailure({ code: "x", detail: `\u001b[31mred\u001b[0m ${"a".repeat(5000)}\nsecond line` })
    const d = describeError(long)
    expect(d.message).not.toContain("\u001b")
    expect(d.message).not.toContain("second line")
    expect(d.message.length).toBeLessThanOrEqual(1000)
    expect(d.outputPrinted).toBe(true)
    expect(describeError(new Error("boom")).code).toBe("internal")
  })
})
