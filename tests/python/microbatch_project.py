"""A throw-away dbt project for window_tvf under dbt's microbatch strategy: the same window aggregations built as
tables over all data (`full_*`) and as microbatch models (`mb_*` hourly, `mbd_*` daily), on events that cross New
York's fall-back night (2026-11-01 06:00Z) and midnight, with a user session that spans four hourly batches.

The events are a pure function of a seed, written as a seed file; the input model (`stg_events`) is partitioned by
event hour, so batches can be seen reading only the partitions their windows need."""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from dbt_harness import REPO, TABLE_FORMAT

SCHEMA = "window_tvf_microbatch"
# Hourly batches [00:00, 08:00) on 2026-11-01 UTC: New York's midnight (04:00Z), its repeated 01:00 hour
# (05:00-07:00Z) and the switch itself (06:00Z), and an hour after it; daily batches 2026-11-01 to 2026-11-03.
# (Events run on to 13:00: the full builds hold windows past the hourly range, which the comparisons leave out.)
HOURLY = ("2026-11-01T00:00:00", "2026-11-01T08:00:00")
DAILY = ("2026-11-01T00:00:00", "2026-11-03T00:00:00")
FIRST_EVENT = datetime(2026, 10, 31, 21, 0)
LAST_EVENT = datetime(2026, 11, 1, 13, 0)
# An input partition to change after the first build (the rebuild test): its events are replaced.
CHANGED_HOUR = datetime(2026, 11, 1, 3, 0)

AGGREGATES = "{'orders': 'count(*)', 'quantity': 'sum(quantity)', 'largest': 'max(quantity)'}"
# Reading hints for the partitioned input: rows of event hour p lie in [p, p + 1 hour).
BY_HOUR = "'arrival_partition': {'column': 'event_hour', 'period': '1 hour'}, 'allowed_lateness': '0 seconds'"


@dataclass(frozen=True)
class Case:
    """One window aggregation: its window spec (Jinja), group_by and aggregates, and which batch sizes build it."""

    name: str
    window: str
    group_by: str = "'item_id'"
    aggregates: str = AGGREGATES
    hourly: bool = True
    daily: bool = True

    def call(self, relation: str = "ref('stg_events')") -> str:
        return f"{{{{ window_tvf.window_aggregate({relation}, {self.window}, {self.group_by}, {self.aggregates}) }}}}"


CASES = [
    Case("tumble_15m", "{'tvf': 'tumble', 'timecol': 'event_time', 'size': '15 minutes', " + BY_HOUR + "}", daily=False),
    # count(distinct) keeps the row path (windows assigned row by row through the HOP TVF)
    Case("hop_1h_15m", "{'tvf': 'hop', 'timecol': 'event_time', 'slide': '15 minutes', 'size': '1 hour', " + BY_HOUR + "}",
         aggregates="{'orders': 'count(*)', 'users': 'count(distinct user_id)'}"),
    Case("cumulate_1h_1d", "{'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 hour', 'size': '1 day'}"),
    Case("session_10m", "{'tvf': 'session', 'timecol': 'event_time', 'gap': '10 minutes', 'partition_by': 'user_id', "
         + BY_HOUR + "}", group_by="'user_id'"),
    Case("hop_2h_30m_new_york", "{'tvf': 'hop', 'timecol': 'event_time', 'slide': '30 minutes', 'size': '2 hours', "
         "'time_zone': 'America/New_York'}", daily=False),
    Case("session_10m_new_york", "{'tvf': 'session', 'timecol': 'event_time', 'gap': '10 minutes', "
         "'partition_by': 'user_id', 'time_zone': 'America/New_York'}", group_by="'user_id'", daily=False),
    Case("day_new_york", "{'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 day', 'time_zone': 'America/New_York', "
         + BY_HOUR + "}"),
    Case("week_new_york", "{'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 week', 'time_zone': 'America/New_York'}",
         hourly=False),
]
# A cascade: month-to-date by New York day, windowing the daily windows' window_time (both microbatch).
MONTH_TO_DATE = ("{'tvf': 'cumulate', 'timecol': 'window_time', 'step': '1 day', 'size': '1 month', "
                 "'time_zone': 'America/New_York', 'arrival_partition': {'column': 'window_date', 'period': '1 day'}, "
                 "'allowed_lateness': '0 seconds'}")


