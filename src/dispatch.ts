// The bin's first step (scripts/loader.cjs): reads the command line against the build-time command
// manifest and answers --help itself, so help never loads a bundle. Any other line is handed on,
// already read: a light one (cli/lightLine.ts) to its command's light entry (light/), the rest to the bundle (main.ts).
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readCommandLine } from "./cli/argv"
import { COMMAND_LINE_KEY } from "./cli/commandLine"
import { LIGHT_BUNDLES, LIGHT_LINE_KEY, readLightLine } from "./cli/lightLine"
import type { ManifestNode } from "./cli/manifest"
import { fromManifest } from "./cli/manifestTree"

/** The bundle in dist/ that runs the line (a light entry or `pcli-bundle`), or undefined when help was printed here. */
export type Handover = string | undefined

/** Answers help here; else leaves the line for the bundle that runs it (at LIGHT_LINE_KEY or COMMAND_LINE_KEY) and names that bundle. */
export const dispatch = (dir: string, args: ReadonlyArray<string>): Handover => {
  const manifest = JSON.parse(readFileSync(join(dir, "pcli-commands.json"), "utf8")) as ManifestNode
  const line = readCommandLine(fromManifest(manifest), args)
  if (line._tag !== "Help") {
    const light = line._tag === "Run" ? readLightLine(line.argv) : undefined
    if (light !== undefined) {
      ;(globalThis as Record<symbol, unknown>)[LIGHT_LINE_KEY] = light
      return LIGHT_BUNDLES[light.command]
    }
    ;(globalThis as Record<symbol, unknown>)[COMMAND_LINE_KEY] = line
    return "pcli-bundle"
  }
  // A reader that went away (`pcli --help | head`) ends our output, not the process (as in main.ts).
  process.stdout.on("error", () => undefined)
  process.stdout.write(line.node.helpText)
  return undefined
}
