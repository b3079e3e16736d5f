import type { Path } from "@effect/platform"
import { Effect, type Schema } from "effect"
import { type Adapter, EltAdapter, EmbeddedAdapter, ManualAdapter, WarehouseAdapter } from "../../schemas/adapters"
import { echo } from "../../platform/echo"
import { lazy } from "../../platform/lazy"
import { secretNames } from "../../platform/tomlIssues"
import { InvalidValue, MissingEnvVar, type UnknownKey } from "./errors"
import { type UnsetReference, UNSET_CLOSE, UNSET_OPEN } from "./interpolate"
import { decodeTomlValue, locateKey } from "../../platform/toml"

export type AdapterType = Adapter["type"]

/**
 * One `[adapter.NAME]` block. Its type is known once the file loads; `resolve` gives the decoded
 * block (of that type), or fails when the block references a variable that is not set, so an
 * adapter that is not in use never needs its `${VAR}`s.
 */
export interface AdapterRef {
  readonly name: string
  readonly type: AdapterType
  readonly resolve: Effect.Effect<Adapter, MissingEnvVar>
}

const adapterSchemas = {
  warehouse: WarehouseAdapter,
  elt: EltAdapter,
  embedded: EmbeddedAdapter,
  manual: ManualAdapter
} as const

/** Every adapter field that holds a secret: a value under such a key is never echoed, wherever it sits. Walked on first use (an invalid pcli.toml). */
export const adapterSecretNames = lazy((): ReadonlySet<PropertyKey> => new Set(Object.values(adapterSchemas).flatMap((schema) => [...secretNames(schema.ast)])))

const isAdapterType = (t: unknown): t is AdapterType =>
  typeof t === "string" && Object.prototype.hasOwnProperty.call(adapterSchemas, t)

/** Default discover file-cache root, under the project root (spec decisions.md 5). */
export const DEFAULT_FILE_ROOT = [".pcli", "elt-state"] as const

/** Paths in an adapter block are relative to the project root, as every path in pcli.toml is. */
const anchorPaths = (adapter: Adapter, root: string, path: Path.Path): Adapter => {
  if (adapter.type !== "elt" || adapter.cache === undefined) return adapter
  const { file_root, backend } = adapter.cache
  if (file_root === undefined && backend !== "file") return adapter
  const anchored = file_root === undefined ? path.join(root, ...DEFAULT_FILE_ROOT) : path.resolve(root, file_root)
  return { ...adapter, cache: { ...adapter.cache, file_root: anchored } }
}

const markers = new RegExp(`${UNSET_OPEN}(\\d+)${UNSET_CLOSE}`, "g")

/**
 * Which unset `${VAR}`s each adapter block holds (by reference index): a marker under
 * `adapter.NAME.<key>` belongs to NAME; one in the adapter's name or `type` belongs to the
 * whole file. Walks the parsed data, which is at most MAX_NESTING deep.
 */
export const unsetByAdapter = (data: unknown): ReadonlyMap<string, ReadonlyArray<number>> => {
  const owned = new Map<string, Array<number>>()
  const note = (text: string, path: ReadonlyArray<string>) => {
    if (!text.includes(UNSET_OPEN)) return
    const owner = path[0] === "adapter" && path.length >= 3 && !(path.length === 3 && path[2] === "type") ? path[1]! : undefined
    if (owner === undefined) return
    const indexes = owned.get(owner) ?? []
    for (const m of text.matchAll(markers)) indexes.push(Number(m[1]))
    owned.set(owner, indexes)
  }
  const walk = (value: unknown, path: ReadonlyArray<string>): void => {
    if (typeof value === "string") return note(value, path)
    if (typeof value !== "object" || value === null || value instanceof Date) return
    for (const [key, child] of Object.entries(value)) {
      const at = Array.isArray(value) ? path : [...path, key]
      if (!Array.isArray(value)) note(key, at)
      walk(child, at)
    }
  }
  walk(data, [])
  return owned
}

export interface AdapterInput {
  readonly raw: Readonly<Record<string, unknown>>
  readonly text: string
  readonly file: string
  readonly root: string
  readonly unset: ReadonlyArray<UnsetReference>
  readonly owned: ReadonlyMap<string, ReadonlyArray<number>>
}

/**
 * Checks every adapter's `type` and decodes each block whose variables are all set (its errors
 * fail the load); a block with an unset variable fails only when it is resolved.
 */
export const decodeAdapters = (input: AdapterInput, path: Path.Path): Effect.Effect<ReadonlyArray<AdapterRef>, InvalidValue | UnknownKey> =>
  Effect.forEach(Object.entries(input.raw), ([name, block]) => {
    const type = typeof block === "object" && block !== null ? (block as Record<string, unknown>)["type"] : undefined
    if (!isAdapterType(type)) {
      const at = ["adapter", name, "type"]
      return Effect.fail(
        new InvalidValue({
          file: input.file,
          line: locateKey(input.text, at),
          path: at.join("."),
          detail: `expected one of ${Object.keys(adapterSchemas).join(", ")}, got ${echo(JSON.stringify(type ?? null))}`
        })
      )
    }
    const firstUnset = input.owned.get(name)?.[0]
    const reference = firstUnset === undefined ? undefined : input.unset[firstUnset]
    if (reference !== undefined) {
      const missing = new MissingEnvVar({ file: input.file, line: reference.line, variable: reference.variable })
      return Effect.succeed<AdapterRef>({ name, type, resolve: Effect.fail(missing) })
    }
    const schema = adapterSchemas[type] as unknown as Schema.Schema<Adapter, unknown>
    return decodeTomlValue(schema, block, input.text, input.file, ["adapter", name]).pipe(
      Effect.map((decoded): AdapterRef => ({ name, type, resolve: Effect.succeed(anchorPaths(decoded, input.root, path)) }))
    )
  })
