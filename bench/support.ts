import { spawnSync } from "node:child_process"

/** Wall time of one process run, in milliseconds. */
export const timeProcess = (command: string, args: ReadonlyArray<string>, cwd?: string) => {
  const start = process.hrtime.bigint()
  const r = spawnSync(command, args, { cwd, stdio: "ignore" })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(" ")} exited ${r.status}`)
  return ms
}

export const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** Prints rows as a Markdown table. */
export const printTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>) => {
  const cells = [header, ...rows.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)))
  const line = (r: ReadonlyArray<string>) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  console.log(line(header))
  console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`)
  for (const r of cells.slice(1)) console.log(line(r))
}
