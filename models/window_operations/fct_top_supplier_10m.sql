-- Per-key sums, then the top supplier within each window (the DataStream doc's consecutive windowed
-- operations): the input already carries its windows, so window=none.
{{ window_tvf.window_topn(
    ref('int_supplier_price_10m'),
    window=none,
    n=1,
    order_by=['price desc'],
    rank_column='rownum',
) }}
