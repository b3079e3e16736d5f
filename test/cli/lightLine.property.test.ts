// The bin runs policy check, policy show and validate through the light entry (src/light.ts) when
// cli/lightLine.ts reads the whole line. Whatever the line, that reading must hand the command the
// very options @effect/cli's parser gives its handler in the full bundle; any other line is left to it.
import { Command } from "@effect/cli"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { describe, expect, it, vi } from "vitest"
import { readCommandLine } from "../../src/cli/argv"
import { lightOptions } from "../../src/cli/lightOptions"
import { readLightLine, readPlainLightLine } from "../../src/cli/lightLine"
import { rootCommand, rootTree } from "../../src/cli/root"
import { AppLayer } from "../../src/layers/AppLayer"

// The real command tree's handlers load these modules lazily: here they only record what they were given.
const { seen, recorder } = vi.hoisted(() => {
  const seen: Array<{ readonly command: string; readonly options: unknown }> = []
  const recorder = async () => {
    const { Effect } = await import("effect")
    return (command: string) => (options: unknown) => Effect.sync(() => void seen.push({ command, options }))
  }
  return { seen, recorder }
})
vi.mock("../../src/cli/policy.run", async () => {
  const record = await recorder()
  return { runCheck: record("policy check"), runShow: record("policy show") }
})
vi.mock("../../src/cli/validate.run", async () => ({ runValidate: (await recorder())("validate") }))

const cli = Command.run(rootCommand, { name: "pcli", version: "test" })
const tree = rootTree()

/** What @effect/cli hands the handler for `argv` (a line argv.ts read as `Run`), or undefined when it refuses the line. */
const parsedByEffectCli = async (argv: ReadonlyArray<string>) => {
  seen.length = 0
  const exit = await Effect.runPromiseExit(cli(["node", "pcli", ...argv]).pipe(Effect.provide(AppLayer)))
  return exit._tag === "Success" ? seen[0] : undefined
}

const PATHS = [["policy", "check"], ["policy", "show"], ["validate"], ["policy", "test"]]
const FLAGS = ["--output", "--principal-id", "--config", "--models", "--state-path", "--state-namespace", "--principal", "--capability", "--model", "--scope", "--log-level", "--OUTPUT", "--Model"]
const value = fc.oneof(
  fc.constantFrom("json", "text", "agent", "human", "apply", "stg_orders", "a=b", " spaced ", "-x", "--", "-", "ünï", "x.toml", "check"),
  fc.string({ maxLength: 6 })
)
const token = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...FLAGS) }, { weight: 3, arbitrary: value }, { weight: 1, arbitrary: fc.constantFrom(...FLAGS).map((f) => `${f}=json`) })
const COMMON = ["--output", "--principal-id", "--config", "--models", "--state-path", "--state-namespace"]
/** A light command's own flags, each at most once, in any order, with plain or odd values. */
const wellFormed = fc
  .tuple(
    fc.constantFrom(["policy", "check"], ["policy", "show"], ["validate"]),
    fc.shuffledSubarray(COMMON),
    fc.shuffledSubarray(["--principal", "--capability", "--model"], { minLength: 2 }),
    fc.array(value, { minLength: 9, maxLength: 9 })
  )
  .map(([path, common, check, values]) => {
    const flags = path[1] === "check" ? [...common, ...check] : common
    return [...path, ...flags.flatMap((f, i) => [f, f === "--output" ? (values[i]!.length % 2 === 0 ? "json" : "text") : values[i]!])]
  })
/** Lines with stray flags and words, which the light reading must leave alone or read as @effect/cli does. */
const anyLine = fc
  .tuple(fc.constantFrom(...PATHS), fc.array(fc.tuple(fc.constantFrom(...FLAGS), value), { maxLength: 6 }), fc.array(token, { maxLength: 2 }))
  .map(([path, pairs, stray]) => [...path, ...pairs.flat(), ...stray])
const line = fc.oneof(wellFormed, anyLine)

describe("the light reading of a command line", () => {
  it("gives the command exactly the options @effect/cli's parser gives it, whenever it reads the line", async () => {
    let read = 0
    await fc.assert(
      fc.asyncProperty(line, async (args) => {
        const commandLine = readCommandLine(tree, args)
        if (commandLine._tag !== "Run") return
        const light = readLightLine(commandLine.argv)
        if (light === undefined) return
        read++
        expect({ command: light.command, options: lightOptions(light) }).toEqual(await parsedByEffectCli(commandLine.argv))
      }),
      { numRuns: 400 }
    )
    // The generator must reach the light path often enough for the comparison to mean something.
    expect(read).toBeGreaterThan(40)
  })

  it("reads the usual lines, with every flag's value", async () => {
    const check = ["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "m", "--output", "json", "--state-path", "s.sqlite"]
    const light = readLightLine(check)
    expect(light?.command).toBe("policy check")
    expect(lightOptions(light!)).toEqual({
      output: "json",
      principalId: Option.none(),
      config: Option.none(),
      models: Option.none(),
      statePath: Option.some("s.sqlite"),
      stateNamespace: Option.none(),
      principal: "agent",
      capability: "apply",
      model: "m"
    })
    expect(await parsedByEffectCli(check)).toEqual({ command: "policy check", options: lightOptions(light!) })
  })

  it("leaves to the full bundle what it does not read plainly", () => {
    for (const argv of [
      ["policy", "check", "--principal", "agent", "--capability", "apply"], // a required flag missing
      ["validate", "extra"], // a positional word
      ["validate", "--output=json"], // an inline value
      ["validate", "--config", "-x"], // a value that looks like a flag
      ["validate", "--log-level", "debug"], // a built-in
      ["policy", "test"],
      ["run"]
    ]) {
      expect(readLightLine(argv)).toBeUndefined()
    }
  })

  it("reads a line without the manifest only as argv.ts and the light reading read it with the command tree", () => {
    let plain = 0
    fc.assert(
      fc.property(fc.oneof(line, fc.tuple(line, fc.constantFrom(["--output", "json"], ["--output", "JSON"], ["--output", "yaml"], ["--help"], ["-h"], ["--version"]), fc.nat()).map(([l, extra, at]) => [...l.slice(0, at % (l.length + 1)), ...extra, ...l.slice(at % (l.length + 1))])), (args) => {
        const read = readPlainLightLine(args)
        if (read === undefined) return
        plain++
        const commandLine = readCommandLine(tree, args)
        expect(commandLine).toEqual({ _tag: "Run", argv: args })
        expect(read).toEqual(readLightLine(args))
      }),
      { numRuns: 1000 }
    )
    expect(plain).toBeGreaterThan(40)
    // argv.ts refuses a value outside a flag's choices: the manifest's reading words that error.
    expect(readPlainLightLine(["validate", "--output", "yaml"])).toBeUndefined()
  })
})
