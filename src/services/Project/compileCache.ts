import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Context, Effect } from "effect"
import type { ModelContract, ModelSidecar } from "../../schemas/model"
import { writeFileAtomic } from "../../platform/atomicWrite"
import type { FileSystem, Path } from "@effect/platform"
import type { TableRef } from "./sqlRefs"

/**
 * The compile cache: what is expensive to recompute per file (the tables a model's SQL reads,
 * the TOML + Schema decode of a sidecar or contract), keyed by each text's content hash, in one
 * file under `.pcli/compile-cache/`. A stat index (size, mtime, ctime, inode per file name, as
 * git's index does) lets a warm compile skip reading files whose stat is unchanged. The file's
 * header names its format, the pcli build that wrote it and the models directory, and carries a
 * digest of its body: a cache that is torn, edited, or written by another build or for another
 * directory is ignored and rewritten.
 */

declare const PCLI_BUILD: string
/** The build id (version + source hash, set by the bundler); "dev" when running from source. */
const build = typeof PCLI_BUILD === "string" ? PCLI_BUILD : "dev"
const FORMAT = "pcli-compile-cache/3"

/** What a file's stat said when it was read, and its text's content key: `[size, mtimeMs, ctimeMs, ino, key]`. */
export type FileStamp = readonly [number, number, number, number, string]

/** A model's SQL text and the tables it reads. */
export interface CachedSql {
  readonly text: string
  readonly refs: ReadonlyArray<TableRef>
}

/** The cache in memory. */
export interface CacheBody {
  /** File name in the models directory → its stamp (only files safely older than the compile that read them). */
  readonly files: Map<string, FileStamp>
  /** SQL-text hash → the text and the tables it reads. */
  readonly sql: Map<string, CachedSql>
  /** Sidecar-text hash (after `${VAR}` substitution) → the decoded sidecar. */
  readonly sidecars: Map<string, ModelSidecar>
  /** Contract-text hash → the decoded contract. */
  readonly contracts: Map<string, ModelContract>
}

/**
 * The cache on disk: arrays, not keyed objects (JSON objects with thousands of keys parse into
 * slow dictionaries); stamps as one flat number array (no object per file).
 */
interface StoredBody {
  readonly files: { readonly names: Array<string>; readonly stamps: Array<number>; readonly keys: Array<string> }
  readonly sql: Array<readonly [string, string, ReadonlyArray<TableRef>]>
  readonly sidecars: Array<readonly [string, ModelSidecar]>
  readonly contracts: Array<readonly [string, ModelContract]>
}

const toStored = (body: CacheBody): StoredBody => {
  const names: Array<string> = []
  const stamps: Array<number> = []
  const keys: Array<string> = []
  for (const [name, stamp] of body.files) {
    names.push(name)
    stamps.push(stamp[0], stamp[1], stamp[2], stamp[3])
    keys.push(stamp[4])
  }
  return {
    files: { names, stamps, keys },
    sql: [...body.sql].map(([key, entry]) => [key, entry.text, entry.refs] as const),
    sidecars: [...body.sidecars],
    contracts: [...body.contracts]
  }
}

const isPairs = (value: unknown, width: number): value is Array<Array<unknown>> =>
  Array.isArray(value) && value.every((entry) => Array.isArray(entry) && entry.length === width && typeof entry[0] === "string")

/** The in-memory body of a stored one, or undefined when its shape is not this format's. */
const fromStored = (stored: unknown): CacheBody | undefined => {
  if (!isRecord(stored)) return undefined
  const files = stored["files"]
  if (!isRecord(files)) return undefined
  const { names, stamps, keys } = files as Record<string, unknown>
  if (!Array.isArray(names) || !Array.isArray(stamps) || !Array.isArray(keys)) return undefined
  if (stamps.length !== names.length * 4 || keys.length !== names.length) return undefined
  if (!isPairs(stored["sql"], 3) || !isPairs(stored["sidecars"], 2) || !isPairs(stored["contracts"], 2)) return undefined
  const body = emptyBody()
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    const key = keys[i]
    if (typeof name !== "string" || typeof key !== "string") return undefined
    body.files.set(name, [stamps[4 * i], stamps[4 * i + 1], stamps[4 * i + 2], stamps[4 * i + 3], key])
  }
  for (const [key, text, refs] of stored["sql"]) {
    if (typeof text !== "string" || !Array.isArray(refs)) return undefined
    body.sql.set(key as string, { text, refs: refs as ReadonlyArray<TableRef> })
  }
  for (const [key, sidecar] of stored["sidecars"]) body.sidecars.set(key as string, sidecar as ModelSidecar)
  for (const [key, contract] of stored["contracts"]) body.contracts.set(key as string, contract as ModelContract)
  return body
}

