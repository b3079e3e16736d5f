// The bin reads the command line and answers --help from dist/pcli-commands.json, written at build
// time (src/cli/manifest.ts). It must be exactly what the live command tree gives: the same shapes
// and help text, and the same reading of any command line.
import fc from "fast-check"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { type CommandLine, readCommandLine } from "../../src/cli/argv"
import { allNodes, type CommandNode } from "../../src/cli/commandTree"
import { renderHelp } from "../../src/cli/help"
import { type ManifestCommand, type ManifestNode, toManifest } from "../../src/cli/manifest"
import { fromManifest } from "../../src/cli/manifestTree"
import { rootTree } from "../../src/cli/root"
import { PCLI_BIN, runCli } from "../support/cli"

const version = (JSON.parse(readFileSync(resolve(__dirname, "../../package.json"), "utf8")) as { version: string }).version
const built = JSON.parse(readFileSync(resolve(PCLI_BIN, "../pcli-commands.json"), "utf8")) as ManifestNode
const live = rootTree()
const fromBuild = fromManifest(built)

/** A reading as comparable data: the tag, the message or argv, and for help the node's path and text. */
const reading = <N extends { readonly path: ReadonlyArray<string> }>(line: CommandLine<N>, help: (node: N) => string) =>
  line._tag === "Help" ? { _tag: "Help", path: line.node.path, text: help(line.node) } : line

const liveReading = (args: ReadonlyArray<string>) => reading(readCommandLine(live, args), (n: CommandNode) => renderHelp(live, n, version))
const builtReading = (args: ReadonlyArray<string>) => reading(readCommandLine(fromBuild, args), (n: ManifestCommand) => n.helpText)

const nodes = allNodes(live)
const words = [...new Set(nodes.flatMap((n) => n.path))]
const flagNames = [...new Set(nodes.flatMap((n) => n.shape().flags.flatMap((f) => [f.name, ...f.aliases])))]
const values = [...new Set(nodes.flatMap((n) => n.shape().flags.flatMap((f) => f.choices ?? [])))]

const token = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...words) },
  { weight: 4, arbitrary: fc.constantFrom(...flagNames) },
  { weight: 2, arbitrary: fc.constantFrom(...values, "x", "models", "json") },
  { weight: 1, arbitrary: fc.constantFrom("--help", "-h", "--version", "--completions", "--bogus", "--output=json", "-", "--", "-1") },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom(...flagNames).map((f) => `${f}=v`) }
)

describe("the build-time command manifest", () => {
  it("is the live command tree: every command's shape, declared order and --help text", () => {
    expect(built).toEqual(JSON.parse(JSON.stringify(toManifest(live, version))))
  })

  it("reads any command line as the live tree does", () => {
    for (const node of nodes) expect(builtReading([...node.path, "--help"])).toEqual(liveReading([...node.path, "--help"]))
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), (args) => {
        expect(builtReading(args)).toEqual(liveReading(args))
      }),
      { numRuns: 500 }
    )
  })

  it("pcli <path> --help prints the live tree's help text", async () => {
    const cwd = resolve(__dirname, "../..")
    for (const node of [live, ...live.children.slice(0, 3), ...nodes.filter((n) => n.path[0] === "policy")]) {
      const result = await runCli([...node.path, "--help"], { cwd })
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 0, stdout: renderHelp(live, node, version), stderr: "" })
    }
  })
})
