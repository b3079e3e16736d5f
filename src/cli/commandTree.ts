// The command line's shape, read from the real @effect/cli commands (Usage and HelpDoc), so the
// argv pre-parser and the help renderer stay in step with whatever commands are wired.
import { type HelpDoc, Options, type Usage } from "@effect/cli"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { HashMap, Option } from "effect"
import { commonOptions } from "./options"

/** One flag of a command: `--model <text>`, optional or repeatable, with its own description only. */
export interface FlagSpec {
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  /** `undefined` for a switch (`--no-cache`); else the value's shape, e.g. `text` or `text | json`. */
  readonly value: string | undefined
  readonly choices: ReadonlyArray<string> | undefined
  readonly optional: boolean
  readonly repeated: boolean
  readonly global: boolean
  readonly description: string
}

/** A positional argument, e.g. playground's `<dir>`. */
export interface ArgSpec {
  readonly name: string
  readonly optional: boolean
  readonly repeated: boolean
  readonly description: string
}

export interface CommandNode {
  /** ["policy", "check"]; [] for pcli itself. */
  readonly path: ReadonlyArray<string>
  readonly summary: string
  readonly details: ReadonlyArray<string>
  readonly examples: ReadonlyArray<string>
  readonly flags: ReadonlyArray<FlagSpec>
  readonly args: ReadonlyArray<ArgSpec>
  readonly children: ReadonlyArray<CommandNode>
}

/** Lines starting with this in a command's description are its examples (see `described` in help.ts). */
export const EXAMPLE_PREFIX = "$ "

const config = CliConfig.defaultConfig

export const spanText = (span: Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return spanText(span.value)
  }
}

type Block =
  | { readonly _tag: "Header"; readonly text: string }
  | { readonly _tag: "Paragraph"; readonly text: string }
  | { readonly _tag: "Definition"; readonly term: string; readonly doc: HelpDoc.HelpDoc }

/** A HelpDoc in reading order, as headers, paragraphs and description-list entries. */
export const blocks = (doc: HelpDoc.HelpDoc): ReadonlyArray<Block> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return [{ _tag: "Header", text: spanText(doc.value) }]
    case "Paragraph":
      return [{ _tag: "Paragraph", text: spanText(doc.value) }]
    case "DescriptionList":
      return doc.definitions.map(([term, d]) => ({ _tag: "Definition", term: spanText(term), doc: d }))
    case "Enumeration":
      return doc.elements.flatMap(blocks)
    case "Sequence":
      return [...blocks(doc.left), ...blocks(doc.right)]
  }
}

const paragraphs = (doc: HelpDoc.HelpDoc) => blocks(doc).flatMap((b) => (b._tag === "Paragraph" ? [b.text] : []))

// @effect/cli's own sentences about every option ("This setting is optional.", repetition), not ours.
const filler = /^This (setting|option|argument) /

/** An option's or argument's own description: the primitive's sentence (first) and the wrappers' sentences dropped. */
const ownDescription = (doc: HelpDoc.HelpDoc) =>
  paragraphs(doc)
    .slice(1)
    .filter((p) => !filler.test(p))
    .join(" ")

interface UsageItem {
  readonly names: ReadonlyArray<string>
  readonly value: string | undefined
  readonly optional: boolean
  readonly repeated: boolean
}

/** The named items of a Usage tree, with whether each is optional or repeatable. */
const usageItems = (usage: Usage.Usage, optional = false, repeated = false): ReadonlyArray<UsageItem> => {
  switch (usage._tag) {
    case "Named":
      return [{ names: usage.names, value: Option.getOrUndefined(usage.acceptedValues), optional, repeated }]
    case "Optional":
      return usageItems(usage.usage, true, repeated)
    case "Repeated":
      return usageItems(usage.usage, true, true)
    case "Concat":
      return [...usageItems(usage.left, optional, repeated), ...usageItems(usage.right, optional, repeated)]
    case "Alternation":
      return [...usageItems(usage.left, true, repeated), ...usageItems(usage.right, true, repeated)]
    default:
      return []
  }
}

const isFlagName = (name: string) => name.startsWith("-")

const globalNames: ReadonlySet<string> = new Set(
  usageItems(Options.getUsage(Options.all(commonOptions))).flatMap((i) => i.names)
)

