"""Column names, dtypes, units and allowed values of the tidy tables, and the
validation that runs before any table is written.

The canonical columns come from :mod:`analysis.parsers.records`, so a field added to
a record appears here without a second list to keep in step. Units are in the
names (``*_mbps``, ``*_ms``, ``*_pct``, ``*_bytes``); dtypes are nullable so
that "not reported" stays null and never becomes 0.
"""

from __future__ import annotations

from analysis.errors import NetreproError

from dataclasses import fields

import numpy as np
import pandas as pd
import pandera.pandas as pa
from pandera.engines.pandas_engine import Engine

from analysis.parsers.records import DIRECTIONS, SIDES, STATUSES, TOOLS, IntervalRecord, RunRecord

_DTYPE_OF = {"str": "string", "float": "float64", "int": "Int64", "bool": "boolean", "list": "string",
             "datetime": "datetime64[ns, UTC]"}

# One-way delays between hosts whose clocks are not synchronised can be
# negative; every other metric is a count, a rate, a duration or a share.
MAY_BE_NEGATIVE = {"owd_ms", "owd_min_ms", "owd_max_ms", "delay_ms", "start_s", "end_s", "record_index"}
_PERCENT_MAX_100 = {"loss_pct"}


def _dtype(annotation: str) -> str:
    base = annotation.replace(" | None", "").replace("None | ", "").strip()
    base = base.split("[", 1)[0]
    return _DTYPE_OF[base]


def dtypes_of(record_type: type) -> dict[str, str]:
    """Pandas dtype per field of a record dataclass, from its annotations."""
    hints = {f.name: str(f.type) for f in fields(record_type)}
    return {name: _dtype(t) for name, t in hints.items()}


RUN_DTYPES = dtypes_of(RunRecord)
INTERVAL_DTYPES = dtypes_of(IntervalRecord)


def _column(name: str, dtype: str) -> pa.Column:
    checks = []
    if dtype in ("float64", "Int64") and name not in MAY_BE_NEGATIVE:
        checks.append(pa.Check.ge(0))
    if name in _PERCENT_MAX_100:
        checks.append(pa.Check.le(100))
    allowed = {"tool": TOOLS, "status": STATUSES, "side": SIDES, "direction": DIRECTIONS, "transport": ("TCP", "UDP")}
    if name in allowed:
        checks.append(pa.Check.isin(list(allowed[name])))
    if name == "ip_version":
        checks.append(pa.Check.isin([4, 6]))
    nullable = name not in ("tool", "status", "source_path", "record_index")
    return pa.Column(dtype, checks=checks, nullable=nullable)


RUNS_SCHEMA = pa.DataFrameSchema({n: _column(n, d) for n, d in RUN_DTYPES.items()}, strict=False, name="runs")
INTERVALS_SCHEMA = pa.DataFrameSchema(
    {n: _column(n, d) for n, d in INTERVAL_DTYPES.items()} | {"source_path": _column("source_path", "string")},
    strict=False,
    name="intervals",
)


class SchemaViolation(NetreproError):
    """A tidy table that breaks the schema; lists every failing cell."""


def coerce(frame: pd.DataFrame, dtypes: dict[str, str]) -> pd.DataFrame:
    """Give every known column its canonical dtype (adding missing ones as null)."""
    out = frame.copy()
    for name, dtype in dtypes.items():
        if name not in out:
            out[name] = pd.Series(pd.NA, index=out.index, dtype=dtype)
        elif name == "warnings":
            out[name] = out[name].map(lambda w: "; ".join(w) if isinstance(w, list) else w).astype("string")
        else:
            out[name] = out[name].astype(dtype)
    return out


# The checks the schemas use, read with plain pandas on a column's non-null values.
_PLAIN_CHECKS = {
    "greater_than_or_equal_to": lambda values, stats: values >= stats["min_value"],
    "less_than_or_equal_to": lambda values, stats: values <= stats["max_value"],
    "isin": lambda values, stats: values.isin(stats["allowed_values"]),
}


def plainly_valid(frame: pd.DataFrame, schema: pa.DataFrameSchema) -> bool:
    """Whether the table keeps the schema, read from the schema's own columns
    and checks with plain pandas: every column there, of its dtype, null only
    where allowed, every check true. False for anything it does not read
    (another kind of check, an index, uniqueness) as well as for a violation.

    Why: pandera's first validation in a process imports its data-synthesis
    strategies (and hypothesis with them, where installed), about a second,
    more than ingesting a thousand small outputs takes."""
    if schema.checks or schema.unique or schema.index is not None or schema.coerce:
        return False
    for name, column in schema.columns.items():
        if name not in frame or column.unique or column.coerce or column.regex:
            return False
        series = frame[name]
        if not np.all(column.dtype.check(Engine.dtype(series.dtype), series)):  # pandera's own dtype test (bool or per value)
            return False
        values = series.dropna()
        if not column.nullable and len(values) != len(series):
            return False
        for check in column.checks:
            test = _PLAIN_CHECKS.get(check.name)
            if test is None or not check.ignore_na or not bool(test(values, check.statistics).all()):
                return False
    return True


def validate(frame: pd.DataFrame, schema: pa.DataFrameSchema) -> pd.DataFrame:
    """The frame if it keeps the schema; else SchemaViolation listing the
    failing cells (pandera's report: it decides whatever the plain reading
    does not pass)."""
    if plainly_valid(frame, schema):
        return frame
    try:
        return schema.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as exc:
        cases = exc.failure_cases
        lines = []
        for _, case in cases.head(20).iterrows():
            idx = case["index"]
            where = frame.at[idx, "source_path"] if idx is not None and "source_path" in frame and idx in frame.index else "?"
            lines.append(f"{where}: column {case['column']}: {case['check']} failed for {case['failure_case']!r}")
        more = f" (and {len(cases) - 20} more)" if len(cases) > 20 else ""
        raise SchemaViolation(f"{schema.name} table breaks the schema: " + "; ".join(lines) + more) from None


def factor_dtype(type_name: str) -> str:
    return {"int": "Int64", "float": "float64", "str": "string"}[type_name]


__all__ = [
    "RUN_DTYPES",
    "INTERVAL_DTYPES",
    "RUNS_SCHEMA",
    "INTERVALS_SCHEMA",
    "SchemaViolation",
    "coerce",
    "validate",
    "plainly_valid",
    "factor_dtype",
]
