import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * Every temp directory a test makes (projects, stores, emulator data) lands under one
 * directory per run, removed at the end, so runs leave nothing behind. The suite's processes
 * (forks, the binary, emulators) start without the host's NODE_EXTRA_CA_CERTS: Node parses
 * that file at every start (~50 ms for a system bundle), and a test that trusts a CA names its own.
 */
export default function setup() {
  const root = mkdtempSync(join(tmpdir(), "pcli-tests-"))
  const previous = { TMPDIR: process.env["TMPDIR"], NODE_EXTRA_CA_CERTS: process.env["NODE_EXTRA_CA_CERTS"] }
  process.env["TMPDIR"] = root
  delete process.env["NODE_EXTRA_CA_CERTS"]
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    rmSync(root, { recursive: true, force: true })
  }
}