/** The definitions under one `OPTIONS` / `ARGUMENTS` header, by their first word (`--model`, `<dir>`). */
const section = (all: ReadonlyArray<Block>, header: string): ReadonlyMap<string, HelpDoc.HelpDoc> => {
  const out = new Map<string, HelpDoc.HelpDoc>()
  let inside = false
  for (const b of all) {
    if (b._tag === "Header") inside = b.text === header
    else if (inside && b._tag === "Definition") out.set(b.term.split(" ")[0] ?? b.term, b.doc)
  }
  return out
}

/** A command's description paragraphs: the text before its first section header. */
const descriptionOf = (help: ReadonlyArray<Block>) => {
  const end = help.findIndex((b, i) => i > 0 && b._tag === "Header")
  const paras = (end === -1 ? help : help.slice(0, end)).flatMap((b) => (b._tag === "Paragraph" ? [b.text] : []))
  const text = paras.filter((p) => !p.startsWith(EXAMPLE_PREFIX))
  return {
    summary: text[0] ?? "",
    details: text.slice(1),
    examples: paras.filter((p) => p.startsWith(EXAMPLE_PREFIX)).map((p) => p.slice(EXAMPLE_PREFIX.length))
  }
}

const docOf = (docs: ReadonlyMap<string, HelpDoc.HelpDoc>, name: string) => {
  const doc = docs.get(name)
  return doc === undefined ? "" : ownDescription(doc)
}

const node = (path: ReadonlyArray<string>, descriptor: Descriptor.Command<unknown>, children: ReadonlyArray<CommandNode>): CommandNode => {
  const help = blocks(Descriptor.getHelp(descriptor, config))
  const options = section(help, "OPTIONS")
  const argDocs = section(help, "ARGUMENTS")
  // The first Named item is the command's own name; a group's usage names only itself.
  const items = children.length > 0 ? [] : usageItems(Descriptor.getUsage(descriptor)).slice(1)
  return {
    path,
    ...descriptionOf(help),
    flags: items.flatMap((i) => {
      const [name, ...aliases] = i.names
      if (name === undefined || !isFlagName(name)) return []
      const choices = i.value?.includes(" | ") ? i.value.split(" | ") : undefined
      return [{ name, aliases, value: i.value, choices, optional: i.optional, repeated: i.repeated, global: globalNames.has(name), description: docOf(options, name) }]
    }),
    args: items.flatMap((i) => {
      const name = i.names[0]
      return name === undefined || isFlagName(name) ? [] : [{ name, optional: i.optional, repeated: i.repeated, description: docOf(argDocs, name) }]
    }),
    children
  }
}

/** The first word of each entry under a group's `COMMANDS` header. */
const listedCommands = (help: ReadonlyArray<Block>) => {
  const start = help.findIndex((b) => b._tag === "Header" && b.text === "COMMANDS")
  return start === -1 ? [] : help.slice(start + 1).flatMap((b) => (b._tag === "Paragraph" ? [b.text.trim().split(" ")[0] ?? ""] : []))
}

const nameOf = (descriptor: Descriptor.Command<unknown>) => [...Descriptor.getNames(descriptor)][0] ?? ""

/**
 * The whole tree. `topLevel` are the descriptors given to the root's `withSubcommands`: a group's
 * children are reachable only from its own descriptor, not from the root's.
 */
export const commandTree = (root: Descriptor.Command<unknown>, topLevel: ReadonlyArray<Descriptor.Command<unknown>>): CommandNode => {
  const children = topLevel.map((descriptor) => {
    const name = nameOf(descriptor)
    const subs = Descriptor.getSubcommands(descriptor)
    const leaf = HashMap.size(subs) === 1 && HashMap.has(subs, name)
    if (leaf) return node([name], descriptor, [])
    // HashMap order is arbitrary: list a group's commands in the order its help lists them (declaration order).
    const order = listedCommands(blocks(Descriptor.getHelp(descriptor, config)))
    const rank = (sub: string) => (order.indexOf(sub) === -1 ? order.length : order.indexOf(sub))
    const sorted = [...subs].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    return node([name], descriptor, sorted.map(([sub, d]) => node([name, sub], d, [])))
  })
  // pcli itself takes the global flags (before the command); every leaf command has them.
  const globals = children.flatMap((c) => c.flags).filter((f, i, all) => f.global && all.findIndex((g) => g.name === f.name) === i)
  return { ...node([], root, children), flags: globals }
}

/** Every command a user can run, depth first (groups included). */
export const allNodes = (node: CommandNode): ReadonlyArray<CommandNode> => [node, ...node.children.flatMap(allNodes)]
