import * as fs from "node:fs"

/**
 * The catalog as pcli last closed the warehouse file (decisions.md "The no-op run never opens DuckDB"):
 * which relations it held, and the file's identity right after close (size, mtime and ctime in
 * nanoseconds, inode). While the file has that identity and no write-ahead log beside it, nothing
 * has touched it since, so the relations are still exactly those: a run can tell that every
 * reused table exists without loading DuckDB.
 */
interface Snapshot {
  readonly stamp: string
  readonly relations: ReadonlyArray<string>
}

export const snapshotPath = (file: string) => `${file}.pcli-catalog.json`

/** The file's identity; undefined when it does not exist. */
const stampOf = (file: string): string | undefined => {
  try {
    const s = fs.statSync(file, { bigint: true })
    return `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}:${s.dev}`
  } catch {
    return undefined
  }
}

/** Relations (`schema.table`, lower case) when the snapshot still describes the file; else undefined. */
export const readSnapshot = (file: string): ReadonlySet<string> | undefined => {
  try {
    if (fs.existsSync(`${file}.wal`)) return undefined
    const snapshot = JSON.parse(fs.readFileSync(snapshotPath(file), "utf8")) as Snapshot
    const stamp = stampOf(file)
    if (stamp === undefined || snapshot.stamp !== stamp || !Array.isArray(snapshot.relations)) return undefined
    return new Set(snapshot.relations.map(String))
  } catch {
    return undefined
  }
}

/** Drops the snapshot: done before DuckDB opens the file, so a process that dies holding it leaves none. */
export const forgetSnapshot = (file: string): void => {
  try {
    fs.rmSync(snapshotPath(file), { force: true })
  } catch {
    // A snapshot that cannot be removed no longer matches the file once DuckDB writes it.
  }
}

/** Records the relations read just before close against the file as it is after close (no log left). */
export const writeSnapshot = (file: string, relations: ReadonlyArray<string>): void => {
  const stamp = stampOf(file)
  if (stamp === undefined || fs.existsSync(`${file}.wal`)) return
  const target = snapshotPath(file)
  const staged = `${target}.${process.pid}.tmp`
  try {
    fs.writeFileSync(staged, JSON.stringify({ stamp, relations } satisfies Snapshot))
    fs.renameSync(staged, target)
  } catch {
    fs.rmSync(staged, { force: true })
  }
}
