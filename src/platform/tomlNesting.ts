import { Effect, Option } from "effect"
import { TomlSyntax } from "./tomlErrors"
import { elide } from "./echo"

/** Deepest table/array nesting a pcli TOML file may have; real files stay under ten. */
export const MAX_NESTING = 64

/** A path kept as links to its parent, so walking wide data copies nothing. */
interface PathLink {
  readonly key: PropertyKey
  readonly parent: PathLink | undefined
  readonly depth: number
}

const toArray = (link: PathLink | undefined): ReadonlyArray<PropertyKey> => {
  const keys: Array<PropertyKey> = []
  for (let at = link; at !== undefined; at = at.parent) keys.push(at.key)
  return keys.reverse()
}

/** The key path of the first table or array nested deeper than `max`, found without recursion. */
export const tooDeep = (data: unknown, max: number = MAX_NESTING): Option.Option<ReadonlyArray<PropertyKey>> => {
  const stack: Array<readonly [unknown, PathLink | undefined]> = [[data, undefined]]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, link] = top
    if (typeof value !== "object" || value === null || value instanceof Date) continue
    const depth = link?.depth ?? 0
    if (depth > max) return Option.some(toArray(link))
    if (Array.isArray(value)) value.forEach((child, i) => stack.push([child, { key: i, parent: link, depth: depth + 1 }]))
    else for (const key in value) stack.push([(value as Record<string, unknown>)[key], { key, parent: link, depth: depth + 1 }])
  }
  return Option.none()
}


/**
 * Refuses parsed TOML nested deeper than MAX_NESTING before anything recurses over it
 * (a 5,000-level dotted key otherwise overflows the schema decoder's stack).
 */
export const checkNesting = <A>(
  data: A,
  file: string,
  locate: (path: ReadonlyArray<PropertyKey>) => number | undefined
): Effect.Effect<A, TomlSyntax> =>
  Option.match(tooDeep(data), {
    onNone: () => Effect.succeed(data),
    onSome: (path) =>
      Effect.fail(
        new TomlSyntax({
          file,
          line: locate(path.slice(0, 4)),
          detail: `keys nested more than ${MAX_NESTING} levels deep (${elide(path.map(String).join("."), 120)})`
        })
      )
  })
