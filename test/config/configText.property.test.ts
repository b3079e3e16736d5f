import { NodeContext } from "@effect/platform-node"
import { Cause, Effect, Exit, Option } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeConfigText, resolveAll } from "../../src/services/ProjectConfig/ProjectConfig"
import { canaryEnv, configText, leaksCanary } from "./generated"

const FILE = "/project/pcli.toml"

/** Every outcome of one decode: the loaded config, or the one expected failure; a defect is a test failure. */
const outcomes = (text: string): ReadonlyArray<Exit.Exit<unknown, unknown>> =>
  Effect.runSync(
    Effect.gen(function* () {
      const lazy = yield* Effect.exit(decodeConfigText(text, canaryEnv, FILE, "/project"))
      if (Exit.isFailure(lazy)) return [lazy]
      const each = yield* Effect.forEach(lazy.value.adapters, (ref) => Effect.exit(ref.resolve))
      return [lazy, ...each, yield* Effect.exit(resolveAll(lazy.value))]
    }).pipe(Effect.provide(NodeContext.layer))
  )

const printable = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))

describe("pcli.toml decoding over generated text", () => {
  it("never defects; fails with one coded line under 2,000 characters; never shows a secret (property)", () => {
    fc.assert(
      fc.property(configText, (text) => {
        for (const exit of outcomes(text)) {
          if (Exit.isSuccess(exit)) {
            expect(leaksCanary(printable(exit.value))).toBe(false)
            continue
          }
          expect(Cause.isDie(exit.cause)).toBe(false)
          const error = Option.getOrThrow(Cause.failureOption(exit.cause)) as { readonly code?: unknown; readonly message: string }
          expect(error.code).toMatch(/^[a-z]+(-[a-z]+)*$/)
          expect(error.message.length).toBeGreaterThan(0)
          expect(error.message.length).toBeLessThan(2000)
          expect(error.message).not.toMatch(/[\n\r\u0000-\u001f\u007f-\u009f\u202a-\u202e]/)
          expect(leaksCanary(error.message)).toBe(false)
        }
      }),
      { numRuns: 400 }
    )
  })
})
