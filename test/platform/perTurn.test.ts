import { Effect, Exit, Fiber } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { perTurn, seen } from "../../src/platform/perTurn"

/** Lets forked fibers run up to where they wait (Effect starts and resumes fibers in microtasks). */
const settle = () => new Promise<void>((done) => setImmediate(done))

type Step = "ask" | "change" | "turn"

describe("perTurn: one read per turn, never older than the caller", () => {
  it("every caller gets a read taken after it asked; callers of one turn share one read (vs a read per caller)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Step>("ask", "change", "turn"), { maxLength: 40 }), async (steps) => {
        // The file: a version that `change` moves on. The plain reference reads it once per caller, at the call.
        let version = 0
        let reads = 0
        const deferred: Array<() => void> = []
        const gate = perTurn(
          () => (reads++, version),
          (run) => void deferred.push(run)
        )
        const asked: Array<{ readonly at: number; readonly fiber: Fiber.RuntimeFiber<number> }> = []
        let turnsWithCallers = 0
        const turn = async () => {
          const due = deferred.splice(0)
          if (due.length > 0) turnsWithCallers++
          for (const run of due) run()
          await settle()
        }
        for (const step of steps) {
          if (step === "ask") {
            asked.push({ at: version, fiber: Effect.runFork(gate) })
            await settle()
          } else if (step === "change") version++
          else await turn()
        }
        await turn()
        for (const { at, fiber } of asked) {
          const exit = fiber.unsafePoll()
          expect(exit !== null && Exit.isSuccess(exit)).toBe(true)
          const got = (exit as Exit.Success<number, never>).value
          // Never older than what the caller would have read itself at the moment it asked.
          expect(got).toBeGreaterThanOrEqual(at)
          expect(got).toBeLessThanOrEqual(version)
        }
        // At most one read per turn that had callers, never more reads than callers.
        expect(reads).toBe(turnsWithCallers)
        expect(reads).toBeLessThanOrEqual(asked.length)
      }),
      { numRuns: 200 }
    )
  })

  it("a caller arriving while a read is being answered waits for the next turn", async () => {
    let version = 0
    const deferred: Array<() => void> = []
    const gate = perTurn(
      () => version,
      (run) => void deferred.push(run)
    )
    const first = Effect.runFork(gate)
    await settle()
    version = 1
    const second = Effect.runFork(gate)
    await settle()
    // Both asked before the read: both see 1.
    deferred.splice(0).forEach((run) => run())
    await settle()
    expect([first.unsafePoll(), second.unsafePoll()].map((e) => (e !== null && Exit.isSuccess(e) ? e.value : "waiting"))).toEqual([1, 1])
    const third = Effect.runFork(gate)
    await settle()
    expect(third.unsafePoll()).toBeNull()
    version = 2
    deferred.splice(0).forEach((run) => run())
    await settle()
    expect(third.unsafePoll()).toEqual(Exit.succeed(2))
  })

  it("with the default defer (setImmediate) concurrent callers share a read", async () => {
    let reads = 0
    const gate = perTurn(() => ++reads)
    expect(await Effect.runPromise(Effect.all([gate, gate, gate], { concurrency: "unbounded" }))).toEqual([1, 1, 1])
    expect(await Effect.runPromise(gate)).toBe(2)
  })
})

describe("seen: computed once, on first use", () => {
  it("computes a key's value once and keeps it", () => {
    const s = seen()
    const key = {}
    let n = 0
    expect(s.once(key, () => ++n)).toBe(1)
    expect(s.once(key, () => ++n)).toBe(1)
    expect(s.once({}, () => ++n)).toBe(2)
  })
})
