import { existsSync, mkdirSync } from "node:fs"
import { resolve } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli"
import { type DashboardProject, dashboardProject } from "../support/dashboard"
import { type Served, startServe } from "../support/serve"

const CHROMIUM = "/usr/bin/chromium"
const required = process.env.CI === "true"
const present = existsSync(CHROMIUM)
if (!present && !required) console.log(`notice: ${CHROMIUM} is missing, so the dashboard browser test is skipped (it is required when CI=true)`)

// The README links this folder: the test writes each view at 1440 and 390 px.
const SHOTS = resolve(__dirname, "../../docs/screenshots")

const launch = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })

/** Every view by its URL, with a fact of the seeded project it must show. */
const views = (p: DashboardProject): ReadonlyArray<readonly [string, string, string]> => [
  ["overview", "#/", "schema migration"],
  ["runs", "#/runs", "partial_failure"],
  ["run", `#/runs/${p.failedRunId}`, "seeded failure"],
  ["models", "#/models", "broken_orders"],
  ["model", "#/models/broken_orders", "seeded failure"],
  ["policy", "#/policy", "human(alice)"],
  ["ledger", "#/ledger", "bot-1"],
  ["plans", "#/plans", "escalation"],
  ["plan", `#/plans/${p.planId}`, `pcli review ${p.planId} --approve`],
  ["products", "#/products", "tampered"]
]

/** Waits for the view the URL names to have rendered `fact` (on the DOM, never a sleep). */
// Page-side expressions are strings: they run in the browser, not under Node's types.
const showing = (page: Page, fact: string, timeout = 10_000) => page.waitForFunction(`document.querySelector("#main")?.textContent?.includes(${JSON.stringify(fact)}) === true`, undefined, { timeout })

