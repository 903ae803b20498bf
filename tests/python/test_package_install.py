"""window_tvf as a package: a throw-away dbt project installs it with `packages.yml` (local:) and calls its macros."""

from __future__ import annotations

import textwrap
from pathlib import Path

from dbt_harness import REPO, run_dbt

FILES = {
    "dbt_project.yml": """
        name: throwaway
        version: "1.0.0"
        config-version: 2
        profile: throwaway
        models:
          throwaway:
            +materialized: table
            # Spark 3.5 makes Hive tables without a format, and Hive has no timestamp_ntz (README, "Spark versions");
            # make test-formats sets the format (dbt_harness.TABLE_FORMAT).
            +file_format: "{{ env_var('WINDOW_TVF_TABLE_FORMAT', 'parquet') }}"
        seeds:
          throwaway:
            +file_format: "{{ env_var('WINDOW_TVF_TABLE_FORMAT', 'parquet') }}"
    """,
    "packages.yml": f"""
        packages:
          - local: {REPO}
    """,
    # The SparkSession already runs in this process; only the schema differs from the window_tvf profile.
    "profiles.yml": """
        throwaway:
          target: embedded
          outputs:
            embedded:
              type: spark
              method: session
              host: localhost
              schema: throwaway
    """,
    "seeds/clicks.csv": """
        user_id,clicked_at
        u1,2024-01-01 09:00:00
        u1,2024-01-01 09:04:00
        u2,2024-01-01 09:14:59
        u1,2024-01-01 09:20:00
    """,
    "seeds/expected_clicks_per_window.csv": """
        window_start,window_end,clicks
        2024-01-01 09:00:00,2024-01-01 09:15:00,3
        2024-01-01 09:15:00,2024-01-01 09:30:00,1
    """,
    "seeds/expected_sessions.csv": """
        user_id,window_start,window_end,clicks
        u1,2024-01-01 09:00:00,2024-01-01 09:09:00,2
        u1,2024-01-01 09:20:00,2024-01-01 09:25:00,1
        u2,2024-01-01 09:14:59,2024-01-01 09:19:59,1
    """,
    # Names the package's own (disabled) example nodes also use: they must not leak into this project.
    "seeds/orders.csv": """
        order_id,ordered_at
        1,2024-01-01 09:00:00
    """,
    "models/stg_orders.sql": """
        select order_id, ordered_at from {{ ref('orders') }}
    """,
    "models/bid.sql": """
        select 1 as bid_id
    """,
    "seeds/schema.yml": """
        seeds:
          - name: clicks
            config: {column_types: {user_id: string, clicked_at: timestamp}}
          - name: expected_clicks_per_window
            config: {column_types: {window_start: timestamp, window_end: timestamp, clicks: bigint}}
          - name: expected_sessions
            config: {column_types: {user_id: string, window_start: timestamp, window_end: timestamp, clicks: bigint}}
          - name: orders
            config: {column_types: {order_id: int, ordered_at: timestamp}}
    """,
    "models/clicks_per_window.sql": """
        with windowed as (
            {{ window_tvf.tumble(ref('clicks'), 'clicked_at', '15 minutes') }}
        )
        select window_start, window_end, count(*) as clicks
        from windowed
        group by window_start, window_end
    """,
    "models/click_sessions.sql": """
        with sessions as (
            {{ window_tvf.session(ref('clicks'), 'clicked_at', '5 minutes', partition_by='user_id') }}
        )
        select user_id, window_start, window_end, count(*) as clicks
        from sessions
        group by user_id, window_start, window_end
    """,
    "models/schema.yml": """
        models:
          - name: clicks_per_window
            data_tests:
              - window_tvf.equality: {arguments: {compare_model: "ref('expected_clicks_per_window')"}}
          - name: click_sessions
            data_tests:
              - window_tvf.equality: {arguments: {compare_model: "ref('expected_sessions')"}}
    """,
}


def test_throwaway_project_installs_and_calls_the_package(built, tmp_path: Path) -> None:
    # `built`: the in-process SparkSession is created with the window_tvf profile's settings first.
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())

    deps = run_dbt(["deps"], project_dir=tmp_path)
    assert deps.success, deps.messages
    assert (tmp_path / "dbt_packages" / "window_tvf" / "macros" / "windowing" / "tumble.sql").exists()

    build = run_dbt(["build"], project_dir=tmp_path)
    assert build.success, build.messages
    statuses = {f"{r.node.resource_type}.{r.node.package_name}.{r.node.name}": str(r.status) for r in build.result.results}
    # Only the throw-away project's nodes run: window_tvf's example models, seeds and tests stay disabled.
    assert statuses == {
        "seed.throwaway.clicks": "success",
        "seed.throwaway.expected_clicks_per_window": "success",
        "seed.throwaway.expected_sessions": "success",
        "seed.throwaway.orders": "success",
        "model.throwaway.stg_orders": "success",
        "model.throwaway.bid": "success",
        "model.throwaway.clicks_per_window": "success",
        "model.throwaway.click_sessions": "success",
        "test.throwaway.window_tvf_equality_clicks_per_window_ref_expected_clicks_per_window_": "pass",
        "test.throwaway.window_tvf_equality_click_sessions_ref_expected_sessions_": "pass",
    }
