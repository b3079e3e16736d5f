import { Option, type ParseResult, SchemaAST } from "effect"
import { clipQuoted, ECHO_LIMIT, kindOf, truncate } from "./echo"

/** Longest message detail kept when nothing in it is quoted (a last bound, not the usual cut). */
const DETAIL_LIMIT = 600

const isRedacted = (ast: SchemaAST.AST): boolean =>
  ast._tag === "Declaration" &&
  Option.exists(SchemaAST.getTypeConstructorAnnotation(ast), (c) => (c as { readonly _tag?: unknown })._tag === "effect/Redacted")

/** The nodes a value at one place may be checked against: unions, refinements, transformations and suspensions opened. */
const open = (ast: SchemaAST.AST, seen: Set<SchemaAST.AST> = new Set()): ReadonlyArray<SchemaAST.AST> => {
  if (seen.has(ast)) return []
  seen.add(ast)
  switch (ast._tag) {
    case "Union":
      return ast.types.flatMap((t) => open(t, seen))
    case "Refinement":
      return [ast, ...open(ast.from, seen)]
    case "Transformation":
      return [ast, ...open(ast.from, seen), ...open(ast.to, seen)]
    case "Suspend":
      return open(ast.f(), seen)
    default:
      return [ast]
  }
}

const children = (ast: SchemaAST.AST, segment: PropertyKey | undefined): ReadonlyArray<SchemaAST.AST> => {
  switch (ast._tag) {
    case "TypeLiteral":
      return [
        ...ast.propertySignatures.filter((p) => segment === undefined || p.name === segment).map((p) => p.type),
        ...ast.indexSignatures.map((s) => s.type)
      ]
    case "TupleType": {
      const element = typeof segment === "number" ? ast.elements[segment] : undefined
      return [
        ...(element === undefined ? (segment === undefined ? ast.elements.map((e) => e.type) : []) : [element.type]),
        ...ast.rest.map((r) => r.type)
      ]
    }
    default:
      return []
  }
}

/** Whether any schema node under `ast` is a `Redacted` (a secret field sits somewhere inside). */
const containsSecret = (ast: SchemaAST.AST): boolean => {
  const seen = new Set<SchemaAST.AST>()
  const stack = [...open(ast, seen)]
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (isRedacted(node)) return true
    for (const child of children(node, undefined)) stack.push(...open(child, seen))
  }
  return false
}

/**
 * True when the value at `path` is, sits inside, or contains a secret field of the schema:
 * an error about it must not show the value, whatever its type or depth.
 */
export const isSecretPath = (ast: SchemaAST.AST, path: ReadonlyArray<PropertyKey>): boolean => {
  let nodes = open(ast)
  for (const segment of path) {
    if (nodes.some(isRedacted)) return true
    nodes = nodes.flatMap((n) => children(n, segment)).flatMap((n) => open(n))
    if (nodes.length === 0) return false
  }
  return nodes.some(containsSecret)
}

/** The decoded input's value at a schema issue's path. */
export const valueAt = (root: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let value = root
  for (const segment of path) {
    if (typeof value !== "object" || value === null) return undefined
    value = (value as Record<PropertyKey, unknown>)[segment]
  }
  return value
}

/** Effect's schema messages read `Expected <what the schema wants>, actual <the value>`. */
const expectedActual = /^Expected ([^\n]*?), actual /

/**
 * The detail of a schema issue that is safe to print: for a secret, the expected type and the
 * kind of value found but never the value; otherwise each quoted value and the `actual` cut to
 * about 200 characters.
 */
export const issueDetail = (message: string, secret: boolean, actual: unknown): string => {
  const match = expectedActual.exec(message)
  if (secret) {
    if (match === null) return actual === undefined ? truncate(message, ECHO_LIMIT) : `invalid value: got ${kindOf(actual)} (a secret's value is never shown)`
    return `Expected ${truncate(match[1]!)}, got ${kindOf(actual)} (a secret's value is never shown)`
  }
  const quoted = clipQuoted(message)
  const at = match === null ? -1 : quoted.indexOf(", actual ")
  // A little over the limit, so one value already cut inside brackets keeps its closing marks.
  const cut = at === -1 ? quoted : `${quoted.slice(0, at + 9)}${truncate(quoted.slice(at + 9), ECHO_LIMIT + 16)}`
  return truncate(cut, DETAIL_LIMIT)
}

/** Names of the schema's secret fields (token, client_secret, …), wherever they sit. */
export const secretNames = (ast: SchemaAST.AST): ReadonlySet<PropertyKey> => {
  const names = new Set<PropertyKey>()
  const seen = new Set<SchemaAST.AST>()
  const stack = [...open(ast, seen)]
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node._tag === "TypeLiteral") {
      for (const p of node.propertySignatures) if (open(p.type).some(isRedacted)) names.add(p.name)
    }
    for (const child of children(node, undefined)) stack.push(...open(child, seen))
  }
  return names
}

/** Whether a value holds, at any depth, a key named like a secret field (a token nested in the wrong table). */
const holdsSecretName = (value: unknown, names: ReadonlySet<PropertyKey>): boolean => {
  const stack: Array<unknown> = [value]
  for (let v = stack.pop(), budget = 10_000; v !== undefined && budget > 0; v = stack.pop(), budget--) {
    if (typeof v !== "object" || v === null) continue
    for (const [key, child] of Object.entries(v)) {
      if (names.has(key)) return true
      stack.push(child)
    }
  }
  return false
}

/** The printable detail of one formatted issue of a parse error (its root schema tells the secrets). */
export const safeIssue = (
  error: ParseResult.ParseError,
  issue: ParseResult.ArrayFormatterIssue | undefined,
  /** Secret field names from schemas decoded elsewhere (the adapters, for the settings blocks). */
  knownSecrets: ReadonlySet<PropertyKey> = new Set()
): string => {
  const path = issue?.path ?? []
  // Without the root schema the secrets cannot be told apart: show no value then.
  const root = (error.issue as { readonly ast?: SchemaAST.AST }).ast
  // A secret field's name anywhere on the path or inside the value counts too: a misplaced token is still a token.
  const names = root === undefined ? undefined : new Set([...secretNames(root), ...knownSecrets])
  const secret =
    root === undefined ||
    names === undefined ||
    isSecretPath(root, path) ||
    path.some((segment) => names.has(segment)) ||
    holdsSecretName(valueAt(error.issue.actual, path), names)
  return issueDetail(issue?.message ?? "invalid value", secret, valueAt(error.issue.actual, path))
}
