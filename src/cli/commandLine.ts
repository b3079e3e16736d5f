// The command line's shape as plain data: what the argv reader (argv.ts) needs of a command. Kept
// free of @effect/cli so the bin can read a command line from the build-time manifest (manifest.ts).

/** One flag of a command: `--model <text>`, optional or repeatable. */
export interface FlagSpec {
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  /** `undefined` for a switch (`--no-cache`); else the value's shape, e.g. `text` or `text | json`. */
  readonly value: string | undefined
  readonly choices: ReadonlyArray<string> | undefined
  readonly optional: boolean
  readonly repeated: boolean
  readonly global: boolean
}

/** A positional argument, e.g. playground's `<dir>`. */
export interface ArgSpec {
  readonly name: string
  readonly optional: boolean
  readonly repeated: boolean
}

/** A command's flags and positional arguments. */
export interface CommandShape {
  readonly flags: ReadonlyArray<FlagSpec>
  readonly args: ReadonlyArray<ArgSpec>
}

/** A command as the argv reader sees it: its path, subcommands, flags and the subcommands' declared order. */
export interface CommandLineNode<Self extends CommandLineNode<Self>> {
  /** ["policy", "check"]; [] for pcli itself. */
  readonly path: ReadonlyArray<string>
  readonly children: ReadonlyArray<Self>
  readonly shape: () => CommandShape
  /** A group's commands in declaration order. */
  readonly order: () => ReadonlyArray<string>
}

/** A group's commands in the order it declares them. */
export const orderedChildren = <N extends CommandLineNode<N>>(node: N): ReadonlyArray<N> => {
  const order = node.order()
  const rank = (c: N) => {
    const at = order.indexOf(c.path[c.path.length - 1] ?? "")
    return at === -1 ? order.length : at
  }
  return [...node.children].sort((a, b) => rank(a) - rank(b))
}

/** Where the bin (dispatch.ts) hands a command line it has read, but not answered, to the bundle (main.ts). */
export const COMMAND_LINE_KEY = Symbol.for("pcli/commandLine")

/** Where the bin hands a line it has read in full (argv.ts's ReadLine) to a light entry (src/light/). */
export const LIGHT_LINE_KEY = Symbol.for("pcli/lightLine")