def events(seed: int = 11) -> list[tuple]:
    """(event_id, user_id, item_id, quantity, event_time) rows; times with microseconds, some on batch boundaries."""
    rng = random.Random(seed)
    rows = []
    span = int((LAST_EVENT - FIRST_EVENT).total_seconds())
    for n in range(700):
        time = FIRST_EVENT + timedelta(seconds=rng.randrange(span), microseconds=rng.randrange(1_000_000))
        rows.append((f"e{n}", f"u{rng.randrange(12)}", f"item_{rng.randrange(5)}", rng.randrange(1, 6), time))
    # A visit every 7 minutes from 01:10 to 04:24: one session across four hourly batches.
    for k in range(28):
        rows.append((f"long{k}", "u_long", "item_0", 1, datetime(2026, 11, 1, 1, 10) + timedelta(minutes=7 * k)))
    # New York's 01:30 twice (EDT 05:30Z, EST 06:30Z), batch and window boundaries, the last microsecond of a batch.
    for n, time in enumerate([datetime(2026, 11, 1, 5, 30), datetime(2026, 11, 1, 6, 30), datetime(2026, 11, 1, 2),
                              datetime(2026, 11, 1, 2, 59, 59, 999999), datetime(2026, 11, 1, 4, 15),
                              datetime(2026, 11, 1, 3, 59, 59, 999000)]):
        rows.append((f"edge{n}", "u_edge", "item_1", n + 1, time))
    rows.append(("no_time", "u_edge", "item_1", 1, None))
    return rows


def changed_events() -> list[tuple]:
    """The events of CHANGED_HOUR after a correction: a third of them gone, new ones in."""
    rng = random.Random(5)
    kept = [row for row in events() if row[4] is None or not CHANGED_HOUR <= row[4] < CHANGED_HOUR + timedelta(hours=1)
            or rng.random() < 0.66]
    added = [(f"late{n}", f"u{n % 4}", "item_2", 3, CHANGED_HOUR + timedelta(minutes=2 * n + 1)) for n in range(25)]
    return kept + added


def _csv(rows: list[tuple]) -> str:
    lines = ["event_id,user_id,item_id,quantity,event_time"]
    for event_id, user, item, quantity, time in rows:
        lines.append(f"{event_id},{user},{item},{quantity},{time.strftime('%Y-%m-%d %H:%M:%S.%f') if time else ''}")
    return "\n".join(lines) + "\n"


def _microbatch(batch_size: str, body: str, extra: str = "") -> str:
    partition = "window_hour" if batch_size == "hour" else "window_date"
    return (f"{{{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='window_time', "
            f"batch_size='{batch_size}', begin='2026-11-01', partition_by=['{partition}']{extra}) }}}}\n{body}\n")


