import { build } from "esbuild"
import { rmSync } from "node:fs"
import { join } from "node:path"

/**
 * Bundles a test's child-process entry (for what only a fresh process can show, such as
 * NODE_EXTRA_CA_CERTS, read at start-up). It is written inside the project so its external
 * packages resolve from the project's node_modules; `remove` deletes it.
 */
export const bundleChildScript = async (entry: string, name: string) => {
  const dir = join(__dirname, "..", "..", "dist", `test-${name}-${process.pid}`)
  const file = join(dir, "child.mjs")
  await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", packages: "external", outfile: file, logLevel: "silent" })
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
