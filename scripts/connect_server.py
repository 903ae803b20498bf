"""make airflow's Spark Connect server: Spark's own server (org.apache.spark.sql.connect.service.SparkConnectServer,
what sbin/start-connect-server.sh runs), preceded in the same driver by a repair of its warehouse.

A write on the server is cut only when the server's driver dies (a kill, an OOM, `make airflow-stop` in the
middle of a task), and what it leaves can make every retry fail: a cut first CREATE TABLE AS SELECT leaves files
without a table, and the next CREATE refuses their location. So, at each start and before it accepts a connection,
the server runs `window_tvf_pipeline.recovery.recover_warehouse` on its own warehouse (nothing writes then: it
serves nobody yet) and writes what it repaired to its stdout (connect.log). Then Spark's server main takes over in
the same JVM and session: one JVM, as with start-connect-server.sh.

Started by scripts/spark_supervisor.py through spark-submit (its Spark settings are the submit's --conf):

    spark-submit --name "Spark Connect server" --conf ... scripts/connect_server.py
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dags"))

from pyspark.sql import SparkSession  # noqa: E402

from window_tvf_pipeline.recovery import recover_warehouse  # noqa: E402

SERVER_MAIN = "org.apache.spark.sql.connect.service.SparkConnectServer"
log = logging.getLogger("window_tvf.connect_server")


def main() -> None:
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    spark = SparkSession.builder.getOrCreate()
    warehouse = spark.conf.get("spark.sql.warehouse.dir")
    began = time.monotonic()
    try:
        repaired = recover_warehouse(spark, warehouse)
    except Exception:  # a server that serves is worth more than one that a failed repair keeps down
        log.exception("Could not repair the warehouse %s; serving without the repair (a statement a kill cut may "
                      "fail again on its retry: see docs/pipeline_crash_safety.md)", warehouse)
    else:
        for database, found in repaired.items():
            log.warning("Repaired what a cut write left in %s: %s", database, found)
        log.info("Warehouse %s checked in %.1f s (%s); serving", warehouse, time.monotonic() - began,
                 "repaired" if repaired else "nothing to repair")
    gateway = spark.sparkContext._gateway
    # Blocks until the server ends; a stop (SIGTERM to the process group) ends the JVM and this process with it.
    getattr(spark._jvm, SERVER_MAIN).main(gateway.new_array(gateway.jvm.java.lang.String, 0))


if __name__ == "__main__":
    main()
