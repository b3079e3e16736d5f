import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as fs from "node:fs"
import * as RateBudget from "../../src/services/EltApi/RateBudget"
import { tmpDir } from "./harness"

const options: RateBudget.RateBudgetOptions = { capacity: 3, refillPerSecond: 1, maxWaitMillis: 300_000, staleLockMillis: 60_000, lease: 1, leaseMillis: 1_000 }

/** File I/O runs on real time: wait (really) until the fiber has parked on the test clock. */
const untilSleeping = Effect.gen(function* () {
  for (let i = 0; i < 1000; i++) {
    if ((yield* TestClock.sleeps()).length > 0) return
    yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2)))
  }
})

/** Two budgets over one directory stand for two pcli processes on one machine. */
const twoProcesses = (dir: string) =>
  Effect.all([RateBudget.make(dir, options), RateBudget.make(dir, options)]).pipe(Effect.provide(NodeContext.layer))

describe("RateBudget (file token bucket shared across processes)", () => {
  it.effect("the bucket is shared: a second 'process' waits for refill once the first drained it", () =>
    Effect.gen(function* () {
      const dir = tmpDir("budget-share")
      const [a, b] = yield* twoProcesses(dir)
      yield* a.acquire("api.example")
      yield* a.acquire("api.example")
      yield* a.acquire("api.example")
      const waiting = yield* Effect.fork(b.acquire("api.example"))
      yield* untilSleeping
      yield* TestClock.adjust("100 millis")
      expect(yield* Fiber.poll(waiting)).toSatisfy((o: { _tag: string }) => o._tag === "None")
      yield* untilSleeping
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(waiting)
      // Other hosts have their own bucket.
      yield* b.acquire("other.example")
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".json")).length).toBe(2)
    })
  )

  it.effect("a throttle recorded by one process pauses the other until the window ends (max-merged)", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoProcesses(tmpDir("budget-throttle"))
      yield* a.recordThrottle("api.example", 10_000)
      yield* a.recordThrottle("api.example", 2_000)
      const waiting = yield* Effect.fork(b.acquire("api.example"))
      yield* untilSleeping
      yield* TestClock.adjust("9 seconds")
      expect((yield* Fiber.poll(waiting))._tag).toBe("None")
      yield* untilSleeping
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(waiting)
    })
  )

  it.effect("an unusable budget directory fails open", () =>
    Effect.gen(function* () {
      const file = `${tmpDir("budget-broken")}/plain-file`
      fs.writeFileSync(file, "")
      const [a] = yield* twoProcesses(`${file}/sub`)
      yield* a.acquire("api.example")
    })
  )
})