def files() -> dict[str, str]:
    """The project's files, by path."""
    project = {
        "dbt_project.yml": f"""
            name: microbatch_check
            version: "1.0.0"
            config-version: 2
            profile: microbatch_check
            # window_tvf's seed loader keeps microseconds and NULLs (dbt-spark's session method would not).
            dispatch:
              - macro_namespace: dbt
                search_order: [microbatch_check, window_tvf, dbt]
            models:
              microbatch_check:
                +materialized: table
                +file_format: {TABLE_FORMAT}
            seeds:
              microbatch_check:
                +file_format: {TABLE_FORMAT}
                events:
                  +column_types: {{event_id: string, user_id: string, item_id: string, quantity: int, event_time: timestamp}}
        """,
        "packages.yml": f"""
            packages:
              - local: {REPO}
        """,
        "profiles.yml": f"""
            microbatch_check:
              target: embedded
              outputs:
                embedded:
                  type: spark
                  method: session
                  host: localhost
                  schema: {SCHEMA}
        """,
        "seeds/events.csv": _csv(events()),
        # The input, partitioned by event hour, with its event time declared for dbt's microbatch filter.
        "models/stg_events.sql": """
            {{ config(partition_by=['event_hour'], event_time='event_time') }}
            select *, date_trunc('HOUR', event_time) as event_hour from {{ ref('events') }}
        """,
        "models/full_month_to_date_new_york.sql": "{{ window_tvf.window_aggregate(ref('full_day_new_york'), "
            + MONTH_TO_DATE + ", 'item_id', {'orders': 'sum(orders)', 'quantity': 'sum(quantity)'}) }}\n",
        "models/mbd_month_to_date_new_york.sql": _microbatch("day", "{{ window_tvf.window_aggregate(ref('mbd_day_new_york'), "
            + MONTH_TO_DATE + ", 'item_id', {'orders': 'sum(orders)', 'quantity': 'sum(quantity)'}) }}"),
        # The HOP TVF itself in a batch, then an aggregation of its rows by the model: one model text for the table
        # and the microbatch model (window_partition_column selects the partition column in both).
        "models/full_hop_tvf.sql": _HOP_TVF.format(model_config=""),
        "models/mb_hop_tvf.sql": _HOP_TVF.format(model_config=_microbatch("hour", "").strip()),
        # Top-N over per-window sums (a window_aggregate CTE, then window_topn of windowed rows).
        "models/full_top_items.sql": _TOP_ITEMS.format(model_config=""),
        "models/mb_top_items.sql": _TOP_ITEMS.format(model_config=_microbatch("hour", "").strip()),
        # The same HOP as mb_hop_1h_15m, written for plain dbt microbatch with Spark's window(): dbt hands each batch
        # only its own hour of events, so windows reaching across the batch start lose rows.
        "models/plain_hop_1h_15m.sql": _microbatch("hour", textwrap.dedent("""
            select
                cast(hopped.start as timestamp_ntz) as window_start,
                cast(hopped.end as timestamp_ntz) as window_end,
                hopped.end - interval 1 millisecond as window_time,
                item_id,
                count(*) as orders,
                count(distinct user_id) as users,
                date_trunc('HOUR', hopped.end - interval 1 millisecond) as window_hour
            from (select *, window(event_time, '1 hour', '15 minutes') as hopped from {{ ref('stg_events') }}) as rows
            group by hopped, item_id
        """)),
        # For rebuild_range (parsed, never built): an hourly cascade over mb_tumble_15m through a view, which a
        # rebuild_range call that lists both models does not list.
        "models/cascade_tumble_15m_view.sql": "{{ config(materialized='view', event_time='window_time') }}\n"
            "select * from {{ ref('mb_tumble_15m') }}\n",
        "models/cascade_hour_over_view.sql": _microbatch("hour", "{{ window_tvf.window_aggregate(ref('cascade_tumble_15m_view'), "
            "{'tvf': 'tumble', 'timecol': 'window_time', 'size': '1 hour'}, 'item_id', {'orders': 'sum(orders)'}) }}"),
        # A batch that fails until the gate table exists: for dbt retry.
        "models/mb_retry_hop_1h_15m.sql": _microbatch("hour", "select * from (" + CASES[1].call() + ") as windows\n"
            "{% if model.batch and model.batch.id == '20261101T03' %}where exists (select 1 from "
            + SCHEMA + ".retry_gate){% endif %}"),
        # Said once per run: a lookback shorter than the declared lateness; a CTE built on a ref() that dbt filtered.
        "models/warn_lookback.sql": _microbatch("hour", "{{ window_tvf.window_aggregate(ref('stg_events'), "
            "{'tvf': 'hop', 'timecol': 'event_time', 'slide': '15 minutes', 'size': '1 hour', "
            "'allowed_lateness': '3 hours'}, 'item_id', {'orders': 'count(*)'}) }}", ", lookback=1"),
        "models/warn_cte.sql": _microbatch("hour", "with events as (select * from {{ ref('stg_events') }})\n"
            "{{ window_tvf.window_aggregate('events', {'tvf': 'hop', 'timecol': 'event_time', 'slide': '15 minutes', "
            "'size': '1 hour'}, 'item_id', {'orders': 'count(*)'}) }}"),
        # Mistakes that must fail at compile time, naming the model and what to change.
        "models/wrong_partition.sql": _microbatch("hour", CASES[0].call()).replace("window_hour", "window_date"),
        "models/wrong_event_time.sql": _microbatch("hour", CASES[0].call()).replace("event_time='window_time'",
                                                                                    "event_time='window_start'"),
        "models/wrong_count_window.sql": _microbatch("hour", "select *, window_end as window_time, "
            "date_trunc('HOUR', window_end) as window_hour from ({{ window_tvf.count_window(ref('stg_events'), "
            "'event_time', 3, partition_by='user_id') }})"),
    }
    for case in CASES:
        project[f"models/full_{case.name}.sql"] = case.call() + "\n"
        if case.hourly:
            project[f"models/mb_{case.name}.sql"] = _microbatch("hour", case.call())
        if case.daily:
            project[f"models/mbd_{case.name}.sql"] = _microbatch("day", case.call())
    return {path: textwrap.dedent(text).lstrip() for path, text in project.items()}


_HOP_TVF = """{model_config}
with hopped as (
    {{{{ window_tvf.hop(ref('stg_events'), 'event_time', '15 minutes', '1 hour') }}}}
)
select
    window_start,
    window_end,
    window_time,
    {{{{ window_tvf.window_partition_column('window_hour') }}}},
    item_id,
    count(*) as orders,
    sum(quantity) as quantity
from hopped
group by all
"""

_TOP_ITEMS = """{model_config}
with item_sales as (
    {{{{ window_tvf.window_aggregate(ref('stg_events'), {{'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 hour'}},
        'item_id', {{'quantity': 'sum(quantity)'}}) }}}}
)
{{{{ window_tvf.window_topn('item_sales', none, 2, ['quantity desc', 'item_id'], rank_column='item_rank') }}}}
"""


def write(root: Path) -> Path:
    for path, text in files().items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root
