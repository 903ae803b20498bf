
    
    



select *
from window_tvf.stg_bid
where bidtime is null


