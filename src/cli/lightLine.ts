// The light commands (policy check, policy show, validate, compile) read without @effect/cli: the bin sends
// a command line here after argv.ts has read it, and runs the command's light entry (src/light/) when
// this reads it fully. Anything unusual (a positional word, `--flag=value`, a value starting with `-`,
// a missing required flag, a built-in flag) is left to the full bundle, so its errors stay its own.
// test/cli/lightLine.property.test.ts checks every reading against @effect/cli's.

/** The flags every command takes (cli/options.ts), by name. */
const COMMON = ["--output", "--principal-id", "--config", "--models", "--state-path", "--state-namespace"] as const

const LIGHT = {
  "policy check": { flags: [...COMMON, "--principal", "--capability", "--model"], required: ["--principal", "--capability", "--model"] },
  "policy show": { flags: COMMON, required: [] },
  validate: { flags: COMMON, required: [] },
  compile: { flags: COMMON, required: [] }
} as const satisfies Record<string, { readonly flags: ReadonlyArray<string>; readonly required: ReadonlyArray<string> }>

export type LightCommand = keyof typeof LIGHT

/** Each light command's bundle in dist/ (built from src/light/<entry>.ts by scripts/build.mjs). */
export const LIGHT_BUNDLES: Readonly<Record<LightCommand, string>> = {
  "policy check": "pcli-policy-check",
  "policy show": "pcli-policy-show",
  validate: "pcli-validate",
  compile: "pcli-compile"
}

/** A light command line, read: the command and each given flag's value by flag name. */
export interface LightLine {
  readonly command: LightCommand
  readonly flags: Readonly<Record<string, string>>
}

/** Where the bin hands a light line to the light entry. */
export const LIGHT_LINE_KEY = Symbol.for("pcli/lightLine")

const commandOf = (argv: ReadonlyArray<string>): readonly [LightCommand, number] | undefined => {
  if (argv[0] === "validate" || argv[0] === "compile") return [argv[0], 1]
  if (argv[0] === "policy" && (argv[1] === "check" || argv[1] === "show")) return [`policy ${argv[1]}`, 2]
  return undefined
}

/** The light flags that take one of a few values (the command tree's choices): argv.ts refuses any other. */
const CHOICES: Readonly<Record<string, ReadonlyArray<string>>> = { "--output": ["text", "json"] }

/**
 * The bin's first reading, before it loads the command manifest: `args` as typed, when they are
 * already a plain light line (argv.ts would read them as a `Run` of these very words), else
 * undefined. test/cli/lightLine.property.test.ts checks it against argv.ts over the command tree.
 */
export const readPlainLightLine = (args: ReadonlyArray<string>): LightLine | undefined => {
  const light = readLightLine(args)
  if (light === undefined) return undefined
  const refused = Object.entries(CHOICES).some(([flag, allowed]) => light.flags[flag] !== undefined && !allowed.includes(light.flags[flag]!))
  return refused ? undefined : light
}

/** `argv` (a `Run` line from argv.ts: the command path, then its flags) as a light line, or undefined to leave it to the full bundle. */
export const readLightLine = (argv: ReadonlyArray<string>): LightLine | undefined => {
  const found = commandOf(argv)
  if (found === undefined) return undefined
  const [command, start] = found
  const { flags: known, required } = LIGHT[command]
  const flags: Record<string, string> = {}
  for (let i = start; i < argv.length; i += 2) {
    const name = argv[i]!
    const value = argv[i + 1]
    if (!(known as ReadonlyArray<string>).includes(name) || Object.hasOwn(flags, name)) return undefined
    if (value === undefined || value === "" || value.startsWith("-")) return undefined
    flags[name] = value
  }
  return required.every((name) => Object.hasOwn(flags, name)) ? { command, flags } : undefined
}
