import type { ColumnInfo } from "../../schemas/warehouse-api"

const integerText = /^-?\d+$/

/** JSON_ARRAY sends every cell as text; numbers and booleans are restored from the column type. */
export const decodeCell = (typeName: string, cell: string | null): unknown => {
  if (cell === null) return null
  switch (typeName.toUpperCase()) {
    case "BOOLEAN":
      return cell === "true"
    case "BYTE":
    case "SHORT":
    case "INT":
    case "FLOAT":
    case "DOUBLE":
      return Number(cell)
    case "LONG": {
      const n = Number(cell)
      // Beyond 2^53 a number would lose digits: keep them exact as a bigint.
      return Number.isSafeInteger(n) || !integerText.test(cell) ? n : BigInt(cell)
    }
    default:
      return cell
  }
}

export const decodeRows = (
  columns: ReadonlyArray<ColumnInfo>,
  rows: ReadonlyArray<ReadonlyArray<string | null>>
): ReadonlyArray<ReadonlyArray<unknown>> =>
  rows.map((row) => row.map((cell, i) => decodeCell(columns[i]?.type_name ?? "STRING", cell)))
