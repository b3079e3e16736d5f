/**
 * File-system primitives of the commit protocol: directory custody (no symlink anywhere from the
 * project root down to a write directory, identities re-checked before every mutation),
 * no-follow reads, exclusive writes, fsync. Effect's FileSystem has no lstat, O_NOFOLLOW or link
 * counts, so these wrap node:fs directly.
 */
import { Effect, Option } from "effect"
import { constants, type Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import { CommitIo } from "./errors"

/** Backups of finals larger than this are refused (a sidecar or contract is a few KiB). */
export const MAX_BACKUP_BYTES = 16 * 1024 * 1024

const errText = (e: unknown): string => {
  const err = e as NodeJS.ErrnoException
  return err?.code !== undefined ? `${err.code}${err.syscall === undefined ? "" : ` (${err.syscall})`}` : String((e as Error)?.message ?? e)
}

const io = <A>(action: string, rel: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (e) => new CommitIo({ action, path: rel, detail: errText(e) }) })

export const absOf = (root: string, rel: string) => nodePath.join(root, ...rel.split("/"))

/** lstat that maps ENOENT/ENOTDIR to none. */
export const lstatOption = (root: string, rel: string) =>
  Effect.tryPromise({
    try: () => fsp.lstat(absOf(root, rel)).then(Option.some<Stats>),
    catch: (e) => e
  }).pipe(
    Effect.catchAll((e) => {
      const code = (e as NodeJS.ErrnoException)?.code
      return code === "ENOENT" || code === "ENOTDIR"
        ? Effect.succeed(Option.none<Stats>())
        : Effect.fail(new CommitIo({ action: "inspect", path: rel, detail: errText(e) }))
    })
  )

/** The project root with every symlink resolved (the custody walk starts below it). */
export const canonicalRoot = (root: string) => io("canonicalize project root", root, () => fsp.realpath(root))

export interface DirIdentity {
  readonly dev: number
  readonly ino: number
}

/** Directory identities taken once and re-checked before each rename or unlink. */
export type Custody = ReadonlyMap<string, DirIdentity>

const prefixes = (dirRel: string): ReadonlyArray<string> => {
  const parts = dirRel.split("/")
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"))
}

/**
 * Takes custody of each directory and every ancestor below the root: none may be a symlink
 * (even one pointing inside the project) or anything but a directory. Creates missing ones when asked.
 */
export const takeCustody = (root: string, dirs: ReadonlyArray<string>, create: boolean) =>
  Effect.gen(function* () {
    const custody = new Map<string, DirIdentity>()
    for (const dir of dirs) {
      for (const rel of prefixes(dir)) {
        if (custody.has(rel)) continue
        let st = yield* lstatOption(root, rel)
        if (Option.isNone(st)) {
          if (!create) break
          yield* io("create directory", rel, () => fsp.mkdir(absOf(root, rel)).catch((e: NodeJS.ErrnoException) => (e.code === "EEXIST" ? undefined : Promise.reject(e))))
          st = yield* lstatOption(root, rel)
        }
        if (Option.isNone(st)) return yield* new CommitIo({ action: "taking directory custody of", path: rel, detail: "it vanished" })
        if (st.value.isSymbolicLink()) return yield* new CommitIo({ action: "taking directory custody of", path: rel, detail: "it is a symlink" })
        if (!st.value.isDirectory()) return yield* new CommitIo({ action: "taking directory custody of", path: rel, detail: "it is not a directory" })
        custody.set(rel, { dev: st.value.dev, ino: st.value.ino })
      }
    }
    return custody as Custody
  })

export const parentRel = (rel: string) => (rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "")

/** Re-checks the identity of the directory holding `rel` (and its ancestors) before a mutation. */
export const recheck = (root: string, custody: Custody, rel: string) =>
  Effect.gen(function* () {
    const dir = parentRel(rel)
    if (dir === "") return
    for (const p of prefixes(dir)) {
      const expected = custody.get(p)
      if (expected === undefined) return yield* new CommitIo({ action: "re-checking custody of", path: p, detail: "directory was not taken into custody" })
      const st = yield* lstatOption(root, p)
      if (Option.isNone(st) || st.value.isSymbolicLink() || st.value.dev !== expected.dev || st.value.ino !== expected.ino) {
        return yield* new CommitIo({ action: "re-checking custody of", path: p, detail: "the directory was replaced" })
      }
    }
  })

export interface RegularFile {
  readonly bytes: Uint8Array
  readonly mode: number
  readonly nlink: number
}

const withHandle = <A, E>(action: string, rel: string, open: () => Promise<fsp.FileHandle>, use: (h: fsp.FileHandle) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(io(action, rel, open), use, (h) => Effect.tryPromise(() => h.close()).pipe(Effect.ignore))

/** Reads a regular file without following a symlink or blocking on a FIFO; refuses anything else. */
export const readNoFollow = (root: string, rel: string, action = "read", maxBytes = MAX_BACKUP_BYTES) =>
  withHandle(
    action,
    rel,
    () => fsp.open(absOf(root, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK),
    (handle) =>
      Effect.gen(function* () {
        const st = yield* io(action, rel, () => handle.stat())
        if (!st.isFile()) return yield* new CommitIo({ action, path: rel, detail: "not a regular file" })
        if (st.size > maxBytes) return yield* new CommitIo({ action, path: rel, detail: `larger than ${maxBytes} bytes` })
        const bytes = yield* io(action, rel, () => handle.readFile())
        return { bytes: new Uint8Array(bytes), mode: st.mode, nlink: st.nlink } satisfies RegularFile
      })
  )

/** Creates `rel` exclusively (O_EXCL, no-follow) at 0600, writes, applies `mode`, fsyncs. */
export const writeExclusive = (root: string, rel: string, bytes: Uint8Array, mode = 0o644) =>
  withHandle(
    "write",
    rel,
    () => fsp.open(absOf(root, rel), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600),
    (handle) =>
      io("write", rel, async () => {
        await handle.writeFile(bytes)
        // Only permission bits: setuid/setgid/sticky never carry over to a copy.
        await handle.chmod(mode & 0o777)
        await handle.sync()
      })
  )

export const renameRel = (root: string, from: string, to: string) => io("rename", `${from} -> ${to}`, () => fsp.rename(absOf(root, from), absOf(root, to)))

/** Unlinks `rel`; an absent file is fine. */
export const unlinkRel = (root: string, rel: string) =>
  io("remove", rel, () => fsp.unlink(absOf(root, rel)).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e))))

/** fsyncs a directory so renames and unlinks inside it are durable. */
export const fsyncDir = (root: string, dirRel: string) =>
  withHandle(
    "sync directory",
    dirRel === "" ? "." : dirRel,
    () => fsp.open(dirRel === "" ? root : absOf(root, dirRel), constants.O_RDONLY | constants.O_DIRECTORY),
    (handle) => io("sync directory", dirRel, () => handle.sync())
  )

export const stagedRel = (rel: string) => `${rel}.ff-staged`
export const prevRel = (rel: string) => `${rel}.ff-prev`
