"""Nexmark in batch (models/nexmark, docs/nexmark.md): the generator against the reference generator's rules, and
every query built with window_tvf against its plain Spark SQL formulation, on the example data set of the build
(dbt_project.yml var `nexmark`: 100,000 events, 2 a millisecond, across midnight, out of order in groups of 5,000)."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import Counter

import pytest

from dbt_harness import TABLE_FORMAT, DbtRun, run_dbt
from nexmark_strings import expected_repeats, joined, length_deviation, mean_length, next_string_classes

SCHEMA = "window_tvf"
EVENTS = 100_000
RATE = 2000  # events per second: an event every 500 microseconds
BASE = dt.datetime(2024, 1, 1, 23, 59, 35)
GROUP = 5000  # out_of_order_group_size
EXAMPLE_SETTINGS = {"events": EVENTS, "first_event_rate": RATE, "base_time": "2024-01-01 23:59:35",
                    "out_of_order_group_size": GROUP}

# window_tvf model -> its plain Spark SQL formulation
QUERIES = {
    f"fct_nexmark_{name}": f"plain_spark_nexmark_{name}"
    for name in ["q5_hot_items", "q7_highest_bid", "q8_new_users", "q11_user_sessions", "q15_bidding_statistics",
                 "q16_channel_statistics", "q17_auction_statistics", "q18_last_bid", "q19_auction_top10_price"]
}


def _table(spark, name: str):
    return spark.table(f"{SCHEMA}.{name}")


def _compiled_generator(settings: dict) -> str:
    run = run_dbt(["compile", "--quiet", "--select", "nexmark_events", "--vars", json.dumps({"nexmark": settings})])
    assert run.success, run.messages
    return run.result.results[0].node.compiled_code


# --- the queries -----------------------------------------------------------------------------------------------------

def test_every_query_equals_its_plain_spark_formulation(built: DbtRun) -> None:
    compared = {}
    for result in built.result.results:
        node = result.node
        metadata = getattr(node, "test_metadata", None)
        if node.resource_type == "test" and metadata and metadata.name == "equality":
            model = node.attached_node.split(".")[-1]
            if model in QUERIES:
                reference = next(d.split(".")[-1] for d in node.depends_on.nodes if d.split(".")[-1] != model)
                compared[model] = (reference, str(result.status), result.failures)
    assert compared == {model: (reference, "pass", 0) for model, reference in QUERIES.items()}


def test_the_compared_rows_cover_what_can_go_wrong(spark) -> None:
    """The comparisons above are only as good as the data: windows on both days, several windows per row (HOP),
    sessions split by the gap, bids tied on time (q18) and on price (q19), people selling in their first window."""
    q5 = _table(spark, "fct_nexmark_q5_hot_items")
    assert q5.select("starttime").distinct().count() >= 25
    q7 = _table(spark, "fct_nexmark_q7_highest_bid")
    assert q7.count() >= 5
    assert _table(spark, "fct_nexmark_q8_new_users").count() > 100
    sessions = _table(spark, "fct_nexmark_q11_user_sessions")
    per_bidder = sessions.groupBy("bidder").count()
    assert per_bidder.where("count > 1").count() > 10
    assert sessions.where("bid_count = 1").count() > 10 and sessions.where("bid_count > 100").count() > 0
    assert [r.day for r in _table(spark, "fct_nexmark_q15_bidding_statistics").orderBy("day").collect()] == [
        "2024-01-01", "2024-01-02"]
    assert _table(spark, "fct_nexmark_q16_channel_statistics").count() > 1000
    assert _table(spark, "fct_nexmark_q17_auction_statistics").where("day = '2024-01-02'").count() > 100
    tied_last_bids = spark.sql(f"""
        select bidder, auction from (
            select *, max(date_time) over (partition by bidder, auction) as last_time
            from {SCHEMA}.stg_nexmark__bid
        ) where date_time = last_time group by bidder, auction having count(*) > 1""").count()
    assert tied_last_bids > 10
    tied_top_prices = _table(spark, "fct_nexmark_q19_auction_top10_price").groupBy("auction", "price").count()
    assert tied_top_prices.where("count > 1").count() > 0


def test_a_different_tie_rule_would_be_caught(built: DbtRun) -> None:
    # q18 with ties broken ascending instead of descending: rowset_diff over the same data must see it.
    run = run_dbt(["show", "--quiet", "--inline", """
        with ascending_ties as (
            select auction, bidder, price, channel, url, date_time, extra from (
                select *, row_number() over (partition by bidder, auction
                    order by date_time desc, auction, bidder, price, channel, url, extra) as rank_number
                from {{ ref('stg_nexmark__bid') }}
            ) where rank_number = 1
        ),
        package as (select * from {{ ref('fct_nexmark_q18_last_bid') }})
        select count(*) as differences from (
            {{ window_tvf.rowset_diff('package', 'ascending_ties',
                ['auction', 'bidder', 'price', 'channel', 'url', 'date_time', 'extra']) }}
        )"""])
    assert run.success, run.messages
    assert run.result.results[0].agate_table.rows[0][0] > 0


# --- the generator ---------------------------------------------------------------------------------------------------

def test_events_come_in_nexmarks_proportions_with_sequential_ids(spark) -> None:
    counts = {r.event_type: r["count"] for r in _table(spark, "nexmark_events").groupBy("event_type").count().collect()}
    assert counts == {0: EVENTS // 50, 1: 3 * EVENTS // 50, 2: 46 * EVENTS // 50}
    person_ids = [r.id for r in _table(spark, "stg_nexmark__person").orderBy("id").collect()]
    assert person_ids == list(range(1000, 1000 + EVENTS // 50))
    auction_ids = [r.id for r in _table(spark, "stg_nexmark__auction").orderBy("id").collect()]
    assert auction_ids == list(range(1000, 1000 + 3 * EVENTS // 50))


def test_event_times_follow_the_event_rate(spark) -> None:
    # GeneratorConfig.timestampForEvent: baseTime + (long) (eventNumber * interEventDelayUs) / 1000 milliseconds.
    # Out-of-order groups permute event numbers within each group, so the multiset of times is the same.
    delay_us = 1_000_000 / RATE
    expected = Counter(BASE + dt.timedelta(milliseconds=int(n * delay_us) // 1000) for n in range(EVENTS))
    actual = Counter({r.date_time: r["count"] for r in _table(spark, "nexmark_events").groupBy("date_time").count()
                      .collect()})
    assert actual == expected


def test_rows_are_stored_in_stream_order_which_is_out_of_time_order(spark) -> None:
    location = (spark.sql(f"describe formatted {SCHEMA}.nexmark_events").where("col_name = 'Location'")
                .collect()[0].data_type)
    if TABLE_FORMAT == "iceberg":  # Iceberg keeps its data files under data/ (Delta and parquet in the table's folder)
        location += "/data"
    disorder = spark.sql(f"""
        select
            count_if(date_time < latest_before) as earlier_than_a_previous_row,
            max(unix_millis(cast(latest_before as timestamp)) - unix_millis(cast(date_time as timestamp))) as most_late_ms
        from (
            select date_time, max(date_time) over (
                partition by file order by position rows between unbounded preceding and 1 preceding) as latest_before
            from (
                select date_time, input_file_name() as file, monotonically_increasing_id() as position
                from parquet.`{location}/event_type=2`
            )
        )""").collect()[0]
    assert disorder.earlier_than_a_previous_row > EVENTS // 4
    # an event is at most one group's span (5,000 events, 2.5 s) behind an earlier one
    assert 0 < disorder.most_late_ms < GROUP * 1000 // RATE


def test_any_slice_on_any_partitioning_makes_the_same_events(spark) -> None:
    """Two slices of the stream (on group boundaries), each with its own partitioning, together are the stream."""
    columns = ["person", "auction", "bid", "date_time", "event_type"]
    first = spark.sql(_compiled_generator({**EXAMPLE_SETTINGS, "events": 35_000, "partitions": 3}))
    rest = spark.sql(_compiled_generator({**EXAMPLE_SETTINGS, "events": 65_000, "first_event": 35_000,
                                          "partitions": 1}))
    together = first.unionByName(rest).select(*columns)
    table = _table(spark, "nexmark_events").select(*columns)
    assert together.count() == table.count() == EVENTS
    assert together.exceptAll(table).count() == 0 and table.exceptAll(together).count() == 0


def test_fields_follow_the_reference_generators_distributions(spark) -> None:
    bids = spark.sql(f"""
        select
            avg(if((auction - 1000) % 100 = 0, 1, 0)) as hot_auction_share,
            avg(if((bidder - 1000) % 100 = 1, 1, 0)) as hot_bidder_share,
            avg(if(channel in ('Google', 'Facebook', 'Baidu', 'Apple'), 1, 0)) as hot_channel_share,
            min(price) as lowest, max(price) as highest, percentile(price, 0.5) as median_price,
            avg(32 + length(extra)) as average_size,
            count_if(not url like 'https://www.nexmark.com/%/%/%/item.htm?query=1%') as odd_urls,
            count(distinct channel) as channels
        from {SCHEMA}.stg_nexmark__bid""").collect()[0]
    # 1 - 1/hot_auction_ratio (2) of the bids go to the hot auction, plus the random ones that land on it
    assert 0.49 < bids.hot_auction_share < 0.53
    assert 0.74 < bids.hot_bidder_share < 0.77  # 1 - 1/hot_bidders_ratio (4)
    assert 0.49 < bids.hot_channel_share < 0.51
    assert 100 <= bids.lowest and bids.highest <= 100_000_000
    assert 80_000 < bids.median_price < 125_000  # 10^(6u) * 100 has median 10^3 * 100
    assert 98 < bids.average_size < 101  # avg_bid_byte_size 100
    assert bids.odd_urls == 0 and bids.channels > 5000
    auctions = spark.sql(f"""
        select
            avg(if((seller - 1000) % 100 = 0, 1, 0)) as hot_seller_share,
            collect_set(category) as categories,
            count_if(reserve < initial_bid or expires <= date_time) as inconsistent,
            avg(48 + length(item_name) + length(description) + length(extra)) as average_size
        from {SCHEMA}.stg_nexmark__auction""").collect()[0]
    assert 0.74 < auctions.hot_seller_share < 0.78  # 1 - 1/hot_sellers_ratio (4)
    assert sorted(auctions.categories) == [10, 11, 12, 13, 14]
    assert auctions.inconsistent == 0
    assert 490 < auctions.average_size < 510  # avg_auction_byte_size 500
    people = spark.sql(f"""
        select
            count_if(not state in ('AZ', 'CA', 'ID', 'OR', 'WA', 'WY')) as odd_states,
            count_if(not credit_card rlike '^[0-9]{{4}} [0-9]{{4}} [0-9]{{4}} [0-9]{{4}}$') as odd_cards,
            count_if(not email_address rlike '^[a-z ]*@[a-z ]*[.]com$') as odd_emails,
            avg(8 + length(name) + length(email_address) + length(credit_card) + length(city) + length(state)
                + length(extra)) as average_size
        from {SCHEMA}.stg_nexmark__person""").collect()[0]
    assert (people.odd_states, people.odd_cards, people.odd_emails) == (0, 0, 0)
    assert 195 < people.average_size < 205  # avg_person_byte_size 200


def test_random_strings_are_as_varied_as_the_reference_generators_rule(spark) -> None:
    """Item names, descriptions and e-mails are nextString's: each character its own draw. How many values repeat
    and their mean length are what the rule predicts (computed from the rule in nexmark_strings.py); slices of one
    fixed string, as the generator once made them, repeated 676 of 6,000 item names and 277 of 2,000 e-mail users."""
    auctions = spark.sql(f"""
        select count(*) as n, count(distinct item_name) as item_names, count(distinct description) as descriptions,
            avg(length(item_name)) as item_name_length, avg(length(description)) as description_length
        from {SCHEMA}.stg_nexmark__auction""").collect()[0]
    people = spark.sql(f"""
        select count(*) as n, count(distinct email_address) as addresses,
            count(distinct substring_index(email_address, '@', 1)) as users,
            count(distinct substring_index(substring_index(email_address, '@', -1), '.com', 1)) as domains,
            avg(length(email_address) - length('.com')) as address_length
        from {SCHEMA}.stg_nexmark__person""").collect()[0]
    users, domains = next_string_classes(7), next_string_classes(5)  # PersonGenerator.nextEmail
    checks = {  # name: (strings made, distinct values found, mean length found, the rule's classes)
        "item names": (auctions.n, auctions.item_names, auctions.item_name_length, next_string_classes(20)),
        "descriptions": (auctions.n, auctions.descriptions, auctions.description_length, next_string_classes(100)),
        "e-mail users": (people.n, people.users, None, users),
        "e-mail domains": (people.n, people.domains, None, domains),
        "e-mail addresses": (people.n, people.addresses, people.address_length, joined(users, domains, "@")),
    }
    assert (auctions.n, people.n) == (3 * EVENTS // 50, EVENTS // 50)
    found, predicted = {}, {}
    for name, (made, distinct, length, classes) in checks.items():
        repeats = expected_repeats(classes, made)  # about Poisson: standard deviation about its square root
        found[name] = abs(made - distinct - repeats) <= 4 * math.sqrt(repeats) + 1
        if length is not None:
            found[name] &= abs(length - mean_length(classes)) <= 4 * length_deviation(classes) / math.sqrt(made)
        predicted[name] = (made - distinct, round(repeats, 1), length, round(mean_length(classes), 2))
    assert all(found.values()), predicted


@pytest.mark.parametrize(("settings", "message"), [
    ({"event": 10}, "nexmark_events: var 'nexmark' has unknown setting 'event'; allowed: events, first_event,"),
    ({"events": -1}, "nexmark_events: setting 'events' got -1; expected a whole number of at least 1"),
    ({"base_time": "1 Jan 2024"}, """nexmark_events: setting 'base_time' got "1 Jan 2024"; expected a wall-clock"""),
    ({"out_of_order_group_size": 1906}, "nexmark_events: setting 'out_of_order_group_size' got 1906; a multiple of 953"),
])
def test_bad_generator_settings_fail_naming_the_setting(built: DbtRun, settings: dict, message: str) -> None:
    run = run_dbt(["compile", "--quiet", "--select", "nexmark_events", "--vars", json.dumps({"nexmark": settings})])
    assert not run.success
    assert message in run.messages
