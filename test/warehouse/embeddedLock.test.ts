import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { layer as embeddedLayer } from "../../src/services/Warehouse/embedded"
import { Warehouse } from "../../src/services/Warehouse/Warehouse"
import { exited, holdDuckDbFile, release } from "./lockHolder"

/** WARN lines as the CLI's logger receives them; `onLine` runs as each arrives. */
const warnings = (onLine: (line: string) => void = () => {}) => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (!LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) return
    const line = Array.isArray(message) ? message.join(" ") : String(message)
    lines.push(line)
    onLine(line)
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

const open = (file: string, maxRetries: number) =>
  Layer.build(embeddedLayer(file, { openRetry: { maxRetries, baseDelayMillis: 20, maxDelayMillis: 100 } })).pipe(
    Effect.flatMap((context) => Effect.provide(Effect.flatMap(Warehouse, (wh) => wh.execute("SELECT 42")), context)),
    Effect.scoped,
    Effect.provide(NodeContext.layer)
  )

describe("embedded warehouse: a file locked by another process", () => {
  it.live("retries the open (each retry announced), then fails with warehouse-locked naming the holder", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pcli-lock-")), "warehouse.duckdb")
    const logs = warnings()
    return Effect.acquireUseRelease(
      Effect.promise(() => holdDuckDbFile(file)),
      (holder) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(open(file, 2))
          expect(error._tag).toBe("WarehouseLocked")
          expect(error.code).toBe("warehouse-locked")
          expect(error.message).toBe(
            `the embedded warehouse ${file} is locked by another process (PID ${holder.pid}); gave up after 3 attempts`
          )
          expect(logs.lines).toHaveLength(2)
          expect(logs.lines[0]).toMatch(/^retrying \(2\/3\) in [\d.]+s: embedded warehouse /)
          expect(logs.lines[0]).toContain(`embedded warehouse ${file}: locked by another process (PID ${holder.pid})`)
          expect(logs.lines[1]).toMatch(/^retrying \(3\/3\) in /)
        }).pipe(Effect.provide(logs.layer)),
      (holder) => Effect.promise(() => release(holder))
    )
  })

  it.live("a lock released while retrying: the open succeeds", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pcli-lock-")), "warehouse.duckdb")
    return Effect.gen(function* () {
      const holder = yield* Effect.promise(() => holdDuckDbFile(file))
      // The holder goes away as soon as the first retry is announced.
      const logs = warnings(() => holder.kill("SIGKILL"))
      const result = yield* open(file, 30).pipe(Effect.provide(logs.layer))
      expect(result.rows).toEqual([[42]])
      expect(logs.lines.length).toBeGreaterThanOrEqual(1)
      yield* Effect.promise(() => exited(holder))
    })
  })
})
