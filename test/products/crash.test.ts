import { cpSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commitSteps } from "../../src/services/Products/commit"
import { draftedSidecar, generationFiles, pcli, productProject, specText } from "./support"

const SIDECAR = "models/orders_weekly_mart.toml"
const compile = (root: string, env: Record<string, string> = {}) => pcli(root, ["product", "compile", "orders_weekly", "--output", "json"], env)

const clone = (root: string) => {
  const dir = mkdtempSync(join(tmpdir(), "pcli-crash-"))
  cpSync(root, dir, { recursive: true })
  return dir
}

interface Scenario {
  readonly name: string
  /** A project right before the compile under test. */
  readonly setup: () => Promise<string>
}

const scenarios: ReadonlyArray<Scenario> = [
  { name: "Phase A of a fresh product (no backups)", setup: async () => productProject() },
  {
    name: "Phase B over a drafted sidecar (sidecar and manifest backed up)",
    setup: async () => {
      const root = productProject()
      expect((await compile(root)).code).toBe(0)
      writeFileSync(join(root, SIDECAR), draftedSidecar)
      return root
    }
  },
  {
    name: "Phase A again after a spec change (contract and manifest backed up)",
    setup: async () => {
      const root = productProject()
      expect((await compile(root)).code).toBe(0)
      writeFileSync(join(root, SIDECAR), draftedSidecar)
      expect((await compile(root)).code).toBe(0)
      writeFileSync(join(root, "products/orders_weekly.toml"), specText().replace("Decimal(12,2)", "Decimal(14,2)"))
      return root
    }
  }
]

// After these steps the manifest (the commit marker) is in place: the new generation stands.
const COMMITTED = new Set(["rename-2", "backups-removed", "journal-removed"])

describe("crash injection: a compile SIGKILLed after each commit step", () => {
  it("lists every step of the protocol: stage, journal, each rename, cleanup", () => {
    expect(commitSteps(2)).toEqual(["stage", "journal", "rename-1", "rename-2", "backups-removed", "journal-removed"])
  })

  for (const scenario of scenarios) {
    it(`${scenario.name}: the next compile finds exactly the previous or the new generation`, async () => {
      const template = await scenario.setup()
      const previous = generationFiles(template)
      const reference = clone(template)
      const done = await compile(reference)
      expect(done.code).toBe(0)
      const next = generationFiles(reference)
      expect(next).not.toEqual(previous)
      // What a further compile makes of the new generation (the following phase, or the same bytes).
      const onward = clone(reference)
      expect((await compile(onward)).code).toBe(0)
      const afterNext = generationFiles(onward)

      for (const step of commitSteps(2)) {
        const root = clone(template)
        const crashed = await compile(root, { PCLI_TEST_CRASH_AFTER: step })
        expect([step, crashed.code, crashed.stdout]).toEqual([step, -1, ""])
        // The next compile recovers first; stop it right there to look at what recovery left.
        const recovered = await compile(root, { PCLI_TEST_CRASH_AFTER: "recovered" })
        expect(recovered.code).toBe(-1)
        expect([step, generationFiles(root)]).toEqual([step, COMMITTED.has(step) ? next : previous])
        // A compile that runs to the end continues from whichever generation stands.
        const finished = await compile(root)
        expect([step, finished.code]).toEqual([step, 0])
        expect([step, generationFiles(root)]).toEqual([step, COMMITTED.has(step) ? afterNext : next])
      }
    })
  }
})
