// The command tree as data, with every command's rendered --help. The build writes it from the
// real commands (commandTree.ts, help.ts) next to the bin, so the bin can read a command line and
// answer --help before it loads the bundle; test/cli/manifest.test.ts checks it against the live tree.
import { type CommandLineNode, type CommandShape } from "./commandLine"
import type { CommandNode } from "./commandTree"
import { renderHelp } from "./help"

export interface ManifestNode {
  readonly path: ReadonlyArray<string>
  readonly shape: CommandShape
  readonly order: ReadonlyArray<string>
  /** What `pcli <path> --help` prints. */
  readonly help: string
  readonly children: ReadonlyArray<ManifestNode>
}

/** A command node read back from the manifest, with its help text. */
export interface ManifestCommand extends CommandLineNode<ManifestCommand> {
  readonly helpText: string
}

const shapeOf = (node: CommandNode): CommandShape => {
  const { flags, args } = node.shape()
  return { flags: flags.map((f) => ({ ...f, aliases: [...f.aliases], choices: f.choices === undefined ? undefined : [...f.choices] })), args: [...args] }
}

/** The manifest of `root`: shapes, declared order and help text of every command. */
export const toManifest = (root: CommandNode, version: string): ManifestNode => {
  const of = (node: CommandNode): ManifestNode => ({
    path: node.path,
    shape: shapeOf(node),
    order: node.children.length === 0 ? [] : node.order(),
    help: renderHelp(root, node, version),
    children: node.children.map(of)
  })
  return of(root)
}
