// The bin's first step (scripts/loader.cjs): reads the command line against the build-time command
// manifest and answers --help itself, so help never loads the bundle. Any other line is handed to
// the bundle (main.ts), already read.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readCommandLine } from "./cli/argv"
import { COMMAND_LINE_KEY } from "./cli/commandLine"
import type { ManifestNode } from "./cli/manifest"
import { fromManifest } from "./cli/manifestTree"

/** False when the line was answered here (help printed); else the line is left for the bundle at COMMAND_LINE_KEY. */
export const dispatch = (dir: string, args: ReadonlyArray<string>): boolean => {
  const manifest = JSON.parse(readFileSync(join(dir, "pcli-commands.json"), "utf8")) as ManifestNode
  const line = readCommandLine(fromManifest(manifest), args)
  if (line._tag !== "Help") {
    ;(globalThis as Record<symbol, unknown>)[COMMAND_LINE_KEY] = line
    return true
  }
  // A reader that went away (`pcli --help | head`) ends our output, not the process (as in main.ts).
  process.stdout.on("error", () => undefined)
  process.stdout.write(line.node.helpText)
  return false
}
