// The part of autocannon's API bench/serve.ts uses (the package ships no types).
declare module "autocannon" {
  interface Histogram {
    readonly average: number
    readonly p50: number
    readonly p99: number
  }
  interface Result {
    readonly requests: Histogram
    readonly latency: Histogram
    readonly non2xx: number
    readonly errors: number
  }
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
  }
  function autocannon(options: Options, done: (err: Error | null, result: Result) => void): unknown
  namespace autocannon {
    export type { Result }
  }
  export default autocannon
}
