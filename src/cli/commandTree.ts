// The command line's shape, read from the real @effect/cli commands (Usage and HelpDoc), so the
// argv pre-parser and the help renderer stay in step with whatever commands are wired.
import { type HelpDoc, Options, type Usage } from "@effect/cli"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { HashMap, Option } from "effect"
import { type CommandShape, type FlagSpec } from "./commandLine"
import { commonOptions } from "./options"

export { type ArgSpec, type CommandShape, type FlagSpec, orderedChildren } from "./commandLine"

/** What only `--help` needs; computed on demand, since @effect/cli's HelpDoc costs start-up time. */
export interface CommandHelp {
  readonly summary: string
  readonly details: ReadonlyArray<string>
  readonly examples: ReadonlyArray<string>
  /** A flag's or argument's own description, by name (`--model`, `<dir>`). */
  readonly describe: (name: string) => string
  /** A group's commands in declaration order (HashMap order is arbitrary). */
  readonly order: ReadonlyArray<string>
}

/** Shapes and help are computed on demand: only the command being run pays for reading its Usage. */
export interface CommandNode {
  /** ["policy", "check"]; [] for pcli itself. */
  readonly path: ReadonlyArray<string>
  readonly children: ReadonlyArray<CommandNode>
  readonly shape: () => CommandShape
  readonly help: () => CommandHelp
  /** The group's commands in declaration order (`help().order`). */
  readonly order: () => ReadonlyArray<string>
}

/** Lines starting with this in a command's description are its examples (see `described` in help.ts). */
export const EXAMPLE_PREFIX = "$ "

const config = CliConfig.defaultConfig

const spanText = (span: Span): string => {
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
const blocks = (doc: HelpDoc.HelpDoc): ReadonlyArray<Block> => {
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

const flagSpecs = (items: ReadonlyArray<UsageItem>, global: (name: string) => boolean): ReadonlyArray<FlagSpec> =>
  items.flatMap((i) => {
    const [name, ...aliases] = i.names
    if (name === undefined || !isFlagName(name)) return []
    const choices = i.value?.includes(" | ") ? i.value.split(" | ") : undefined
    return [{ name, aliases, value: i.value, choices, optional: i.optional, repeated: i.repeated, global: global(name) }]
  })

/** The global flags (options.ts), which pcli also takes before the command. */
export const globalFlags: () => ReadonlyArray<FlagSpec> = () => flagSpecs(usageItems(Options.getUsage(Options.all(commonOptions))), () => true)

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

/** The first word of each entry under a group's `COMMANDS` header. */
const listedCommands = (help: ReadonlyArray<Block>) => {
  const start = help.findIndex((b) => b._tag === "Header" && b.text === "COMMANDS")
  return start === -1 ? [] : help.slice(start + 1).flatMap((b) => (b._tag === "Paragraph" ? [b.text.trim().split(" ")[0] ?? ""] : []))
}

const helpOf = (descriptor: Descriptor.Command<unknown>) => (): CommandHelp => {
  const help = blocks(Descriptor.getHelp(descriptor, config))
  // The description is the text before the first section header after its own.
  const end = help.findIndex((b, i) => i > 0 && b._tag === "Header")
  const paras = (end === -1 ? help : help.slice(0, end)).flatMap((b) => (b._tag === "Paragraph" ? [b.text] : []))
  const text = paras.filter((p) => !p.startsWith(EXAMPLE_PREFIX))
  const docs = new Map([...section(help, "OPTIONS"), ...section(help, "ARGUMENTS")])
  return {
    summary: text[0] ?? "",
    details: text.slice(1),
    examples: paras.filter((p) => p.startsWith(EXAMPLE_PREFIX)).map((p) => p.slice(EXAMPLE_PREFIX.length)),
    describe: (name) => {
      const doc = docs.get(name)
      return doc === undefined ? "" : ownDescription(doc)
    },
    order: listedCommands(help)
  }
}

const node = (path: ReadonlyArray<string>, descriptor: Descriptor.Command<unknown>, children: ReadonlyArray<CommandNode>): CommandNode => ({
  path,
  children,
  shape: () => {
    if (children.length > 0) return { flags: [], args: [] }
    // The first Named item is the command's own name.
    const items = usageItems(Descriptor.getUsage(descriptor)).slice(1)
    const globals = new Set(globalFlags().map((f) => f.name))
    return {
      flags: flagSpecs(items, (name) => globals.has(name)),
      args: items.flatMap((i) => {
        const name = i.names[0]
        return name === undefined || isFlagName(name) ? [] : [{ name, optional: i.optional, repeated: i.repeated }]
      })
    }
  },
  help: helpOf(descriptor),
  order: () => helpOf(descriptor)().order
})

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
    return node([name], descriptor, leaf ? [] : [...subs].map(([sub, d]) => node([name, sub], d, [])))
  })
  // pcli itself takes the global flags, before the command.
  return { ...node([], root, children), shape: () => ({ flags: globalFlags(), args: [] }) }
}


/** Every command a user can run, depth first (groups included). */
export const allNodes = (node: CommandNode): ReadonlyArray<CommandNode> => [node, ...node.children.flatMap(allNodes)]
