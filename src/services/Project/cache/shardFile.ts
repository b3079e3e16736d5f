import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { stagedSibling } from "../../../platform/atomicWrite"
import { contentHash, sha1 } from "./contentKey"
import type { TableRef } from "../sql"

// The compile cache's files as bytes on disk (compileCache.ts holds the cache in memory): no Effect
// here, so the read-ahead worker's bundle writes shards with the same code as the compiling thread.

declare const PCLI_BUILD: string
/** The build id (version + source hash, set by the bundler); "dev" when running from source. */
export const cacheBuild = typeof PCLI_BUILD === "string" ? PCLI_BUILD : "dev"
export const SHARD_FORMAT = "pcli-compile-cache/5"

/**
 * A shard's body in its stored form, ready to be written (and cheap to post to a worker): stamps
 * as flat columns, SQL entries as arrays, and the decoded sidecars and contracts already as the
 * JSON text of their `[key, value]` pairs, comma-separated.
 */
export interface StoredParts {
  readonly files: { readonly names: Array<string>; readonly stamps: Array<number>; readonly keys: Array<string> }
  readonly sql: Array<readonly [string, string, ReadonlyArray<TableRef>]>
  readonly sidecars: string
  readonly contracts: string
}

/** The body's JSON: `{"files":…,"sql":…,"sidecars":[…],"contracts":[…]}`. */
export const partsJson = (parts: StoredParts): string =>
  `{"files":${JSON.stringify(parts.files)},"sql":${JSON.stringify(parts.sql)},"sidecars":[${parts.sidecars}],"contracts":[${parts.contracts}]}`

export interface ShardHeader {
  readonly format: string
  readonly build: string
  readonly modelsDir: string
  readonly shard: number
  readonly digest: string
}

/** Detects a torn or edited body (not an adversary: the cache lives inside the project); hashed as bytes. */
export const digestOf = (body: Uint8Array) => sha1(body)

/** `contentHash` of the parts' concatenation, without making it (fresh megabytes are slow to touch). */
export const contentHashOfParts = (parts: ReadonlyArray<Uint8Array>): string => {
  const hash = NodeCrypto.createHash("sha1")
  for (const part of parts) hash.update(part)
  return hash.digest("base64url")
}

/** JSON text with every non-ASCII character escaped, so the file reads back byte for character. */
export const asciiOnly = (json: string): string =>
  // As many UTF-8 bytes as characters only when every character is ASCII: then there is nothing to escape.
  Buffer.byteLength(json, "utf8") === json.length ? json : json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
export const asciiJson = (value: unknown): string => asciiOnly(JSON.stringify(value))

/** `<models dir's parent>/.pcli/compile-cache/<hash of the models dir>.<shard>.json`. */
export const cacheFileFor = (modelsDir: string, shard: number): string => {
  const absolute = NodePath.resolve(modelsDir)
  return NodePath.join(
    NodePath.dirname(absolute),
    ".pcli",
    "compile-cache",
    `${contentHash(absolute).slice(0, 16)}.${String(shard).padStart(2, "0")}.json`
  )
}

/**
 * Writes the parts one after another to a staged sibling of `file`, then renames it over `file` (a
 * reader sees the old file or the new one). Not fsynced: the cache's files are derived data whose
 * digest catches a torn write.
 */
export const writeStagedParts = (file: string, parts: ReadonlyArray<Uint8Array>): void => {
  const staged = stagedSibling(file, NodePath)
  let renamed = false
  try {
    const fd = NodeFs.openSync(staged, "w")
    try {
      for (const part of parts) {
        for (let done = 0; done < part.length; ) done += NodeFs.writeSync(fd, part, done, part.length - done)
      }
    } finally {
      NodeFs.closeSync(fd)
    }
    NodeFs.renameSync(staged, file)
    renamed = true
  } finally {
    // Only a write that failed leaves the staged file behind (a renamed one is gone already).
    if (!renamed) NodeFs.rmSync(staged, { force: true })
  }
}

/**
 * Writes shards (best effort, shard by shard: a shard left unwritten is rebuilt by the next
 * compile); undefined parts remove the shard's file. `build`: the build that reads them (the
 * compiling thread's, which a worker is told). Not fsynced: a shard torn by a crash fails
 * its digest and is rebuilt; staged and renamed, so a reader sees the old file or the new one.
 */
export const writeShardFiles = (
  modelsDir: string,
  shards: ReadonlyArray<readonly [number, StoredParts | undefined]>,
  build: string = cacheBuild
): void => {
  let dirMade = false
  for (const [shard, parts] of shards) {
    const file = cacheFileFor(modelsDir, shard)
    try {
      if (parts === undefined) {
        NodeFs.rmSync(file, { force: true })
        continue
      }
      if (!dirMade) NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
      dirMade = true
      const bodyBytes = Buffer.from(asciiOnly(partsJson(parts)), "latin1")
      const header: ShardHeader = { format: SHARD_FORMAT, build, modelsDir: NodePath.resolve(modelsDir), shard, digest: digestOf(bodyBytes) }
      writeStagedParts(file, [Buffer.from(`${asciiJson(header)}\n`, "latin1"), bodyBytes])
    } catch {
      // Best effort: the next compile rebuilds this shard.
    }
  }
}
