import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default is one worker per core less one: a single worker on 2 cores, while most files
    // wait on a child process (the binary, an emulator). Three keep both cores busy.
    maxWorkers: 3
  }
})
