// Adds the lockfile entries npm leaves out for other platforms' optional binaries when the
// registry serves a package's metadata but not that version (npm/cli#9846): without them
// `npm ci` refuses the lock. Each entry carries os/cpu, so installs on Linux skip it.
// Run after changing dependencies: node scripts/complete-lockfile.cjs
"use strict"
const { execFileSync } = require("node:child_process")
const { readFileSync, writeFileSync } = require("node:fs")
const Arborist = require("/usr/lib/node_modules/npm/node_modules/@npmcli/arborist")

const platformFields = (name) => {
  const raw = execFileSync("npm", ["view", name, "os", "cpu", "libc", "license", "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
  const info = JSON.parse(raw)
  return Array.isArray(info) ? info[info.length - 1] : info
}

const main = async () => {
  const arb = new Arborist({ path: process.cwd() })
  const tree = await arb.buildIdealTree()
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8"))
  let added = 0
  for (const node of tree.inventory.values()) {
    if (node.version !== "" || node.isRoot || lock.packages[node.location] !== undefined) continue
    const spec = [...node.edgesIn][0]?.spec
    if (spec === undefined || !/^\d/.test(spec)) throw new Error(`${node.name}: no exact version pinned (${spec})`)
    const fields = platformFields(node.name)
    const optionalFromDev = [...node.edgesIn].every((e) => e.from?.dev)
    lock.packages[node.location] = {
      version: spec,
      ...(fields.cpu ? { cpu: fields.cpu } : {}),
      ...(optionalFromDev ? { dev: true } : {}),
      ...(fields.libc ? { libc: fields.libc } : {}),
      ...(fields.license ? { license: fields.license } : {}),
      optional: true,
      ...(fields.os ? { os: fields.os } : {})
    }
    added++
  }
  const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
  writeFileSync("package-lock.json", `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`)
  console.log(`added ${added} platform entries`)
}
main().catch((e) => {
  console.error(e.message)
  process.exit(1)
})
