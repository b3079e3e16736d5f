import * as NodeFs from "node:fs"

/**
 * A file's stat must be this much older than the compile reading it before the stat is trusted
 * later: a write within the file system's timestamp granularity could otherwise keep the same
 * stat (git's "racily clean" entries).
 */
export const racyMarginMs = 1000

/** Numbers per model in `statModels`' result: size, mtimeMs, ctimeMs, ino of its .sql, .toml and .contract.toml (NaN: no such file). */
export const statsPerModel = 12

const statOptions = { throwIfNoEntry: false } as const

/** Size, mtimeMs, ctimeMs, ino of `path` at `out[at …]`; left NaN when it cannot be stated (no stamp equals NaN). */
const statInto = (path: string, out: Float64Array, at: number): void => {
  try {
    const s = NodeFs.statSync(path, statOptions)
    if (s === undefined) return
    out[at] = s.size
    out[at + 1] = s.mtimeMs
    out[at + 2] = s.ctimeMs
    out[at + 3] = s.ino
  } catch {
    // Left NaN.
  }
}

/**
 * Every model's file stats in one flat array (`statsPerModel` numbers each, in `names` order; no
 * object kept per file: 22,000 files at 10,000 models). `hasContract(i)`: model i has a contract file.
 */
export const statModels = (prefix: string, names: ReadonlyArray<string>, hasContract: (i: number) => boolean): Float64Array => {
  const out = new Float64Array(names.length * statsPerModel).fill(Number.NaN)
  for (let i = 0; i < names.length; i++) {
    const base = prefix + names[i]
    const at = statsPerModel * i
    statInto(`${base}.sql`, out, at)
    statInto(`${base}.toml`, out, at + 4)
    if (hasContract(i)) statInto(`${base}.contract.toml`, out, at + 8)
  }
  return out
}
