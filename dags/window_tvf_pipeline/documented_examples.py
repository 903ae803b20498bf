"""Each documented example of Flink's window TVF page (models/flink_examples) and the seed holding the reference's
own output table for it (seeds/flink_docs): compared row for row by dbt tests and by a Great Expectations suite."""

DOCUMENTED_EXAMPLES = {
    "int_bid_tumble_10m": "expected_tumble_10m",
    "fct_bid_tumble_10m_price": "expected_tumble_10m_price",
    "int_bid_hop_5m_10m": "expected_hop_5m_10m",
    "fct_bid_hop_5m_10m_price": "expected_hop_5m_10m_price",
    "int_bid_cumulate_2m_10m": "expected_cumulate_2m_10m",
    "fct_bid_cumulate_2m_10m_price": "expected_cumulate_2m_10m_price",
    "int_offset_event_tumble_10m_offsets": "expected_tumble_10m_offsets",
    "int_bid_session_10m_by_bidder": "expected_session_10m_by_bidder",
}