interface Header {
  readonly format: string
  readonly build: string
  readonly modelsDir: string
  readonly digest: string
}

const oneShot = (NodeCrypto as { hash?: (algorithm: string, data: string, encoding: "base64url") => string }).hash
/** Content hash of one file's text (a cache key, not a security boundary; sha1 is the fastest here). */
export const contentHash = (text: string): string =>
  oneShot !== undefined ? oneShot("sha1", text, "base64url") : NodeCrypto.createHash("sha1").update(text).digest("base64url")

/** Detects a torn or edited body (not an adversary: the cache lives inside the project). */
const digestOf = (body: string) =>
  oneShot !== undefined ? oneShot("sha1", body, "base64url") : NodeCrypto.createHash("sha1").update(body).digest("base64url")

/** `<models dir's parent>/.pcli/compile-cache/<hash of the models dir>.json`. */
export const cacheFileFor = (modelsDir: string): string => {
  const absolute = NodePath.resolve(modelsDir)
  return NodePath.join(NodePath.dirname(absolute), ".pcli", "compile-cache", `${contentHash(absolute).slice(0, 16)}.json`)
}

export const emptyBody = (): CacheBody => ({ files: new Map(), sql: new Map(), sidecars: new Map(), contracts: new Map() })

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Outcome of reading the cache file, so tests and traces can tell a hit from a rebuild. */
export type CacheLoad =
  | { readonly status: "hit"; readonly body: CacheBody }
  | { readonly status: "absent" | "corrupt" | "foreign"; readonly body: CacheBody }

/**
 * Reads the cache for `modelsDir`. Anything but an intact file from this build for this
 * directory yields an empty body (and the reason): the cache is never trusted past its digest.
 */
export const readCache = (modelsDir: string): CacheLoad => {
  let text: string
  try {
    // Written as ASCII (see `asciiJson`): read as one-byte text, which skips UTF-8 decoding.
    text = NodeFs.readFileSync(cacheFileFor(modelsDir), "latin1")
  } catch {
    return { status: "absent", body: emptyBody() }
  }
  const newline = text.indexOf("\n")
  if (newline === -1) return { status: "corrupt", body: emptyBody() }
  let header: unknown
  try {
    header = JSON.parse(text.slice(0, newline))
  } catch {
    return { status: "corrupt", body: emptyBody() }
  }
  if (!isRecord(header) || header["format"] !== FORMAT) return { status: "foreign", body: emptyBody() }
  if (header["build"] !== build || header["modelsDir"] !== NodePath.resolve(modelsDir)) {
    return { status: "foreign", body: emptyBody() }
  }
  const bodyText = text.slice(newline + 1)
  if (header["digest"] !== digestOf(bodyText)) return { status: "corrupt", body: emptyBody() }
  try {
    const body = fromStored(JSON.parse(bodyText))
    if (body === undefined) return { status: "corrupt", body: emptyBody() }
    return { status: "hit", body }
  } catch {
    return { status: "corrupt", body: emptyBody() }
  }
}

/** JSON with every non-ASCII character escaped, so the file reads back byte for character. */
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** Writes the cache (best effort: a read-only project still compiles, just without a cache). */
export const writeCache = (
  modelsDir: string,
  body: CacheBody
): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path> =>
  Effect.suspend(() => {
    const bodyText = asciiJson(toStored(body))
    const header: Header = { format: FORMAT, build, modelsDir: NodePath.resolve(modelsDir), digest: digestOf(bodyText) }
    return writeFileAtomic(cacheFileFor(modelsDir), `${asciiJson(header)}\n${bodyText}`)
  }).pipe(Effect.ignore)

/** Whether a compile may write the cache back; read-only surfaces (`pcli serve`) set it false. */
export class CompileCacheWrites extends Context.Reference<CompileCacheWrites>()("pcli/CompileCacheWrites", {
  defaultValue: () => true
}) {}
