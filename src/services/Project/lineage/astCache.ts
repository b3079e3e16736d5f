// DuckDB's parse of each model's SQL, kept by content hash in `.pcli/lineage-cache.json`, so a
// lineage over unchanged SQL does not load DuckDB at all. Best effort: an unreadable or foreign
// file is an empty cache, a failed write is ignored; the key is the SQL text's hash, so no entry goes stale.
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { cacheBuild } from "../cache"

interface CacheFile {
  readonly build: string
  readonly entries: Readonly<Record<string, string>>
}

const fileIn = (root: string) => NodePath.join(root, ".pcli", "lineage-cache.json")

export const sqlKey = (sql: string) => createHash("sha256").update(sql).digest("hex")

/** The cached serializations by SQL hash; empty when there is none, or it was written by another build. */
export const readAstCache = (root: string): ReadonlyMap<string, string> => {
  try {
    const parsed = JSON.parse(NodeFs.readFileSync(fileIn(root), "utf8")) as CacheFile
    return parsed.build === cacheBuild && typeof parsed.entries === "object" && parsed.entries !== null ? new Map(Object.entries(parsed.entries)) : new Map()
  } catch {
    return new Map()
  }
}

/** Replaces the cache with exactly these entries (the project's current SQL), staged then renamed. */
export const writeAstCache = (root: string, entries: ReadonlyMap<string, string>) => {
  try {
    const file = fileIn(root)
    NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
    const staged = `${file}.${process.pid}.tmp`
    NodeFs.writeFileSync(staged, JSON.stringify({ build: cacheBuild, entries: Object.fromEntries(entries) } satisfies CacheFile))
    NodeFs.renameSync(staged, file)
  } catch {
    // A cache that cannot be written only costs the next lineage a parse.
  }
}