describe.skipIf(!present && !required)("pcli serve: the dashboard in Chromium", () => {
  let project: DashboardProject
  let server: Served
  let browser: Browser
  const consoleErrors: Array<string> = []

  const openPage = async (width: number, url = server.url) => {
    const page = await browser.newPage({ viewport: { width, height: 900 } })
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(`${width}px ${page.url()}: ${m.text()}`)
    })
    page.on("pageerror", (e) => consoleErrors.push(`${width}px ${page.url()}: ${e.message}`))
    await page.goto(`${url}/`)
    await showing(page, "Brief")
    return page
  }

  beforeAll(async () => {
    ;[project, browser] = await Promise.all([dashboardProject(), launch()])
    server = await startServe(project.dir)
    mkdirSync(SHOTS, { recursive: true })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it("clicks through every view: each shows the seeded facts; deep links and the back button work", async () => {
    const page = await openPage(1440)
    // Through the navigation, as a user clicks.
    await page.click('nav a[data-view="runs"]')
    await showing(page, "partial_failure")
    await page.click(`a[href="#/runs/${project.failedRunId}"]`)
    await showing(page, "seeded failure")
    expect(await page.textContent("#main")).toMatch(/broken_orders\s*failed/)
    await page.goBack()
    await showing(page, "partial_failure")
    expect(new URL(page.url()).hash).toBe("#/runs")

    await page.click('nav a[data-view="models"]')
    await showing(page, "mart_customer_ltv")
    await page.fill("#model-search", "broken")
    await page.waitForFunction(`!document.querySelector("#model-rows").textContent.includes("mart_customer_ltv")`)
    expect(await page.getAttribute('.graph a[data-model="broken_orders"]', "data-status")).toBe("failed")
    await page.click('#model-rows a[href="#/models/broken_orders"]')
    await showing(page, "seeded failure")
    expect(await page.textContent("#model-sql")).toContain("SELECT error('seeded failure')")
    expect(await page.textContent("#verdicts")).toMatch(/agent apply[\s\S]*agent propose/)
    expect(await page.textContent("#model-runs")).toContain("failed")

    await page.click('nav a[data-view="policy"]')
    await showing(page, "Rules (file order)")
    expect(await page.textContent("#policy-freezes")).toMatch(/agent on layer=staging — schema migration \(by human\(alice\)/)
    expect(await page.textContent("#default-effect")).toBe("require_review")

    await page.click('nav a[data-view="ledger"]')
    await showing(page, "Verify the chain")
    await page.fill('#ledger-filters input[name="actor"]', "bot-1")
    await page.click('#ledger-filters button[type="submit"]')
    await page.waitForFunction(`location.hash === "#/ledger?actor=bot-1"`)
    // The filtered page has replaced the unfiltered one once every actor cell is the filter's.
    await page.waitForFunction(`[...document.querySelectorAll("#ledger-rows tbody tr td:nth-child(3)")].every((c) => c.textContent === "agent(bot-1)")`)
    const actors = await page.$$eval("#ledger-rows tbody tr td:nth-child(3)", (cells) => [...new Set(cells.map((c) => c.textContent))])
    expect(actors).toEqual(["agent(bot-1)"])
    await page.click(`#ledger-rows a[href="#/plans/${project.planId}"]`)
    await showing(page, "--approve")
    await page.goBack()
    await showing(page, "Verify the chain")
    await page.click("#chain button")
    await page.waitForSelector("#chain .s-intact")

    await page.click('nav a[data-view="plans"]')
    await showing(page, "All plans")
    expect(await page.textContent("#queue")).toContain("escalation")
    await page.click(`#plans a[href="#/plans/${project.planId}"]`)
    await showing(page, "--approve")
    expect(await page.textContent("#approve-command")).toBe(`pcli review ${project.planId} --approve`)
    expect(await page.textContent("#approval")).toContain("pending")
    expect(await page.textContent("#diff")).toContain("mart_daily_revenue")

    await page.click('nav a[data-view="products"]')
    await showing(page, "tampered")
    const rows = await page.$$eval("#products tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)))
    expect(rows).toEqual([
      ["daily", "snapshot_tampered", "tampered"],
      // The playground's own product: a spec, never approved.
      ["revenue_by_region", "spec only", "-"],
      ["weekly", "spec_approved", "intact"]
    ])

    // Deep links: every view straight from its URL, in a fresh page; a screenshot of each.
    const deep = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    for (const [name, hash, fact] of views(project)) {
      await deep.goto(`${server.url}/${hash}`)
      await showing(deep, fact)
      await deep.screenshot({ path: `${SHOTS}/1440-${name}.png`, fullPage: true })
    }
    await deep.close()
    await page.close()
  }, 60_000)

  it("a freeze made from the CLI while the page is open appears within 2 s, without a reload", async () => {
    const page = await openPage(1440)
    await page.evaluate("window.sameDocument = true")
    const frozen = await runCli(["policy", "freeze", "--principal", "agent", "--scope", "layer=mart", "--reason", "quarter close"], { cwd: project.dir, env: { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "carol" } })
    expect(frozen.code, frozen.stderr).toBe(0)
    await showing(page, "quarter close", 2_000)
    expect(await page.textContent('[data-freeze="layer=mart"]')).toContain("by human(carol)")
    expect(await page.evaluate("window.sameDocument")).toBe(true)
    await page.close()
  })

  it("at 390 px no view is wider than the viewport; the keyboard reaches the navigation", async () => {
    const page = await openPage(390)
    for (const [name, hash, fact] of views(project)) {
      await page.goto(`${server.url}/${hash}`)
      await showing(page, fact)
      const [scrollWidth, clientWidth] = (await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")) as [number, number]
      expect(scrollWidth, `${name} at 390 px`).toBeLessThanOrEqual(clientWidth)
      await page.screenshot({ path: `${SHOTS}/390-${name}.png`, fullPage: true })
    }
    // A long id is shortened, its full value on hover (title) and copy.
    await page.goto(`${server.url}/#/plans`)
    await showing(page, "All plans")
    const id = page.locator(`#plans a[href="#/plans/${project.planId}"]`)
    expect(await id.getAttribute("title")).toBe(project.planId)
    expect((await id.textContent())!.length).toBeLessThan(20)
    await page.close()
    // Keyboard, on a fresh page: skip link, the title, then the navigation; Enter opens a view.
    const keys = await openPage(390)
    await keys.keyboard.press("Tab")
    await keys.keyboard.press("Tab")
    await keys.keyboard.press("Tab")
    await keys.keyboard.press("Tab")
    expect(await keys.evaluate(`document.activeElement?.getAttribute("data-view")`)).toBe("runs")
    await keys.keyboard.press("Enter")
    await showing(keys, "partial_failure")
    await keys.close()
  })

  it("the console stayed at zero errors across every view", () => {
    expect(consoleErrors).toEqual([])
  })

  it("when the server is gone a banner says so", async () => {
    const own = await startServe(project.dir)
    const page = await browser.newPage()
    try {
      await page.goto(`${own.url}/`)
      await page.waitForFunction(`document.body.dataset.live === "up"`)
      expect(await page.isHidden("#offline")).toBe(true)
      await own.stop()
      await page.waitForSelector("#offline", { state: "visible" })
    } finally {
      await page.close()
      await own.stop()
    }
  })

  it("under a token it asks for the token, keeps it in memory, then renders", async () => {
    const tokenServer = await startServe(project.dir, [], { PCLI_SERVE_TOKEN: "dash-token" })
    const page = await browser.newPage()
    try {
      await page.goto(`${tokenServer.url}/`)
      await page.waitForSelector("#token-form:not([hidden])")
      await page.fill("#token", "dash-token")
      await page.click("#token-form button")
      await showing(page, "schema migration")
      await page.waitForFunction(`document.body.dataset.live === "up"`)
      expect(await page.evaluate("[localStorage.length, sessionStorage.length, document.cookie]")).toEqual([0, 0, ""])
    } finally {
      await page.close()
      await tokenServer.stop()
    }
  })
})
