"""Every public macro that returns a SELECT, put wherever an analyst puts one (test_consumer_project.py).

For each macro, a call on the consumer project's seeds (tests/consumer_project/seeds) and three models:

    <call>__whole       the call is the model's whole statement
    <call>__after_with  the call directly after the analyst's own WITH list, reading one of its CTEs as its input,
                        beside CTEs named like every CTE the package's macros define
    <call>__nested      the call as a CTE body and as a subquery in one model: two calls, each tagged

The test requires the same rows from all three (twice in the last). A macro of the package's yml that returns no
SELECT is in NOT_A_SELECT with what it returns instead; a new macro must be in one of the two.
"""

from __future__ import annotations

import re

import yaml

from dbt_harness import REPO

# The seeds' windows, as window specs.
TUMBLE = "{'tvf': 'tumble', 'timecol': 'bidtime', 'size': '10 minutes'}"
HOP = "{'tvf': 'hop', 'timecol': 'bidtime', 'slide': '5 minutes', 'size': '10 minutes'}"
CUMULATE = "{'tvf': 'cumulate', 'timecol': 'bidtime', 'step': '2 minutes', 'size': '10 minutes'}"
SESSION = "{'tvf': 'session', 'timecol': 'bidtime', 'gap': '3 minutes', 'partition_by': 'supplier_id'}"
HOURLY_NEW_YORK = "{'tvf': 'tumble', 'timecol': 'bidtime', 'size': '1 hour', 'time_zone': 'America/New_York'}"
PRICE = "{'price': 'sum(price)', 'bids': 'count(*)'}"
JSON_FIELDS = "{'event_id': 'string', 'quantity': 'int', 'price': 'decimal(10,2)'}"
LANDING_FILE = REPO / "tests" / "consumer_project" / "files" / "events.jsonl"

