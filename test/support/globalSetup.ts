import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * Every temp directory a test makes (projects, stores, emulator data) lands under one
 * directory per run, removed at the end, so runs leave nothing behind.
 */
export default function setup() {
  const root = mkdtempSync(join(tmpdir(), "pcli-tests-"))
  const previous = process.env["TMPDIR"]
  process.env["TMPDIR"] = root
  return () => {
    if (previous === undefined) delete process.env["TMPDIR"]
    else process.env["TMPDIR"] = previous
    rmSync(root, { recursive: true, force: true })
  }
}
