"""Runs inside a Flink 2.3 virtual environment (apache-flink==2.3.0), not the project's: executes window queries
on events from a CSV (id, key, epoch milliseconds, value) with table.local-time-zone set, and writes each query's
rows as JSON. Streaming queries apply Flink's changelog (an update replaces the row it retracts).

usage: run_flink.py events.csv time_zone queries.json output.json
"""

from __future__ import annotations

import json
import sys

from pyflink.common import RowKind
from pyflink.table import EnvironmentSettings, TableEnvironment


def table_environment(mode: str, events: str, zone: str) -> TableEnvironment:
    streaming = mode == "stream"
    settings = EnvironmentSettings.in_streaming_mode() if streaming else EnvironmentSettings.in_batch_mode()
    env = TableEnvironment.create(settings)
    env.get_config().set("table.local-time-zone", zone)
    env.get_config().set("parallelism.default", "1")
    # Streaming needs event time: the events are written in time order, so nothing is late.
    watermark = ", watermark for ts as ts - interval '0.001' second" if streaming else ""
    env.execute_sql(f"""
        create table ev (id int, k string, ms bigint, v int, ts as to_timestamp_ltz(ms, 3){watermark})
        with ('connector' = 'filesystem', 'path' = '{events}', 'format' = 'csv')
    """)
    return env


def rows_of(env: TableEnvironment, sql: str) -> list[list]:
    live: list[list] = []
    with env.execute_sql(sql).collect() as results:
        for row in results:
            if row.get_row_kind() in (RowKind.INSERT, RowKind.UPDATE_AFTER):
                live.append(list(row))
            else:
                live.remove(list(row))
    return sorted(live, key=json.dumps)


def main(events: str, zone: str, queries_path: str, output_path: str) -> None:
    queries = json.load(open(queries_path))
    environments: dict[str, TableEnvironment] = {}
    results = {}
    for name, query in queries.items():
        mode = query["mode"]
        if mode not in environments:
            environments[mode] = table_environment(mode, events, zone)
        try:
            results[name] = rows_of(environments[mode], query["flink"])
        except Exception as error:  # reported, not fatal: the comparison names the query
            results[name] = {"error": str(error)[:2000]}
    json.dump(results, open(output_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:5])
