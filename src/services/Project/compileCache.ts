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
const FORMAT = "pcli-compile-cache/2"

/** What a file's stat said when it was read, and its text's content key: `[size, mtimeMs, ctimeMs, ino, key]`. */
export type FileStamp = readonly [number, number, number, number, string]

/** A model's SQL text and the tables it reads. */
export interface CachedSql {
  readonly text: string
  readonly refs: ReadonlyArray<TableRef>
}

export interface CacheBody {
  /** File name in the models directory → its stamp (only files safely older than the compile that read them). */
  readonly files: Record<string, FileStamp>
  /** SQL-text hash → the text and the tables it reads. */
  readonly sql: Record<string, CachedSql>
  /** Sidecar-text hash (after `${VAR}` substitution) → the decoded sidecar. */
  readonly sidecars: Record<string, ModelSidecar>
  /** Contract-text hash → the decoded contract. */
  readonly contracts: Record<string, ModelContract>
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

const digestOf = (body: string) => NodeCrypto.createHash("sha256").update(body).digest("hex")

/** `<models dir's parent>/.pcli/compile-cache/<hash of the models dir>.json`. */
export const cacheFileFor = (modelsDir: string): string => {
  const absolute = NodePath.resolve(modelsDir)
  return NodePath.join(NodePath.dirname(absolute), ".pcli", "compile-cache", `${contentHash(absolute).slice(0, 16)}.json`)
}

export const emptyBody = (): CacheBody => ({ files: {}, sql: {}, sidecars: {}, contracts: {} })

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
    text = NodeFs.readFileSync(cacheFileFor(modelsDir), "utf8")
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
    const body = JSON.parse(bodyText) as unknown
    if (
      !isRecord(body) ||
      !isRecord(body["files"]) ||
      !isRecord(body["sql"]) ||
      !isRecord(body["sidecars"]) ||
      !isRecord(body["contracts"])
    ) {
      return { status: "corrupt", body: emptyBody() }
    }
    return { status: "hit", body: body as unknown as CacheBody }
  } catch {
    return { status: "corrupt", body: emptyBody() }
  }
}

/** Writes the cache (best effort: a read-only project still compiles, just without a cache). */
export const writeCache = (
  modelsDir: string,
  body: CacheBody
): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path> =>
  Effect.suspend(() => {
    const bodyText = JSON.stringify(body)
    const header: Header = { format: FORMAT, build, modelsDir: NodePath.resolve(modelsDir), digest: digestOf(bodyText) }
    return writeFileAtomic(cacheFileFor(modelsDir), `${JSON.stringify(header)}\n${bodyText}`)
  }).pipe(Effect.ignore)

/** Whether a compile may write the cache back; read-only surfaces (`pcli serve`) set it false. */
export class CompileCacheWrites extends Context.Reference<CompileCacheWrites>()("pcli/CompileCacheWrites", {
  defaultValue: () => true
}) {}
