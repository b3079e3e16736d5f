// SQL type names as contracts spell them, compared in DuckDB's spelling.

/** Contract type spellings (product specs use ClickHouse-like names, remote warehouses Spark's) mapped to DuckDB's. */
const typeAliases: Record<string, string> = {
  INT8: "TINYINT",
  INT16: "SMALLINT",
  INT32: "INTEGER",
  INT64: "BIGINT",
  INT128: "HUGEINT",
  UINT8: "UTINYINT",
  UINT16: "USMALLINT",
  UINT32: "UINTEGER",
  UINT64: "UBIGINT",
  BYTE: "TINYINT",
  SHORT: "SMALLINT",
  INT: "INTEGER",
  LONG: "BIGINT",
  STRING: "VARCHAR",
  TEXT: "VARCHAR",
  FLOAT32: "FLOAT",
  FLOAT64: "DOUBLE",
  BOOL: "BOOLEAN",
  DATETIME: "TIMESTAMP",
  NUMERIC: "DECIMAL",
  DECIMAL: "DECIMAL(18,3)"
}

/** A type name in DuckDB's spelling: upper case, no spaces, aliases resolved. */
export const normalizeType = (type: string): string => {
  const upper = type.trim().toUpperCase().replace(/\s+/g, "").replace(/^NUMERIC\(/, "DECIMAL(")
  return typeAliases[upper] ?? upper
}
