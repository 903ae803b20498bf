
  
    
        create table window_tvf.stg_bid
      
      
    using parquet
      
      
      
      
      
      

      as
      select
    bidtime,
    price,
    item
from window_tvf.bid
  