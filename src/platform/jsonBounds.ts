import { Either } from "effect"
import { echo } from "./echo"

/** Deepest array/object nesting pcli reads from JSON it did not write itself (tool arguments, plans, markers). */
export const MAX_JSON_NESTING = 64

/** What is wrong with a JSON value, and where (keys from the root). */
export interface JsonBoundsIssue {
  readonly path: ReadonlyArray<string | number>
  readonly problem: string
}

export interface JsonBounds {
  readonly maxDepth?: number
  /** Refuse a NUL character in any string or key: no file name, SQL text or ref contains one. */
  readonly refuseNul?: boolean
}

/** A path kept as links to its parent, so walking wide data copies nothing. */
interface PathLink {
  readonly key: string | number
  readonly parent: PathLink | undefined
  readonly depth: number
}

const toArray = (link: PathLink | undefined): Array<string | number> => {
  const keys: Array<string | number> = []
  for (let at = link; at !== undefined; at = at.parent) keys.push(at.key)
  return keys.reverse()
}

/** Renders a path for a message (`models.3`), cut and made inert: keys are the sender's text. */
export const formatJsonPath = (path: ReadonlyArray<string | number>): string => echo(path.join("."), 120)

/**
 * The first container nested deeper than `maxDepth`, or a string holding a NUL, found without
 * recursion: every recursive walker downstream (Schema, JSON.stringify, equality) is safe after it.
 */
export const jsonBoundsIssue = (value: unknown, bounds: JsonBounds = {}): JsonBoundsIssue | undefined => {
  const maxDepth = bounds.maxDepth ?? MAX_JSON_NESTING
  const refuseNul = bounds.refuseNul ?? false
  const stack: Array<readonly [unknown, PathLink | undefined]> = [[value, undefined]]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, link] = top
    if (typeof node === "string") {
      if (refuseNul && node.includes("\u0000")) return { path: toArray(link), problem: "contains a NUL character" }
      continue
    }
    if (typeof node !== "object" || node === null) continue
    const depth = (link?.depth ?? 0) + 1
    if (depth > maxDepth) return { path: toArray(link), problem: `nested more than ${maxDepth} levels deep` }
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], { key: i, parent: link, depth }])
    } else {
      const keys = Object.keys(node)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const at: PathLink = { key, parent: link, depth }
        if (refuseNul && key.includes("\u0000")) return { path: toArray(at), problem: "has a key containing a NUL character" }
        stack.push([(node as Record<string, unknown>)[key], at])
      }
    }
  }
  return undefined
}

/** JSON text parsed, then refused when larger than `maxChars` or nested deeper than the limit. */
export const parseBoundedJson = (
  text: string,
  maxChars: number,
  bounds: JsonBounds = {}
): Either.Either<unknown, string> => {
  if (text.length > maxChars) return Either.left(`larger than ${maxChars} characters (${text.length})`)
  let value: unknown
  try {
    // V8's JSON.parse does not recurse, so even 10,000 levels parse; the walk below bounds them.
    value = JSON.parse(text)
  } catch (e) {
    return Either.left(`not valid JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  const issue = jsonBoundsIssue(value, bounds)
  if (issue === undefined) return Either.right(value)
  return Either.left(issue.path.length === 0 ? issue.problem : `${formatJsonPath(issue.path)}: ${issue.problem}`)
}
