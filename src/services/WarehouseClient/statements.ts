import { Context, Duration, Effect, Layer, Option, Ref, Schedule, Schema } from "effect"
import {
  type ColumnInfo,
  isTerminalState,
  ResultChunk,
  StatementResponse
} from "../../schemas/warehouse-api"
import { decodeRows } from "./cells"
import { StatementExecutionFailed, StatementTimedOut, WarehouseResponseInvalid } from "./errors"
import { type WarehouseCallError, WarehouseClient } from "./WarehouseClient"

export interface StatementOutcome {
  readonly statementId: string
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: string }>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
}

export type StatementError = WarehouseCallError | StatementExecutionFailed | StatementTimedOut

export interface WarehouseStatementsService {
  /** Submits, waits, polls to a terminal state and reads every result chunk; cancels past the time-out. */
  readonly execute: (sql: string) => Effect.Effect<StatementOutcome, StatementError>
  readonly cancel: (statementId: string) => Effect.Effect<void, WarehouseCallError>
}

export class WarehouseStatements extends Context.Tag("pcli/WarehouseStatements")<
  WarehouseStatements,
  WarehouseStatementsService
>() {}

const STATEMENTS = "/api/2.0/sql/statements"
const Empty = Schema.Struct({})

/** 100 ms doubling to a 5 s ceiling between polls. */
const pollSchedule = Schedule.exponential("100 millis", 2).pipe(
  Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.seconds(5)))
)

/** The server may hold the submit this long; 0 when the whole budget is shorter, so cancel stays possible. */
const waitTimeoutFor = (timeoutSeconds: number) => (timeoutSeconds >= 10 ? "5s" : "0s")

export const make = Effect.gen(function* () {
  const client = yield* WarehouseClient
  const host = client.host

  const cancel = (statementId: string) =>
    client.call({ method: "POST", path: `${STATEMENTS}/${encodeURIComponent(statementId)}/cancel`, body: {} }, Empty).pipe(
      Effect.asVoid
    )

  const readAllRows = (first: StatementResponse) =>
    Effect.gen(function* () {
      const rows: Array<ReadonlyArray<string | null>> = []
      let chunk: ResultChunk | undefined = first.result
      while (chunk !== undefined) {
        rows.push(...chunk.data_array)
        const next = chunk.next_chunk_index
        chunk =
          next === undefined
            ? undefined
            : yield* client.call(
                { method: "GET", path: `${STATEMENTS}/${encodeURIComponent(first.statement_id)}/result/chunks/${next}` },
                ResultChunk
              )
      }
      const expected = first.manifest?.total_row_count
      if (expected !== undefined && expected !== rows.length) {
        return yield* Effect.fail(
          new WarehouseResponseInvalid({
            host,
            path: STATEMENTS,
            detail: `result has ${rows.length} rows, manifest announced ${expected}`
          })
        )
      }
      return rows
    })

  const finish = (response: StatementResponse) =>
    Effect.gen(function* () {
      const state = response.status.state
      if (state !== "SUCCEEDED") {
        const error = response.status.error
        return yield* Effect.fail(
          new StatementExecutionFailed({
            host,
            statementId: response.statement_id,
            state,
            ...(error?.error_code === undefined ? {} : { errorCode: error.error_code }),
            detail: error?.message ?? "unknown error"
          })
        )
      }
      const columns: ReadonlyArray<ColumnInfo> = response.manifest?.schema?.columns ?? []
      const rows = yield* readAllRows(response)
      return {
        statementId: response.statement_id,
        columns: columns.map((c) => ({ name: c.name, type: c.type_name })),
        rows: decodeRows(columns, rows)
      }
    })

  const execute = (sql: string): Effect.Effect<StatementOutcome, StatementError> =>
    Effect.gen(function* () {
      const timeoutSeconds = client.statementTimeoutSeconds
      const submitted = yield* Ref.make(Option.none<string>())
      const run = Effect.gen(function* () {
        const first = yield* client.call(
          {
            method: "POST",
            path: STATEMENTS,
            body: {
              warehouse_id: client.warehouseId,
              statement: sql,
              wait_timeout: waitTimeoutFor(timeoutSeconds),
              on_wait_timeout: "CONTINUE",
              disposition: "INLINE",
              format: "JSON_ARRAY"
            }
          },
          StatementResponse
        )
        yield* Ref.set(submitted, Option.some(first.statement_id))
        if (isTerminalState(first.status.state)) return first
        const poll = client.call(
          { method: "GET", path: `${STATEMENTS}/${encodeURIComponent(first.statement_id)}` },
          StatementResponse
        )
        return yield* poll.pipe(
          Effect.delay("100 millis"),
          Effect.repeat(
            Schedule.identity<StatementResponse>().pipe(
              Schedule.zipLeft(pollSchedule),
              Schedule.untilInput((r: StatementResponse) => isTerminalState(r.status.state))
            )
          )
        )
      }).pipe(
        // Whatever stops us (the time-out, the caller, a failed poll the runner will retry), the warehouse must stop too.
        Effect.onError(() =>
          Ref.get(submitted).pipe(
            Effect.flatMap(
              Option.match({
                onNone: () => Effect.void,
                onSome: (id) =>
                  cancel(id).pipe(
                    Effect.timeout("10 seconds"),
                    Effect.catchAll((error) =>
                      Effect.logWarning("warehouse statement cancel failed").pipe(
                        Effect.annotateLogs({ host, statement_id: id, error: String(error) })
                      )
                    )
                  )
              })
            )
          )
        )
      )
      const terminal = yield* Effect.timeoutOption(run, Duration.seconds(timeoutSeconds))
      if (Option.isNone(terminal)) {
        const id = Option.getOrUndefined(yield* Ref.get(submitted))
        return yield* Effect.fail(
          new StatementTimedOut({ host, seconds: timeoutSeconds, ...(id === undefined ? {} : { statementId: id }) })
        )
      }
      return yield* finish(terminal.value)
    }).pipe(Effect.withSpan("warehouse.statement", { attributes: { "pcli.host": host, "pcli.warehouse_id": client.warehouseId } }))

  return WarehouseStatements.of({ execute, cancel })
})

export const layer: Layer.Layer<WarehouseStatements, never, WarehouseClient> = Layer.effect(WarehouseStatements, make)
