"""No silent overflow under dbt-spark's non-ANSI mode (spark.sql.ansi.enabled=false, where bigint arithmetic wraps
and casts wrap or give NULL): count windows at bigint's edge, evictors, sampling bounds and whole-number arguments."""

from __future__ import annotations

import math
from datetime import datetime

import pytest

from dbt_harness import DbtRun, compile_error_line, compiled

BIGINT_MAX = 2**63 - 1
CLICKS = (
    "with clicks as (select * from values (timestamp'2024-01-01 00:00:01', 'u'), (timestamp'2024-01-01 00:00:02', 'u'), "
    "(timestamp'2024-01-01 00:00:03', 'u') as t(clicked_at, user_id)) "
)


def rows(spark, sql: str) -> list[tuple]:
    return sorted(tuple(row) for row in spark.sql(compiled(sql)).collect())


def at(second: int) -> datetime:
    return datetime(2024, 1, 1, 0, 0, second)


@pytest.mark.parametrize(
    "size, slide, expected",
    [
        # countWindow(bigint max, 1): a firing after every row, holding all rows so far (p + size - 1 used to wrap,
        # dropping rows 2 and 3)
        pytest.param(BIGINT_MAX, 1, [(at(1), 1, 1), (at(1), 2, 2), (at(1), 3, 3), (at(2), 2, 2), (at(2), 3, 3), (at(3), 3, 3)],
                     id="size-bigint-max"),
        # countWindow(3, bigint max): never fires on 3 rows (p + slide - 1 used to wrap, emitting windows -1 and 0)
        pytest.param(3, BIGINT_MAX, [], id="slide-bigint-max"),
        pytest.param(BIGINT_MAX, BIGINT_MAX, [], id="both-bigint-max"),
    ],
)
def test_count_window_at_bigints_edge(built: DbtRun, spark, size: int, slide: int, expected: list) -> None:
    sql = (CLICKS + "select clicked_at, window_index, window_row_count from ("
           f"{{{{ window_tvf.count_window('clicks', 'clicked_at', {size}, slide={slide}) }}}})")
    assert rows(spark, sql) == expected


def test_count_window_emits_the_incomplete_window_at_bigints_edge(built: DbtRun, spark) -> None:
    sql = (CLICKS + "select clicked_at, window_index, window_row_count from ("
           f"{{{{ window_tvf.count_window('clicks', 'clicked_at', {BIGINT_MAX}, slide={BIGINT_MAX}, emit_incomplete=true) }}}})")
    assert rows(spark, sql) == [(at(1), 1, 3), (at(2), 1, 3), (at(3), 1, 3)]


def test_evict_time_keeps_every_row_at_the_longest_keep(built: DbtRun, spark) -> None:
    sql = (CLICKS + "select clicked_at from ("
           "{{ window_tvf.evict_time('clicks', 'clicked_at', '3652425 days', window_by=['user_id']) }})")
    assert rows(spark, sql) == [(at(1),), (at(2),), (at(3),)]


def test_window_offsets_act_modulo_the_size_however_large(built: DbtRun, spark) -> None:
    # 3652425 days is a whole number of 10 minutes: the windows are the unshifted ones, before 1970 as after it.
    sql = ("with e as (select timestamp'1960-01-01 00:05:00' as ts union all select timestamp'2024-01-01 00:05:00') "
           "select cast(window_start as string), cast(window_end as string) from "
           "({{ window_tvf.tumble('e', 'ts', '10 minutes', offset='3652425 days') }})")
    assert sorted(rows(spark, sql)) == [("1960-01-01 00:00:00", "1960-01-01 00:10:00"),
                                        ("2024-01-01 00:00:00", "2024-01-01 00:10:00")]


def _sampled_ids(spark, fraction: float) -> set[int]:
    sql = f"with numbers as (select id from range(1000)) {{{{ window_tvf.sample('numbers', {fraction!r}, seed=7) }}}}"
    return {row.id for row in spark.sql(compiled(sql)).collect()}


def test_sample_compares_the_exact_hash_fraction(built: DbtRun, spark) -> None:
    # u = h / 2^53 for h, the hash's low 53 bits: exact as a double. With a fraction equal to one row's u, that
    # row is not below it and is left out; one double higher, it is in. (A decimal division rounded u to 17 places,
    # which put this row on the wrong side.)
    hashes = {r.id: r.h for r in spark.sql("select id, pmod(xxhash64(7, id), 9007199254740992) as h from range(1000)").collect()}
    boundary = hashes[2] / 2**53
    assert _sampled_ids(spark, boundary) == {i for i, h in hashes.items() if h < hashes[2]}
    assert _sampled_ids(spark, math.nextafter(boundary, 1)) == {i for i, h in hashes.items() if h <= hashes[2]}


WHOLE = "(and at most 9223372036854775807, bigint's maximum)"

