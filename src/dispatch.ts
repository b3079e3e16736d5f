// The bin's first step (scripts/loader.cjs, which the build bundles with this): a plain light line
// (cli/lightLine.ts) goes straight to its command's light entry (light/); any other line is read
// against the build-time command manifest, which answers --help itself, so help never loads a
// bundle. What is not help is handed on, already read: a light line to its entry, the rest to the bundle (main.ts).
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readCommandLine } from "./cli/argv"
import { COMMAND_LINE_KEY } from "./cli/commandLine"
import { LIGHT_BUNDLES, LIGHT_LINE_KEY, type LightLine, readLightLine, readPlainLightLine } from "./cli/lightLine"
import type { ManifestNode } from "./cli/manifest"
import { fromManifest } from "./cli/manifestTree"

/** The bundle in dist/ that runs the line (a light entry or `pcli-bundle`), or undefined when help was printed here. */
export type Handover = string | undefined

const handToLightEntry = (light: LightLine): Handover => {
  ;(globalThis as Record<symbol, unknown>)[LIGHT_LINE_KEY] = light
  return LIGHT_BUNDLES[light.command]
}

/** Answers help here; else leaves the line for the bundle that runs it (at LIGHT_LINE_KEY or COMMAND_LINE_KEY) and names that bundle. */
export const dispatch = (dir: string, args: ReadonlyArray<string>): Handover => {
  const plain = readPlainLightLine(args)
  if (plain !== undefined) return handToLightEntry(plain)
  const manifest = JSON.parse(readFileSync(join(dir, "pcli-commands.json"), "utf8")) as ManifestNode
  const line = readCommandLine(fromManifest(manifest), args)
  if (line._tag !== "Help") {
    const light = line._tag === "Run" ? readLightLine(line.argv) : undefined
    if (light !== undefined) return handToLightEntry(light)
    ;(globalThis as Record<symbol, unknown>)[COMMAND_LINE_KEY] = line
    return "pcli-bundle"
  }
  // A reader that went away (`pcli --help | head`) ends our output, not the process (as in main.ts).
  process.stdout.on("error", () => undefined)
  process.stdout.write(line.node.helpText)
  return undefined
}
