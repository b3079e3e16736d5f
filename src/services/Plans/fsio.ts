import { Effect } from "effect"
import { constants } from "node:fs"
import { open } from "node:fs/promises"

/** The one import of the shared atomic writer for plans, markers and applied state (repoint here). */
export { writeFileAtomic } from "../../platform/atomicWrite"

export type RegularFileRead =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "NotAFile"; readonly found: string }
  | { readonly _tag: "Text"; readonly text: string }

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

/**
 * Reads a file only if it is a regular file: opened with O_NOFOLLOW so a symlink is never
 * followed (no window between a check and the read), then checked on the open descriptor.
 */
export const readRegularFile = (path: string): Effect.Effect<RegularFileRead, { readonly detail: string }> =>
  Effect.tryPromise({
    try: async (): Promise<RegularFileRead> => {
      let handle
      try {
        handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      } catch (e) {
        if (errno(e) === "ENOENT") return { _tag: "Missing" }
        if (errno(e) === "ELOOP") return { _tag: "NotAFile", found: "symbolic link" }
        throw e
      }
      try {
        const info = await handle.stat()
        if (info.isDirectory()) return { _tag: "NotAFile", found: "directory" }
        if (!info.isFile()) return { _tag: "NotAFile", found: "special file" }
        return { _tag: "Text", text: await handle.readFile("utf8") }
      } finally {
        await handle.close()
      }
    },
    catch: (e) => ({ detail: e instanceof Error ? e.message : String(e) })
  })
