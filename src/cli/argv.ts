// Reads the command line before @effect/cli does: finds the command, moves global flags given
// before it to after it, answers --help, and words the common mistakes itself (unknown flag
// with a suggestion, missing value, repeated flag, bad choice), one line each. A plain line is
// also read in full (each flag's values, the positional words), so a light entry (src/light/) can
// run it without @effect/cli; test/cli/lightReading.property.test.ts checks that reading against it.
import { AutoCorrect } from "@effect/cli"
import * as CliConfig from "@effect/cli/CliConfig"
import { stripVTControlCharacters } from "node:util"
import { type CommandLineNode, type FlagSpec, orderedChildren } from "./commandLine"

export type CommandLine<N = unknown> =
  | { readonly _tag: "Help"; readonly node: N }
  | { readonly _tag: "Run"; readonly argv: ReadonlyArray<string>; readonly read: ReadLine | undefined }
  | { readonly _tag: "Invalid"; readonly message: string; readonly valueCode?: string | undefined }

/**
 * A line read in full, as @effect/cli would read it: the command, each given flag's values by flag
 * name (none for a switch) and the positional words. Only for plain lines; anything @effect/cli may
 * read otherwise (a built-in flag, `--flag=value`, a value starting with `-`, a switch followed by a
 * boolean word, a name in capitals, an odd integer, a missing required flag or argument) reads as
 * undefined, and @effect/cli reads it in the full bundle, with its own errors.
 */
export interface ReadLine {
  readonly path: ReadonlyArray<string>
  readonly flags: Readonly<Record<string, ReadonlyArray<string>>>
  readonly args: ReadonlyArray<string>
}

const MAX_ECHO = 200

/** A user's token as it may appear in a message: no control codes, at most ~200 characters. */
export const echo = (text: string): string => {
  // eslint-disable-next-line no-control-regex
  const clean = stripVTControlCharacters(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
  return clean.length > MAX_ECHO ? `${clean.slice(0, MAX_ECHO - 1)}…` : clean
}

const HELP = new Set(["--help", "-h"])
const answeredWithoutCommand = ["--version", "--completions", "--wizard"]

/** @effect/cli's own flags, accepted anywhere and left where they are. */
const builtIns: ReadonlyArray<FlagSpec> = [
  ["--version", undefined],
  ["--wizard", undefined],
  ["--completions", "bash | fish | zsh"],
  ["--log-level", "all | trace | debug | info | warning | error | fatal | none"]
].map(([name, value]) => ({
  name: name!,
  aliases: [],
  value,
  choices: value?.split(" | "),
  optional: true,
  repeated: false,
  global: false
}))

/** A token in flag position: `--name`, `--name=value` or `-x` (not `-`, `--` or a negative number). */
const isFlagToken = (token: string) => /^--[^=]|^-[A-Za-z]/.test(token)

const splitFlag = (token: string): readonly [string, string | undefined] => {
  const eq = token.startsWith("--") ? token.indexOf("=") : -1
  return eq === -1 ? [token.toLowerCase(), undefined] : [token.slice(0, eq).toLowerCase(), token.slice(eq + 1)]
}

const config = CliConfig.defaultConfig

/** The nearest name within @effect/cli's auto-correct distance, if any. */
const nearest = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  const scored = candidates.map((c) => [c, AutoCorrect.levensteinDistance(word, c, config)] as const).filter(([, d]) => d <= config.autoCorrectLimit)
  return scored.sort((a, b) => a[1] - b[1])[0]?.[0]
}

const suggest = (word: string, candidates: ReadonlyArray<string>) => {
  const near = nearest(word.toLowerCase(), candidates)
  return near === undefined ? "" : ` (did you mean ${near}?)`
}

