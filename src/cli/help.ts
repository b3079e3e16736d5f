// pcli's own `--help`: rendered from the commands' Usage and HelpDoc (commandTree.ts), without
// @effect/cli's filler sentences, with `pcli <path>` usage lines and one example per command.
import { HelpDoc } from "@effect/cli"
import { type ArgSpec, type CommandHelp, type CommandNode, EXAMPLE_PREFIX, type FlagSpec, orderedChildren } from "./commandTree"

/**
 * A command's description: a one-line summary, one example command line, and optional detail
 * paragraphs (shown under the summary in the command's own help only).
 */
export const described = (summary: string, example: string, ...details: ReadonlyArray<string>): HelpDoc.HelpDoc =>
  HelpDoc.blocks([HelpDoc.p(summary), ...details.map((d) => HelpDoc.p(d)), HelpDoc.p(`${EXAMPLE_PREFIX}${example}`)])

const valueText = (flag: FlagSpec) => (flag.value === undefined ? "" : flag.choices !== undefined ? ` ${flag.choices.join("|")}` : ` <${flag.value}>`)

/** `--model <text>`, `[--from <text>]`, `[--model <text>]...`: brackets mark what may be left out. */
export const flagUsage = (flag: FlagSpec) => {
  const bare = `${flag.name}${valueText(flag)}`
  const shown = flag.optional ? `[${bare}]` : bare
  return flag.repeated ? `${shown}...` : shown
}

const argUsage = (arg: ArgSpec) => {
  const shown = arg.optional ? `[${arg.name}]` : arg.name
  return arg.repeated ? `${shown}...` : shown
}

/** Two columns, the first padded to its widest entry (capped so one long name does not push everything right). */
const table = (rows: ReadonlyArray<readonly [string, string]>) => {
  const width = Math.min(32, Math.max(0, ...rows.map(([left]) => left.length)))
  return rows.map(([left, right]) =>
    right === "" ? `  ${left}` : left.length > width ? `  ${left}\n  ${" ".repeat(width + 2)}${right}` : `  ${left.padEnd(width + 2)}${right}`
  )
}

const builtIns: ReadonlyArray<readonly [string, string]> = [
  ["--help, -h", "Show help for pcli or any command"],
  ["--version", "Print pcli's version"]
]

/** The global flags' descriptions, as the first runnable command declares them. */
const globalDescriptions = (root: CommandNode) => {
  const first = root.children.find((c) => c.children.length === 0)
  return first === undefined ? () => "" : first.help().describe
}

const commandLabel = (node: CommandNode) => ["pcli", ...node.path].join(" ")

/** Every runnable command below a node, with its summary: `policy check` and so on. */
const commandRows = (node: CommandNode, from: CommandNode): ReadonlyArray<readonly [string, string]> =>
  orderedChildren(node).flatMap((child) =>
    child.children.length === 0 ? [[child.path.slice(from.path.length).join(" "), child.help().summary] as const] : commandRows(child, from)
  )

const examples = (help: CommandHelp) => (help.examples.length === 0 ? [] : ["", help.examples.length === 1 ? "EXAMPLE" : "EXAMPLES", ...help.examples.map((e) => `  ${e}`)])

const globalSection = (globals: ReadonlyArray<FlagSpec>, describe: (name: string) => string, withBuiltIns: boolean) => [
  "",
  "GLOBAL FLAGS (before or after the command)",
  ...table([...globals.map((f) => [flagUsage(f), describe(f.name)] as const), ...(withBuiltIns ? builtIns : [])])
]

/** The help text for `pcli [path] --help`; `root` supplies the global flags. */
export const renderHelp = (root: CommandNode, node: CommandNode, version: string): string => {
  const help = node.help()
  const title = node.path.length === 0 ? `pcli ${version}: ${help.summary}` : `${commandLabel(node)}: ${help.summary}`
  const head = [title, ...help.details.map((d) => `\n${d}`)]
  if (node.children.length > 0) {
    return [
      ...head,
      "",
      "USAGE",
      `  ${commandLabel(node)} <command> [flags]`,
      "",
      "COMMANDS",
      ...table(commandRows(node, node)),
      ...globalSection(root.shape().flags, globalDescriptions(root), node.path.length === 0),
      ...examples(help),
      "",
      `Run '${commandLabel(node)} <command> --help' for a command's flags.`,
      ""
    ].join("\n")
  }
  const { flags, args } = node.shape()
  const own = flags.filter((f) => !f.global)
  const usage = [commandLabel(node), ...own.map(flagUsage), ...args.map(argUsage), "[global flags]"].join(" ")
  return [
    ...head,
    "",
    "USAGE",
    `  ${usage}`,
    ...(args.length === 0 ? [] : ["", "ARGUMENTS", ...table(args.map((a) => [argUsage(a), help.describe(a.name)] as const))]),
    ...(own.length === 0 ? [] : ["", "FLAGS", ...table(own.map((f) => [flagUsage(f), help.describe(f.name)] as const))]),
    ...globalSection(flags.filter((f) => f.global), help.describe, false),
    ...examples(help),
    ""
  ].join("\n")
}
