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

/** Runs `make` once, on first use: later scenarios start from copies of earlier ones' projects. */
const once = <A>(make: () => Promise<A>) => {
  let made: Promise<A> | undefined
  return () => (made ??= make())
}

/** A copy of `root` after a compile that ran to the end (`root` itself is left as it was). */
const compiled = async (root: string) => {
  const copy = clone(root)
  expect((await compile(copy)).code).toBe(0)
  return copy
}

// The chain of projects the scenarios share: each stage is built once, from a copy of the one before.
const freshProduct = once(async () => productProject())
const afterPhaseA = once(async () => compiled(await freshProduct()))
const draftedOverPhaseA = once(async () => {
  const root = clone(await afterPhaseA())
  writeFileSync(join(root, SIDECAR), draftedSidecar)
  return root
})
const afterPhaseB = once(async () => compiled(await draftedOverPhaseA()))

interface Scenario {
  readonly name: string
  /** A project right before the compile under test (shared: never written to). */
  readonly setup: () => Promise<string>
  /** That project after the compile under test ran to the end, when a later scenario already needs it. */
  readonly done?: () => Promise<string>
}

const scenarios: ReadonlyArray<Scenario> = [
  { name: "Phase A of a fresh product (no backups)", setup: freshProduct, done: afterPhaseA },
  { name: "Phase B over a drafted sidecar (sidecar and manifest backed up)", setup: draftedOverPhaseA, done: afterPhaseB },
  {
    name: "Phase A again after a spec change (contract and manifest backed up)",
    setup: async () => {
      const root = clone(await afterPhaseB())
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
      const reference = await (scenario.done ?? (() => compiled(template)))()
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