interface Scan {
  readonly flags: ReadonlyMap<string, FlagSpec>
  readonly seen: Set<string>
  /** Each given flag's values, by flag name: what a light entry reads. */
  readonly values: Map<string, Array<string>>
  problem: string | undefined
  /** Set when the first problem is a malformed flag value (`invalid-<flag>`, exit 1), not a usage error. */
  valueCode: string | undefined
  help: boolean
  /** Cleared by anything the full reading (ReadLine) leaves to @effect/cli. */
  plain: boolean
}

/** Words @effect/cli may take as a switch's value (`--verify true`). */
const BOOLEAN_WORDS = new Set(["true", "false", "yes", "no", "on", "off", "y", "n", "1", "0"])

/** Integers @effect/cli and Number() read alike. */
const PLAIN_INTEGER = /^(0|[1-9][0-9]{0,14})$/

const isBuiltIn = (flag: FlagSpec) => builtIns.includes(flag)

const flagTable = (flags: ReadonlyArray<FlagSpec>) => new Map(flags.flatMap((f) => [f.name, ...f.aliases].map((n) => [n.toLowerCase(), f] as const)))

/**
 * Reads one flag at `args[i]`; returns how many tokens it used. Records the first problem only,
 * so the message names the first mistake on the line.
 */
const readFlag = (scan: Scan, args: ReadonlyArray<string>, i: number, isValueBoundary: (token: string) => boolean): number => {
  const [name, inline] = splitFlag(args[i]!)
  const note = (message: string, valueCode?: string) => {
    if (scan.problem !== undefined) return
    scan.problem = message
    scan.valueCode = valueCode
  }
  if (HELP.has(name)) {
    scan.help = true
    return 1
  }
  const flag = scan.flags.get(name)
  if (flag === undefined) {
    note(`unknown flag ${echo(name)}${suggest(name, [...scan.flags.keys()])}`)
    return 1
  }
  if (!flag.repeated && scan.seen.has(flag.name)) note(`${flag.name} given twice`)
  scan.seen.add(flag.name)
  if (inline !== undefined || isBuiltIn(flag) || args[i] !== flag.name) scan.plain = false
  const values = scan.values.get(flag.name) ?? []
  scan.values.set(flag.name, values)
  const next = args[i + 1]
  if (flag.value === undefined) {
    if (next !== undefined && BOOLEAN_WORDS.has(next.toLowerCase())) scan.plain = false
    return 1
  }
  const [value, used] = inline !== undefined ? [inline, 1] : next === undefined || isValueBoundary(next) ? ["", 1] : [next, 2]
  const valueCode = `invalid-${flag.name.replace(/^-+/, "")}`
  if (value === "") note(`${flag.name} needs a value`)
  else if (flag.choices !== undefined && !flag.choices.includes(value)) note(`${flag.name} must be one of ${flag.choices.join(", ")}, got '${echo(value)}'`, valueCode)
  else if (flag.value === "integer" && !/^-?[0-9]+$/.test(value)) note(`${flag.name} must be an integer, got '${echo(value)}'`, valueCode)
  // A value with outer whitespace goes to @effect/cli, which trims a repeated flag's (`--select " "` is "" there).
  if (value.startsWith("-") || value.trim() !== value || (flag.value === "integer" && !PLAIN_INTEGER.test(value))) scan.plain = false
  values.push(value)
  return used
}

/** A token that is a flag this position knows (or --help): never taken as another flag's value. */
const isKnownFlag = (table: ReadonlyMap<string, FlagSpec>, token: string) => isFlagToken(token) && (table.has(splitFlag(token)[0]) || HELP.has(splitFlag(token)[0]))

const childNamed = <N extends CommandLineNode<N>>(node: N, token: string) => node.children.find((c) => c.path[c.path.length - 1] === token.toLowerCase())

/**
 * The command line as pcli reads it. Global flags (and @effect/cli's built-ins) may come before
 * the command; everything after a runnable command is checked against that command's flags.
 */