# call name -> (macro, the call with {input} for its relation, the seed it reads, whether a CTE can be its input)
CALLS: dict[str, tuple[str, str, str, bool]] = {
    "tumble": ("tumble", "window_tvf.tumble({input}, 'bidtime', '10 minutes')", "bid", True),
    "hop": ("hop", "window_tvf.hop({input}, 'bidtime', '5 minutes', '10 minutes')", "bid", True),
    "cumulate": ("cumulate", "window_tvf.cumulate({input}, 'bidtime', '2 minutes', '10 minutes')", "bid", True),
    "session": ("session", "window_tvf.session({input}, 'bidtime', '3 minutes', partition_by='supplier_id')", "bid", True),
    "dynamic_session": ("dynamic_session", "window_tvf.dynamic_session({input}, 'bidtime', "
                        "\"case when supplier_id = 'supplier1' then 180000 else 300000 end\", partition_by='supplier_id')",
                        "bid", True),
    "apply_window": ("apply_window", f"window_tvf.apply_window({{input}}, {HOP})", "bid", True),
    "window_aggregate_tumble": ("window_aggregate", f"window_tvf.window_aggregate({{input}}, {TUMBLE}, 'supplier_id', {PRICE})",
                                "bid", True),
    "window_aggregate_hop_few_keys": ("window_aggregate", f"window_tvf.window_aggregate({{input}}, {HOP}, 'supplier_id', "
                                      f"{PRICE}, keys='few')", "bid", True),
    "window_aggregate_hop_many_keys": ("window_aggregate", f"window_tvf.window_aggregate({{input}}, {HOP}, 'supplier_id', "
                                       f"{PRICE}, keys='many')", "bid", True),
    "window_aggregate_cumulate": ("window_aggregate", f"window_tvf.window_aggregate({{input}}, {CUMULATE}, 'supplier_id', "
                                  f"{PRICE})", "bid", True),
    "window_aggregate_session": ("window_aggregate", f"window_tvf.window_aggregate({{input}}, {SESSION}, 'supplier_id', "
                                 f"{PRICE})", "bid", True),
    "window_aggregate_flagged": ("window_aggregate", f"window_tvf.window_aggregate({{input}}, {TUMBLE}, 'supplier_id', "
                                 f"{PRICE}, emit='on_update_flagged', watermark='2020-04-15 08:12:00')", "bid", True),
    "window_topn": ("window_topn", f"window_tvf.window_topn({{input}}, {TUMBLE}, 2, ['price desc'], rank_column='rownum')",
                    "bid", True),
    "window_deduplicate": ("window_deduplicate", f"window_tvf.window_deduplicate({{input}}, {TUMBLE}, "
                           "partition_by='supplier_id', keep='last')", "bid", True),
    "window_collect": ("window_collect", f"window_tvf.window_collect({{input}}, {SESSION}, partition_by='supplier_id')",
                       "bid", True),
    "window_join": ("window_join", "window_tvf.window_join({input}, {'tvf': 'tumble', 'timecol': 'row_time', 'size': "
                    "'5 minutes'}, ref('right_table'), {'tvf': 'tumble', 'timecol': 'row_time', 'size': '5 minutes'}, "
                    "on='num', join_type='full')", "left_table", False),
    "window_join_semi": ("window_join", "window_tvf.window_join({input}, {'tvf': 'tumble', 'timecol': 'row_time', "
                         "'size': '5 minutes'}, ref('right_table'), {'tvf': 'tumble', 'timecol': 'row_time', 'size': "
                         "'5 minutes'}, on='num', join_type='semi')", "left_table", True),
    "window_gap_fill": ("window_gap_fill", f"window_tvf.window_gap_fill({{input}}, {HOURLY_NEW_YORK}, 'supplier_id', "
                        "fill={'bids': 0, 'price': 'interpolate'}, start='2020-04-15', end='2020-04-16')",
                        "bid_hourly", True),
    "count_window": ("count_window", "window_tvf.count_window({input}, 'bidtime', 2, slide=1, partition_by='supplier_id', "
                     "emit_incomplete=true)", "bid", True),
    "evict_count": ("evict_count", "window_tvf.evict_count({input}, 'bidtime', 2, window_by=['window_start', "
                    "'window_end'])", "bid_tumbled", True),
    "evict_time": ("evict_time", "window_tvf.evict_time({input}, 'bidtime', '4 minutes', window_by=['window_start', "
                   "'window_end'])", "bid_tumbled", True),
    "evict_delta": ("evict_delta", "window_tvf.evict_delta({input}, 'bidtime', 'last_element.price - price', 2, "
                    "window_by=['window_start', 'window_end'])", "bid_tumbled", True),
    "deduplicate": ("deduplicate", "window_tvf.deduplicate({input}, 'supplier_id', ['bidtime desc'])", "bid", True),
    "topn": ("topn", "window_tvf.topn({input}, 2, 'supplier_id', ['price desc'], rank_column='rownum')", "bid", True),
    "fillna": ("fillna", "window_tvf.fillna({input}, {'currency': 'unknown', 'amount': 0})", "orders", True),
    "dropna": ("dropna", "window_tvf.dropna({input}, columns=['currency', 'order_time'])", "orders", True),
    "replace": ("replace", "window_tvf.replace({input}, {'Euro': 'EUR', 'Yen': 'JPY'}, 'currency')", "orders", True),
    "sample": ("sample", "window_tvf.sample({input}, 0.6, seed=7)", "bid", True),
    "split": ("split", "window_tvf.split({input}, [0.5, 0.5], seed=7)", "bid", True),
    "split_part": ("split_part", "window_tvf.split_part({input}, [0.5, 0.5], 1, seed=7)", "bid", True),
    "asof_join": ("asof_join", "window_tvf.asof_join({input}, ref('rates_history'), 'order_time', 'rate_time', "
                  "'currency', right_prefix='rate_')", "orders", True),
    "latest_version_join": ("latest_version_join", "window_tvf.latest_version_join({input}, ref('rates_history'), "
                            "'rate_time', 'currency', right_prefix='rate_')", "orders", True),
    "parse_json_lines": ("parse_json_lines", f"window_tvf.parse_json_lines({{input}}, {JSON_FIELDS})", "landing_lines",
                         True),
    "text_file_lines": ("text_file_lines", f"window_tvf.text_file_lines(['{LANDING_FILE}'])", "", True),
    "incremental_window_aggregate": ("incremental_window_aggregate", f"window_tvf.incremental_window_aggregate({{input}}, "
                                     f"{HOP}, 'supplier_id', {PRICE}, interval_start=none, allowed_lateness='2 hours')", "bid", True),
    "incremental_deduplicate": ("incremental_deduplicate", "window_tvf.incremental_deduplicate({input}, 'supplier_id', "
                                "'bidtime', '1 day')", "bid", True),
    "rowset_diff": ("rowset_diff", "window_tvf.rowset_diff({input}, ref('bid_but_one'), ['bidtime', 'price', 'item', "
                    "'supplier_id'])", "bid", True),
}