BAD_CALLS = [
    pytest.param(
        "count_window(ref('stg_datastream_clicks'), 'clicked_at', 2 ** 63)",
        f"window_tvf.count_window: argument 'size' got 9223372036854775808; expected a whole number >= 1 {WHOLE}",
        id="count-window-size-above-bigint",
    ),
    pytest.param(
        "count_window(ref('stg_datastream_clicks'), 'clicked_at', 3, slide=2 ** 63)",
        f"window_tvf.count_window: argument 'slide' got 9223372036854775808; expected a whole number >= 1 {WHOLE}",
        id="count-window-slide-above-bigint",
    ),
    pytest.param(
        "topn(ref('table_api_t'), 2 ** 63, 'a', ['c'])",
        f"window_tvf.topn: argument 'n' got 9223372036854775808; expected a whole number >= 1 {WHOLE}",
        id="topn-n-above-bigint",
    ),
    pytest.param(
        "evict_count(ref('stg_datastream_clicks'), 'clicked_at', 2 ** 63)",
        f"window_tvf.evict_count: argument 'max_count' got 9223372036854775808; expected a whole number >= 1 {WHOLE}",
        id="evict-count-above-bigint",
    ),
    pytest.param(
        "sample(ref('table_api_t'), 0.5, seed=2 ** 63)",
        f"window_tvf.sample: argument 'seed' got 9223372036854775808; expected a whole number >= 0 {WHOLE}",
        id="seed-above-bigint",
    ),
    pytest.param(
        "evict_time(ref('stg_datastream_clicks'), 'clicked_at', '3652426 days')",
        """window_tvf.evict_time: argument 'keep' got "3652426 days"; it is longer than 10,000 years, more than any """
        "time Spark holds (years 1 to 9999)",
        id="evict-time-keep-beyond-spark-times",
    ),
    pytest.param(
        "tumble(ref('stg_datastream_clicks'), 'clicked_at', '213503983 days')",
        """window_tvf.tumble: argument 'size' got "213503983 days"; it is longer than 10,000 years, more than any """
        "time Spark holds (years 1 to 9999)",
        id="window-size-beyond-spark-times",
    ),
    pytest.param(
        "session(ref('stg_datastream_clicks'), 'clicked_at', '120001 months')",
        """window_tvf.session: argument 'gap' got "120001 months"; months, quarters and years have no fixed length, """
        "and a fixed duration is needed here (up to weeks, e.g. '30 days')",
        id="calendar-gap-beyond-spark-times",
    ),
    pytest.param(
        "hop(ref('stg_datastream_clicks'), 'clicked_at', '1 millisecond', '25 days')",
        """window_tvf.hop: argument 'size' got "25 days"; each row would be in up to 2160000000 windows (size / slide"""
        """ with slide "1 millisecond"); at most 1,000,000 are allowed: use a larger slide or step""",
        id="hop-windows-per-row",
    ),
    pytest.param(
        "cumulate(ref('stg_datastream_clicks'), 'clicked_at', '1 millisecond', '30 days')",
        """window_tvf.cumulate: argument 'step' got "1 millisecond"; each row would be in up to 2592000000 windows"""
        """ (size / step with size "30 days"); at most 1,000,000 are allowed: use a larger slide or step""",
        id="cumulate-windows-per-row",
    ),
    pytest.param(
        "cumulate(ref('stg_datastream_clicks'), 'clicked_at', '1 second', '1 month')",
        """window_tvf.cumulate: argument 'step' got "1 second"; each row would be in up to 2678400 windows"""
        """ (size / step with size "1 month"); at most 1,000,000 are allowed: use a larger slide or step""",
        id="calendar-cumulate-windows-per-row",
    ),
    # nan and infinity come from data (a var), never from a literal, which dbt's Jinja cannot even pass on.
    pytest.param(
        "sample(ref('table_api_t'), var('not_a_number', 'nan') | float)",
        "window_tvf.sample: argument 'fraction' got nan; expected a number from 0 to 1",
        id="fraction-nan",
    ),
    pytest.param(
        "split(ref('table_api_t'), [1, var('infinite', 'inf') | float])",
        "window_tvf.split: argument 'weights' got [1, Infinity]; expected a list of at least two non-negative numbers "
        "with a positive sum, e.g. [0.8, 0.1, 0.1]",
        id="weight-infinite",
    ),
    pytest.param(
        "topn(ref('table_api_t'), var('infinite', 'inf') | float, 'a', ['c'])",
        "window_tvf.topn: argument 'n' got inf; expected a whole number >= 1 (and at most 9223372036854775807, "
        "bigint's maximum)",
        id="topn-n-infinite",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS)
def test_arguments_beyond_bigint_or_not_finite_fail_at_compile_time(built: DbtRun, call: str, message: str) -> None:
    assert compile_error_line("{{ window_tvf." + call + " }}") == message


def test_the_largest_seed_runs(built: DbtRun, spark) -> None:
    sql = f"with numbers as (select id from range(10)) {{{{ window_tvf.sample('numbers', 1, seed={BIGINT_MAX}) }}}}"
    assert sorted(row.id for row in spark.sql(compiled(sql)).collect()) == list(range(10))
