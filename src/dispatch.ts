// The bin's first step (scripts/loader.cjs, which the build bundles with this): reads the line once,
// against the build-time command manifest (cli/argv.ts), and answers --help itself, so help never
// loads a bundle. A line read in full whose command has a light entry (src/light/, built beside the
// bin) goes to it; any other is handed on, already read, to the full bundle (main.ts).
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { readCommandLine } from "./cli/argv"
import { COMMAND_LINE_KEY, LIGHT_LINE_KEY } from "./cli/commandLine"
import type { ManifestNode } from "./cli/manifest"
import { fromManifest } from "./cli/manifestTree"
import { entryName } from "./light/entry"
import { startReadOnlyWorker } from "./services/Warehouse/readOnlyClient"

/** The bundle in dist/ that runs the line (a light entry or `pcli-bundle`), or undefined when help was printed here. */
export type Handover = string | undefined

/** Answers help here; else leaves the line for the bundle that runs it (at LIGHT_LINE_KEY or COMMAND_LINE_KEY) and names that bundle. */
export const dispatch = (dir: string, args: ReadonlyArray<string>): Handover => {
  const manifest = JSON.parse(readFileSync(join(dir, "pcli-commands.json"), "utf8")) as ManifestNode
  const line = readCommandLine(fromManifest(manifest), args)
  if (line._tag !== "Help") {
    const globals = globalThis as Record<symbol, unknown>
    const read = line._tag === "Run" ? line.read : undefined
    // The light entries are the bundles the build made from src/light/: a command without one runs in the full bundle.
    if (read !== undefined && existsSync(join(dir, `pcli-${entryName(read.path)}.cjs`))) {
      globals[LIGHT_LINE_KEY] = read
      // `audit --verify` reads the warehouse's witness (decisions 35): DuckDB's native library loads on a worker meanwhile.
      if (entryName(read.path) === "audit" && Object.hasOwn(read.flags, "--verify")) startReadOnlyWorker(dir)
      return `pcli-${entryName(read.path)}`
    }
    globals[COMMAND_LINE_KEY] = line
    return "pcli-bundle"
  }
  // A reader that went away (`pcli --help | head`) ends our output, not the process (as in main.ts).
  process.stdout.on("error", () => undefined)
  process.stdout.write(line.node.helpText)
  return undefined
}
