// pcli's own `--help`: rendered from the commands' Usage and HelpDoc (commandTree.ts), without
// @effect/cli's filler sentences, with `pcli <path>` usage lines and one example per command.
import { HelpDoc } from "@effect/cli"
import { type ArgSpec, type CommandNode, EXAMPLE_PREFIX, type FlagSpec } from "./commandTree"

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

const commandLabel = (node: CommandNode) => ["pcli", ...node.path].join(" ")

/** Every runnable command below a node, with its summary: `policy check` and so on. */
const commandRows = (node: CommandNode, from: CommandNode): ReadonlyArray<readonly [string, string]> =>
  node.children.flatMap((child) =>
    child.children.length === 0 ? [[child.path.slice(from.path.length).join(" "), child.summary] as const] : commandRows(child, from)
  )

const examples = (node: CommandNode) => (node.examples.length === 0 ? [] : ["", node.examples.length === 1 ? "EXAMPLE" : "EXAMPLES", ...node.examples.map((e) => `  ${e}`)])

const globalSection = (globals: ReadonlyArray<FlagSpec>, withBuiltIns: boolean) => [
  "",
  "GLOBAL FLAGS (before or after the command)",
  ...table([...globals.map((f) => [flagUsage(f), f.description] as const), ...(withBuiltIns ? builtIns : [])])
]

/** The help text for `pcli [path] --help`; `root` supplies the global flags. */
export const renderHelp = (root: CommandNode, node: CommandNode, version: string): string => {
  const title = node.path.length === 0 ? `pcli ${version}: ${node.summary}` : `${commandLabel(node)}: ${node.summary}`
  const head = [title, ...node.details.map((d) => `\n${d}`)]
  if (node.children.length > 0) {
    return [
      ...head,
      "",
      "USAGE",
      `  ${commandLabel(node)} <command> [flags]`,
      "",
      "COMMANDS",
      ...table(commandRows(node, node)),
      ...globalSection(root.flags, node.path.length === 0),
      ...examples(node),
      "",
      `Run '${commandLabel(node)} <command> --help' for a command's flags.`,
      ""
    ].join("\n")
  }
  const own = node.flags.filter((f) => !f.global)
  const usage = [commandLabel(node), ...own.map(flagUsage), ...node.args.map(argUsage), "[global flags]"].join(" ")
  return [
    ...head,
    "",
    "USAGE",
    `  ${usage}`,
    ...(node.args.length === 0 ? [] : ["", "ARGUMENTS", ...table(node.args.map((a) => [argUsage(a), a.description] as const))]),
    ...(own.length === 0 ? [] : ["", "FLAGS", ...table(own.map((f) => [flagUsage(f), f.description] as const))]),
    ...globalSection(node.flags.filter((f) => f.global), false),
    ...examples(node),
    ""
  ].join("\n")
}
