import { existsSync, mkdirSync } from "node:fs"
import { resolve } from "node:path"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Served, seededProject, startServe } from "../support/serve"

const CHROMIUM = "/usr/bin/chromium"
const required = process.env.CI === "true"
const present = existsSync(CHROMIUM)
if (!present && !required) console.log(`notice: ${CHROMIUM} is missing, so the dashboard browser test is skipped (it is required when CI=true)`)

// Page-side expressions are strings: they run in the browser, not under Node's types.
const LOADED = `!document.body.textContent.includes("loading…")`

const launch = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })

describe.skipIf(!present && !required)("pcli serve: the dashboard in Chromium", () => {
  let server: Served
  let tokenServer: Served
  let head = ""

  beforeAll(async () => {
    const { dir } = await seededProject()
    server = await startServe(dir)
    tokenServer = await startServe(dir, [], { PCLI_SERVE_TOKEN: "dash-token" })
    head = JSON.parse(await (await fetch(`${server.url}/api/v1/policy`)).text()).ledger_head_hash
  })

  afterAll(async () => {
    await server?.stop()
    await tokenServer?.stop()
  })

  it("renders the seeded products, scorecard and ledger head hash; brief says it is not available yet", async () => {
    const browser = await launch()
    try {
      const page = await browser.newPage()
      await page.goto(`${server.url}/`)
      await page.waitForFunction(LOADED)
      expect(await page.textContent("#head-hash")).toBe(head)
      const products = await page.textContent("#products")
      expect(products).toContain("weekly")
      const scorecard = await page.textContent("#scorecard")
      expect(scorecard).toContain("agent(bot-1)")
      expect(scorecard).toContain("agent(bot-2)")
      expect(await page.textContent("#brief")).toMatch(/Not available on this server yet|decisions/)
      mkdirSync(resolve("test-results"), { recursive: true })
      await page.screenshot({ path: resolve("test-results/dashboard.png"), fullPage: true })
    } finally {
      await browser.close()
    }
  })

  it("under a token it asks for the token, keeps it in memory, then renders", async () => {
    const browser = await launch()
    try {
      const page = await browser.newPage()
      await page.goto(`${tokenServer.url}/`)
      await page.waitForSelector("#token-form:not([hidden])")
      await page.fill("#token", "dash-token")
      await page.click("#token-form button")
      await page.waitForFunction(`document.querySelector("#head-hash")?.textContent === ${JSON.stringify(head)}`)
      expect(await page.textContent("#products")).toContain("weekly")
      expect(await page.evaluate("[localStorage.length, sessionStorage.length, document.cookie]")).toEqual([0, 0, ""])
    } finally {
      await browser.close()
    }
  })

  it("with no data, every section says it is empty", async () => {
    const { makeProject } = await import("../support/cli")
    const empty = makeProject({ "pcli.toml": "[policy]\nversion = 1\n", "models/.keep": "" })
    const s = await startServe(empty)
    const browser = await launch()
    try {
      const page = await browser.newPage()
      await page.goto(`${s.url}/`)
      await page.waitForFunction(LOADED)
      expect(await page.textContent("#products")).toContain("No products yet")
      expect(await page.textContent("#scorecard")).toContain("No policy evaluations recorded yet")
      await page.screenshot({ path: resolve("test-results/dashboard-empty.png"), fullPage: true })
    } finally {
      await browser.close()
      await s.stop()
    }
  })
})