# The package's other public macros, and what they return instead of a SELECT.
NOT_A_SELECT = {
    "test_equality": "a generic test (window_tvf.equality)",
    "scheduled_var": "a var's value",
    "interval_watermark": "a time, for window_aggregate's watermark",
    "recompute_from": "a time",
    "window_partition_column": "a column expression for a SELECT list",
    "file_name_time": "a column expression for a SELECT list",
    "rebuild_range": "a run-operation",
    "describe": "a run-operation",
    "explain": "a run-operation",
    "spark__load_csv_rows": "the adapter's seed loading, dispatched by dbt",
    "spark__create_view_as": "the adapter's view DDL, dispatched by dbt",
}


def public_macros() -> set[str]:
    """The macros the package documents (its _*.yml files)."""
    names = set()
    for path in (REPO / "macros").rglob("_*.yml"):
        names |= {macro["name"] for macro in (yaml.safe_load(path.read_text()) or {}).get("macros", [])}
    return names


def internal_cte_names() -> list[str]:
    """Every CTE name the package's macros write into a model's SQL."""
    names = set()
    for path in (REPO / "macros").rglob("*.sql"):
        names |= set(re.findall(r"(?m)^\s*(?:with\s+)?([a-z][a-z0-9_]*) as \($", path.read_text()))
    return sorted(names)


# Inputs that are windows already (the gap fill's, the evictors'), and the rows rowset_diff compares with.
INPUT_MODELS = {
    "bid_hourly": "{{ window_tvf.window_aggregate(ref('bid'), " + HOURLY_NEW_YORK + ", 'supplier_id', " + PRICE + ") }}\n",
    "bid_tumbled": "{{ window_tvf.tumble(ref('bid'), 'bidtime', '10 minutes') }}\n",
    "bid_but_one": "select * from {{ ref('bid') }} where item != 'C'\n",
}
VIEW = "{{ config(materialized='view') }}\n"
TABLE = "{{ config(materialized='table') }}\n"
# Tables, not views: parse_json_lines' SQL is longer than the embedded Derby metastore keeps of a view's text
# (32,700 characters; docs/landing_parser.md).
TABLE_CALLS = {"parse_json_lines"}


def composition_models() -> dict[str, str]:
    """The three models of every call and the inputs they read, by name: views (their rows are read once, by the
    test), but for the inputs, tables."""
    colliding = ",\n".join(f"{name} as (select 'not the macro''s' as {name})" for name in internal_cte_names())
    models = {name: TABLE + sql for name, sql in INPUT_MODELS.items()}
    for name, (_, call, seed, cte_input) in CALLS.items():
        relation = f"ref('{seed}')"
        config = TABLE if name in TABLE_CALLS else VIEW
        models[f"{name}__whole"] = config + "{{ " + call.replace("{input}", relation) + " }}\n"
        models[f"{name}__after_with"] = config + (
            f"with {colliding},\n\nanalyst_rows as (\n    select * from {{{{ {relation} }}}}\n)\n\n"
            if seed else f"with {colliding}\n\n"
        ) + "{{ " + call.replace("{input}", "'analyst_rows'" if cte_input and seed else relation) + " }}\n"
        models[f"{name}__nested"] = config + (
            "with as_cte_body as (\n    {{ " + call.replace("{input}", relation) + " }}\n)\n\n"
            "select 'cte body' as position, * from as_cte_body\nunion all\n"
            "select 'subquery' as position, * from (\n    {{ " + call.replace("{input}", relation) + " }}\n) as as_subquery\n"
        )
    return models
