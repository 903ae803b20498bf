
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
        select *
        from window_tvf_dbt_test__audit.not_null_stg_bid_bidtime
    
      
    ) dbt_internal_test