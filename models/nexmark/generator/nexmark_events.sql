{#-
    Nexmark's event stream (persons, auctions, bids), made by Spark from the event number alone.

    Follows the reference generator of the Nexmark benchmark (github.com/nexmark/nexmark, nexmark-flink/.../generator:
    GeneratorConfig, NexmarkGenerator, PersonGenerator, AuctionGenerator, BidGenerator, StringsGenerator,
    PriceGenerator) and Apache Beam's, from which it descends. Beam seeds each event's random numbers with the event
    id; here every random draw is xxhash64(seed, event id, draw number), so an event depends on its number and the
    settings only: any slice of the stream can be made on any worker, in any order, with any partitioning.
    What is followed and where it deviates: docs/nexmark.md.

    Settings: the dbt var `nexmark` (a dict; keys below, Nexmark's names in snake_case), e.g.
        dbt run --select nexmark_events --vars '{nexmark: {events: 10000000}}'
    Output: one row per event, laid out like the benchmark's source table (ddl_gen.sql): event_type (0 person,
    1 auction, 2 bid), one struct per kind (NULL for the other kinds), date_time; written as parquet partitioned by
    event_type. Rows are produced in stream order, which is not time order when out_of_order_group_size > 1.
-#}
{%- set settings = {
    'events': 100000,
    'first_event': 0,
    'first_event_rate': 10000,
    'base_time': '2024-01-01 00:00:00',
    'out_of_order_group_size': 1,
    'person_proportion': 1,
    'auction_proportion': 3,
    'bid_proportion': 46,
    'hot_auction_ratio': 2,
    'hot_sellers_ratio': 4,
    'hot_bidders_ratio': 4,
    'num_in_flight_auctions': 100,
    'num_active_people': 1000,
    'avg_person_byte_size': 200,
    'avg_auction_byte_size': 500,
    'avg_bid_byte_size': 100,
    'seed': 0,
    'partitions': 0,
} -%}
{%- set given = var('nexmark', {}) or {} -%}
{%- if given is not mapping -%}
    {{ exceptions.raise_compiler_error("nexmark_events: var 'nexmark' got " ~ (given | tojson)
        ~ "; expected a dict of generator settings such as {events: 1000000}") }}
{%- endif -%}
{%- for key, value in given.items() -%}
    {%- if key not in settings -%}
        {{ exceptions.raise_compiler_error("nexmark_events: var 'nexmark' has unknown setting '" ~ key
            ~ "'; allowed: " ~ (settings.keys() | join(', '))) }}
    {%- elif key == 'base_time' -%}
        {%- if value is not string or not modules.re.match('^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,3})?$', value) -%}
            {{ exceptions.raise_compiler_error("nexmark_events: setting 'base_time' got " ~ (value | tojson)
                ~ "; expected a wall-clock time 'YYYY-MM-DD hh:mm:ss[.fff]'") }}
        {%- endif -%}
    {%- elif value is not number or value is sameas true or value is sameas false or value != (value | int)
        or value < (0 if key in ('first_event', 'seed', 'partitions') else 1) -%}
        {{ exceptions.raise_compiler_error("nexmark_events: setting '" ~ key ~ "' got " ~ (value | tojson)
            ~ "; expected a whole number of at least " ~ (0 if key in ('first_event', 'seed', 'partitions') else 1)) }}
    {%- endif -%}
    {%- do settings.update({key: value}) -%}
{%- endfor -%}

{%- set seed = settings.seed | int -%}
{%- set person_share = settings.person_proportion | int -%}
{%- set auction_share = settings.auction_proportion | int -%}
{%- set cycle = person_share + auction_share + (settings.bid_proportion | int) -%}
{%- set group_size = settings.out_of_order_group_size | int -%}
{%- if group_size % 953 == 0 -%}
    {{ exceptions.raise_compiler_error("nexmark_events: setting 'out_of_order_group_size' got " ~ group_size
        ~ "; a multiple of 953 would not permute its groups (the reference generator scrambles with event number * 953)") }}
{%- endif -%}
{#- GeneratorConfig: interEventDelayUs = 1,000,000 / firstEventRate (one generator, one timeline). -#}
{%- set delay_us = 1000000.0 / settings.first_event_rate -%}
{#- AuctionGenerator.nextAuctionLengthMs: events until numInFlightAuctions more auctions have been made. -#}
{%- set events_for_in_flight_auctions = ((settings.num_in_flight_auctions | int) * cycle) // auction_share -%}

{#- Constants of the reference generator (not configurable there either). -#}
{%- set first_person_id, first_auction_id, first_category_id = 1000, 1000, 10 -%}
{%- set id_lead, hot_ratio_batch, categories = 10, 100, 5 -%}
{%- set first_names = ['Peter', 'Paul', 'Luke', 'John', 'Saul', 'Vicky', 'Kate', 'Julie', 'Sarah', 'Deiter', 'Walter'] -%}
{%- set last_names = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris'] -%}
{%- set cities = ['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne'] -%}
{%- set states = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'] -%}
{%- set hot_channels = ['Google', 'Facebook', 'Baidu', 'Apple'] -%}
{%- set channel_count, reusable_length = 10000, 2048 -%}
{#- StringsGenerator.REUSABLE_EXTRA_STRING: extras are random substrings of one random string of letters, here from
    a 64-bit linear congruential generator of the seed, inlined as bytes (a substring of a binary is a slice). -#}
{%- set lcg = namespace(state=(settings.seed | int) * 2654435761 + 1, extra=[]) -%}
{%- for _ in range(reusable_length) -%}
    {%- set lcg.state = (lcg.state * 6364136223846793005 + 1442695040888963407) % 18446744073709551616 -%}
    {%- do lcg.extra.append('%02x' % (97 + (lcg.state // 8589934592) % 26)) -%}
{%- endfor -%}
{%- set extra_source = lcg.extra | join('') -%}

{#-
    SQL templates for the reference generator's random helpers (dbt does not let a model define macros); each draw
    is xxhash64(seed, the row's key, draw number k), so no two draws of an event are correlated.
-#}
{#- random.nextInt(bound): uniform on [0, bound) -#}
{%- set draw = 'pmod(xxhash64(' ~ seed ~ ', event_id, {k}), {bound})' -%}
{%- set channel_draw = 'pmod(xxhash64(' ~ seed ~ ', bid_channel_key, {k}), {bound})' -%}
{#- PriceGenerator.nextPrice: round(10 ^ (u * 6) * 100) with u uniform on [0, 1) (the hash's top 53 bits): 100 to
    100,000,000 cents, log-uniform -#}
{%- set price = 'cast(round(pow(10, shiftrightunsigned(xxhash64(' ~ seed ~ ', event_id, {k}), 11) / 9007199254740992D * 6) * 100) as bigint)' -%}
{#- StringsGenerator.nextString(maxLength, special): a length from [3, maxLength) (drawn beforehand, as {length}),
    then that many characters, each its own draw c from [0, 338): `special` when c is a multiple of 13 (1 in 13),
    else the letter c div 13 ('a'-'z'); trimmed of spaces at both ends (Java's trim). c picks one character of a
    338-character table; no draw is made past the length. Unrolled, one expression per character: Spark's
    higher-order functions would run interpreted. -#}
{%- set character_tables = {} -%}
{%- for special in [' ', '_'] -%}
    {%- set table = namespace(characters=[]) -%}
    {%- for c in range(338) -%}
        {%- do table.characters.append(special if c % 13 == 0 else 'abcdefghijklmnopqrstuvwxyz'[c // 13]) -%}
    {%- endfor -%}
    {%- do character_tables.update({special: table.characters | join('')}) -%}
{%- endfor -%}
{%- set random_strings = {} -%}
{%- for max_length in [5, 7, 20, 100] -%}
    {%- set characters = [] -%}
    {%- for i in range(max_length - 1) -%}
        {%- set character = "substr('{table}', 1 + pmod(xxhash64(" ~ seed ~ ", {key}, {k}, " ~ i ~ "), 338), 1)" -%}
        {%- do characters.append(character if i < 3 else 'if({length} > ' ~ i ~ ', ' ~ character ~ ", '')") -%}
    {%- endfor -%}
    {%- do random_strings.update({max_length: 'trim(concat(' ~ characters | join(', ') ~ '))'}) -%}
{%- endfor -%}
{#- PersonGenerator.nextBase0PersonId: one of the last num_active_people people, or one of the next 10 -#}
{%- set active_people = 'least(last_person + 1, ' ~ settings.num_active_people ~ ')' -%}
{%- set random_person = '(last_person + 1 - ' ~ active_people ~ ' + pmod(xxhash64(' ~ seed ~ ', event_id, {k}), '
    ~ active_people ~ ' + ' ~ id_lead ~ '))' -%}

with

-- GeneratorConfig.nextAdjustedEventNumber: with out_of_order_group_size n, each group of n consecutive events is
-- emitted in a scrambled order (event number * 953 mod n); the event's id and time come from the adjusted number
stream as (
    select
        id as event_number,
        (id div {{ group_size }}) * {{ group_size }} + pmod(id * 953, {{ group_size }}) as event_id
    from range({{ settings.first_event }}, {{ settings.first_event + settings.events }}, 1{{ ', ' ~ settings.partitions if settings.partitions }})
),

-- the kind of event (person : auction : bid = person_proportion : auction_proportion : bid_proportion, by event id),
-- the last person and auction made so far, and the time: baseTime + (long) (eventNumber * interEventDelayUs) / 1000
positioned as (
    select
        event_number,
        event_id,
        case
            when pmod(event_id, {{ cycle }}) < {{ person_share }} then 0
            when pmod(event_id, {{ cycle }}) < {{ person_share + auction_share }} then 1
            else 2
        end as event_type,
        (event_id div {{ cycle }}) * {{ person_share }} + least(pmod(event_id, {{ cycle }}), {{ person_share - 1 }}) as last_person,
        case
            when pmod(event_id, {{ cycle }}) < {{ person_share }} then (event_id div {{ cycle }}) * {{ auction_share }} - 1
            when pmod(event_id, {{ cycle }}) >= {{ person_share + auction_share }}
                then (event_id div {{ cycle }}) * {{ auction_share }} + {{ auction_share - 1 }}
            else (event_id div {{ cycle }}) * {{ auction_share }} + pmod(event_id, {{ cycle }}) - {{ person_share }}
        end as last_auction,
        cast(event_id * {{ delay_us }}D as bigint) div 1000 as offset_ms
    from stream
),

-- each kind's fields (NULL for the other kinds), drawn as the reference generator draws them
fields as (
    select
        event_number,
        event_id,
        event_type,
        timestamp_ntz'{{ settings.base_time }}' + offset_ms * interval '0.001' second as date_time,

        -- PersonGenerator.nextPerson
        case when event_type = 0 then last_person + {{ first_person_id }} end as person_id,
        case when event_type = 0 then concat(
            element_at(array('{{ first_names | join("', '") }}'), cast(1 + {{ draw.format(k=1, bound=first_names | length) }} as int)), ' ',
            element_at(array('{{ last_names | join("', '") }}'), cast(1 + {{ draw.format(k=2, bound=last_names | length) }} as int)))
        end as person_name,
        -- nextEmail: nextString(7) @ nextString(5) .com (the strings are spelled below, from these lengths)
        case when event_type = 0 then 3 + {{ draw.format(k=3, bound=4) }} end as person_email_user_length,
        case when event_type = 0 then 3 + {{ draw.format(k=4, bound=2) }} end as person_email_domain_length,
        case when event_type = 0 then concat_ws(' ',
            {%- for k in range(5, 9) %}
            lpad(cast({{ draw.format(k=k, bound=10000) }} as string), 4, '0'){{ ',' if not loop.last }}
            {%- endfor %})
        end as person_credit_card,
        case when event_type = 0 then element_at(array('{{ cities | join("', '") }}'), cast(1 + {{ draw.format(k=9, bound=cities | length) }} as int)) end
            as person_city,
        case when event_type = 0 then element_at(array('{{ states | join("', '") }}'), cast(1 + {{ draw.format(k=10, bound=states | length) }} as int)) end
            as person_state,

        -- AuctionGenerator.nextAuction: a hot seller (the first of the last batch of 100 people) with probability
        -- 1 - 1/hot_sellers_ratio, else a random active person
        case when event_type = 1 then last_auction + {{ first_auction_id }} end as auction_id,
        -- nextString(20) and nextString(100) (spelled below)
        case when event_type = 1 then 3 + {{ draw.format(k=20, bound=17) }} end as auction_item_name_length,
        case when event_type = 1 then 3 + {{ draw.format(k=21, bound=97) }} end as auction_description_length,
        case when event_type = 1 then {{ price.format(k=22) }} end as auction_initial_bid,
        case when event_type = 1 then {{ price.format(k=23) }} end as auction_reserve_increment,
        -- expires: 1 + a draw from [0, 2 * horizon), horizon = time until num_in_flight_auctions more auctions
        case when event_type = 1 then 1 + {{ draw.format(k=24, bound='greatest(2 * ((cast((event_id + ' ~ events_for_in_flight_auctions
            ~ ') * ' ~ delay_us ~ 'D as bigint) div 1000) - offset_ms), 1)') }} end as auction_length_ms,
        case when event_type = 1 then {{ first_person_id }} + case
            when {{ draw.format(k=25, bound=settings.hot_sellers_ratio) }} > 0 then (last_person div {{ hot_ratio_batch }}) * {{ hot_ratio_batch }}
            else {{ random_person.format(k=26) }}
        end end as auction_seller,
        case when event_type = 1 then {{ first_category_id }} + {{ draw.format(k=27, bound=categories) }} end as auction_category,

        -- BidGenerator.nextBid: a hot auction (the first of the last batch of 100 auctions) with probability
        -- 1 - 1/hot_auction_ratio, else one of the auctions likely in flight; a hot bidder (the second of the last
        -- batch of 100 people) with probability 1 - 1/hot_bidders_ratio, else a random active person
        case when event_type = 2 then {{ first_auction_id }} + case
            when {{ draw.format(k=40, bound=settings.hot_auction_ratio) }} > 0 then (last_auction div {{ hot_ratio_batch }}) * {{ hot_ratio_batch }}
            else greatest(last_auction - {{ settings.num_in_flight_auctions }}, 0) + {{ draw.format(k=41,
                bound='last_auction - greatest(last_auction - ' ~ settings.num_in_flight_auctions ~ ', 0) + 1 + ' ~ id_lead) }}
        end end as bid_auction,
        case when event_type = 2 then {{ first_person_id }} + case
            when {{ draw.format(k=42, bound=settings.hot_bidders_ratio) }} > 0 then (last_person div {{ hot_ratio_batch }}) * {{ hot_ratio_batch }} + 1
            else {{ random_person.format(k=43) }}
        end end as bid_bidder,
        case when event_type = 2 then {{ price.format(k=44) }} end as bid_price,
        -- half the bids come from one of 4 hot channels, the others from one of 10,000 channels
        case when event_type = 2 then case
            when {{ draw.format(k=45, bound=2) }} > 0 then {{ channel_count }} + {{ draw.format(k=46, bound=hot_channels | length) }}
            else {{ draw.format(k=47, bound=channel_count) }}
        end end as bid_channel_key
    from positioned
),

-- StringsGenerator.nextString, each character its own draw (the lengths are columns of their own, so that Spark
-- computes each once, not once per character)
spelled as (
    select
        fields.*,
        case when event_type = 0 then concat(
            {{ random_strings[7].format(key='event_id', k=3, length='person_email_user_length', table=character_tables[' ']) }},
            '@',
            {{ random_strings[5].format(key='event_id', k=4, length='person_email_domain_length', table=character_tables[' ']) }},
            '.com'
        ) end as person_email_address,
        case when event_type = 1
            then {{ random_strings[20].format(key='event_id', k=20, length='auction_item_name_length', table=character_tables[' ']) }}
        end as auction_item_name,
        case when event_type = 1
            then {{ random_strings[100].format(key='event_id', k=21, length='auction_description_length', table=character_tables[' ']) }}
        end as auction_description
    from fields
),

-- BidGenerator's channels: 10,000 channels 'channel-<i>', each with a random URL (the same for all its bids: drawn
-- from the channel number), 9 in 10 of them tagged &channel_id=abs(Integer.reverse(i)) (Java's abs keeps
-- Integer.MIN_VALUE negative, as for channel 1); 4 hot channels with a URL each (keys 10,000 to 10,003). Made once
-- per channel, as the reference's channel cache does, and looked up by each bid.
channel_numbers as (
    select
        id as bid_channel_key,
        cast(conv(reverse(lpad(bin(id), 32, '0')), 2, 10) as bigint) as reversed,
        -- getBaseUrl: three nextString(5, '_')
        {%- for k in range(60, 63) %}
        3 + {{ channel_draw.format(k=k, bound=2) }} as url_part_length_{{ k }}{{ ',' if not loop.last }}
        {%- endfor %}
    from range(0, {{ channel_count + hot_channels | length }}, 1, 1) as numbers (id)
),

channels as (
    select
        bid_channel_key,
        case
            when bid_channel_key >= {{ channel_count }}
                then element_at(array('{{ hot_channels | join("', '") }}'), cast(bid_channel_key - {{ channel_count - 1 }} as int))
            else concat('channel-', bid_channel_key)
        end as bid_channel,
        concat(
            'https://www.nexmark.com/',
            {%- for k in range(60, 63) %}
            {{ random_strings[5].format(key='bid_channel_key', k=k, length='url_part_length_' ~ k, table=character_tables['_']) }},
            '{{ '/' if not loop.last else '/item.htm?query=1' }}',
            {%- endfor %}
            case when bid_channel_key < {{ channel_count }} and {{ channel_draw.format(k=63, bound=10) }} > 0
                then concat('&channel_id=', cast(case
                    when reversed = 2147483648 then -2147483648
                    else abs(if(reversed >= 2147483648, reversed - 4294967296, reversed))
                end as string))
                else ''
            end
        ) as bid_url
    from channel_numbers
),

-- each bid's channel, by a broadcast lookup that keeps the stream's order and partitioning
channeled as (
    select /*+ broadcast(channels) */
        spelled.*,
        channels.bid_channel,
        channels.bid_url
    from spelled
    left join channels on spelled.bid_channel_key = channels.bid_channel_key
),

-- StringsGenerator.nextExtra: padding so that an event's size averages avg_<kind>_byte_size, the fixed-size fields
-- counting 8 bytes each as in the reference generator: a length from [budget - d, budget + d) with d = 20% of the
-- budget left by the other fields (none when they exceed the average)
sized as (
    select
        channeled.*,
        case event_type
            when 0 then {{ settings.avg_person_byte_size }} - (8 + length(person_name) + length(person_email_address)
                + length(person_credit_card) + length(person_city) + length(person_state))
            when 1 then {{ settings.avg_auction_byte_size }} - (8 + length(auction_item_name) + length(auction_description) + 40)
            else {{ settings.avg_bid_byte_size }} - 32
        end as extra_budget
    from channeled
),

padded as (
    select
        budgets.*,
        case
            when extra_budget < 0 then 0
            when extra_spread = 0 then extra_budget
            else extra_budget - extra_spread + {{ draw.format(k=11, bound='2 * extra_spread') }}
        end as extra_length
    from (
        select *, cast(floor(extra_budget * 0.2 + 0.5) as int) as extra_spread from sized
    ) as budgets
),

-- StringsGenerator.nextExactString: that many letters of the reusable string, from a random offset
padded_events as (
    select
        padded.*,
        cast(substr(X'{{ extra_source }}', 1 + {{ draw.format(k=12, bound=reusable_length ~ ' - extra_length') }}, extra_length)
            as string) as extra
    from padded
)

select
    case when event_type = 0 then named_struct(
        'id', person_id,
        'name', person_name,
        'email_address', person_email_address,
        'credit_card', person_credit_card,
        'city', person_city,
        'state', person_state,
        'extra', extra
    ) end as person,
    case when event_type = 1 then named_struct(
        'id', auction_id,
        'item_name', auction_item_name,
        'description', auction_description,
        'initial_bid', auction_initial_bid,
        'reserve', auction_initial_bid + auction_reserve_increment,
        'expires', date_time + auction_length_ms * interval '0.001' second,
        'seller', auction_seller,
        'category', auction_category,
        'extra', extra
    ) end as auction,
    case when event_type = 2 then named_struct(
        'auction', bid_auction,
        'bidder', bid_bidder,
        'price', bid_price,
        'channel', bid_channel,
        'url', bid_url,
        'extra', extra
    ) end as bid,
    date_time,
    event_type
from padded_events