export const readCommandLine = <N extends CommandLineNode<N>>(root: N, args: ReadonlyArray<string>): CommandLine<N> => {
  const before = flagTable([...root.shape().flags, ...builtIns])
  const scan: Scan = { flags: before, seen: new Set(), values: new Map(), problem: undefined, valueCode: undefined, help: false, plain: true }
  let node = root
  const moved: Array<string> = []
  const movedNames: Array<string> = []
  let i = 0
  // The command path, with any global flags given before (or between) its words.
  while (i < args.length && node.children.length > 0) {
    const token = args[i]!
    if (isFlagToken(token)) {
      // A flag's value may not be the next command word or another flag: `pcli --config validate`.
      const here = node
      const used = readFlag(scan, args, i, (t) => isKnownFlag(before, t) || childNamed(here, t) !== undefined)
      const name = splitFlag(token)[0]
      if (!HELP.has(name)) {
        moved.push(...args.slice(i, i + used))
        movedNames.push(name)
      }
      i += used
      continue
    }
    const child = childNamed(node, token)
    if (child === undefined) {
      const names = node.children.map((c) => c.path[c.path.length - 1]!)
      // An earlier unknown flag may have had this word as its value: name that mistake first.
      return { _tag: "Invalid", message: scan.problem ?? `unknown command '${echo([...node.path, token].join(" "))}'${suggest(token, names)}` }
    }
    node = child
    i += 1
  }
  const label = ["pcli", ...node.path].join(" ")
  if (node.children.length > 0) {
    if (scan.help || args.length === node.path.length) return { _tag: "Help", node }
    // `pcli --version`, `pcli --completions bash`: @effect/cli answers these without a command.
    if (scan.problem === undefined && answeredWithoutCommand.some((f) => scan.seen.has(f))) return { _tag: "Run", argv: args, read: undefined }
    const names = orderedChildren(node).map((c) => c.path[c.path.length - 1]!).join(", ")
    return { _tag: "Invalid", message: scan.problem ?? `${label} needs a command: ${names}` }
  }
  const own = flagTable([...node.shape().flags, ...builtIns])
  // A global flag given before a command that does not take it is reported as that command's.
  const foreign = movedNames.find((name) => !own.has(name) && scan.flags.has(name))
  const leafScan: Scan = { ...scan, flags: own, problem: scan.problem ?? (foreign === undefined ? undefined : `${label} takes no ${foreign} flag`) }
  const invalid = (message: string): CommandLine<N> => ({ _tag: "Invalid", message, valueCode: leafScan.valueCode })
  const rest = args.slice(i)
  const positional: Array<string> = []
  for (let j = 0; j < rest.length; ) {
    if (isFlagToken(rest[j]!)) j += readFlag(leafScan, rest, j, (t) => isKnownFlag(own, t))
    else positional.push(rest[j++]!)
  }
  if (leafScan.help) return { _tag: "Help", node }
  if (leafScan.problem !== undefined) return invalid(leafScan.problem)
  return { _tag: "Run", argv: [...node.path, ...moved, ...rest], read: readLine(node, leafScan, positional) }
}

/** The full reading of a line argv.ts accepted, when it is plain and complete (ReadLine). */
const readLine = <N extends CommandLineNode<N>>(node: N, scan: Scan, positional: ReadonlyArray<string>): ReadLine | undefined => {
  const { flags, args } = node.shape()
  if (!scan.plain || positional.some((word) => word.startsWith("-"))) return undefined
  if (flags.some((f) => !f.optional && !scan.values.has(f.name))) return undefined
  const required = args.filter((a) => !a.optional).length
  if (positional.length < required || (!args.some((a) => a.repeated) && positional.length > args.length)) return undefined
  return { path: node.path, flags: Object.fromEntries(scan.values), args: positional }
}

/** Whether the error document goes to stdout: `--output json` anywhere on the line, as given. */
export const wantsJson = (args: ReadonlyArray<string>) =>
  args.some((a, i) => {
    const [name, inline] = splitFlag(a)
    return name === "--output" && (inline ?? args[i + 1]) === "json"
  })
