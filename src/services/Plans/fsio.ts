import { Effect } from "effect"
import * as NodeFs from "node:fs"
import { promisify } from "node:util"

/** The one import of the shared atomic writer for plans, markers and applied state (repoint here). */
export { writeFileAtomic } from "../../platform/atomicWrite"

export type RegularFileRead =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "NotAFile"; readonly found: string }
  | { readonly _tag: "Text"; readonly text: string }

// node:fs's callbacks, not node:fs/promises: that module (with the readline, watch and dir modules it loads) costs every plan reader ~1 ms of start-up.
const open = promisify(NodeFs.open)
const fstat = promisify(NodeFs.fstat)
const readFile = promisify(NodeFs.readFile)
const close = promisify(NodeFs.close)

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

/**
 * Reads a file only if it is a regular file: opened with O_NOFOLLOW so a symlink is never
 * followed (no window between a check and the read), then checked on the open descriptor.
 */
export const readRegularFile = (path: string): Effect.Effect<RegularFileRead, { readonly detail: string }> =>
  Effect.tryPromise({
    try: async (): Promise<RegularFileRead> => {
      let fd: number
      try {
        fd = await open(path, NodeFs.constants.O_RDONLY | NodeFs.constants.O_NOFOLLOW | NodeFs.constants.O_NONBLOCK)
      } catch (e) {
        if (errno(e) === "ENOENT") return { _tag: "Missing" }
        if (errno(e) === "ELOOP") return { _tag: "NotAFile", found: "symbolic link" }
        throw e
      }
      try {
        const info = await fstat(fd)
        if (info.isDirectory()) return { _tag: "NotAFile", found: "directory" }
        if (!info.isFile()) return { _tag: "NotAFile", found: "special file" }
        return { _tag: "Text", text: await readFile(fd, "utf8") }
      } finally {
        await close(fd)
      }
    },
    catch: (e) => ({ detail: e instanceof Error ? e.message : String(e) })
  })
