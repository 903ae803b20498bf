"""Making a retry converge after a task was killed in the middle of an insert_overwrite (docs/pipeline_scale.md,
"Crash safety").

What Spark 4.3 leaves when the process dies during a dynamic-partition `insert overwrite` of a parquet table
(HadoopMapReduceCommitProtocol): the new partitions are written under `<table>/.spark-staging-<job>/`, task outputs
under its `_temporary/`; the job commit merges them and deletes `_temporary`, then replaces each partition in turn
(delete the old directory, rename the staged one) and finally registers new partitions in the metastore.
- killed before the job commit: a staging directory with `_temporary` in it; the table is untouched;
- killed while partitions are replaced: some hold the new rows, one may be gone or half deleted, the rest still
  wait, complete, in the staging directory (without `_temporary`);
- killed after the files, before the metastore: new partitions on disk but not registered;
- killed in a first run's CREATE TABLE AS SELECT: files without a table, which the next CREATE refuses.
The embedded Derby metastore recovers from its own log on the next start (its lock dies with the process).

Before a task rebuilds anything, `recover` discards uncommitted staging directories, finishes an interrupted
partition replacement from the complete staged copy, registers partitions found on disk and removes files of a
table that does not exist, so every table is again exactly the output of a finished run and the rerun gives the
same tables as an uninterrupted run (tested in test_scheduled_pipeline.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STAGING_PREFIX = ".spark-staging-"


@dataclass
class Recovered:
    """What `recover` repaired, for the task's log."""

    discarded: list[str] = field(default_factory=list)  # staging directories of jobs that never committed
    completed: list[str] = field(default_factory=list)  # partitions moved into place from a committed staging copy
    orphans: list[str] = field(default_factory=list)  # directories of tables the metastore does not know

    def __bool__(self) -> bool:
        return bool(self.discarded or self.completed or self.orphans)


def _children(fs: Any, path: Any) -> list[Any]:
    return [status.getPath() for status in fs.listStatus(path)] if fs.exists(path) else []


def _partition_dirs(fs: Any, root: Any) -> list[str]:
    """Relative paths of the staged partition directories (k=v/...), deepest level that holds files."""
    found = []
    for child in _children(fs, root):
        if fs.getFileStatus(child).isDirectory() and "=" in child.getName():
            deeper = _partition_dirs(fs, child)
            found += [f"{child.getName()}/{d}" for d in deeper] or [child.getName()]
    return found


def recover(spark: Any, schema: str, tables: list[str]) -> Recovered:
    """Repairs what an interrupted write left in `schema`'s `tables` (names; views are skipped)."""
    jvm = spark._jvm
    hadoop = spark._jsc.hadoopConfiguration()
    recovered = Recovered()
    if not spark.catalog.databaseExists(schema):
        return recovered
    location = spark.sql(f"describe schema extended {schema}").where("info_name = 'Location'").first().info_value
    for table in tables:
        path = jvm.org.apache.hadoop.fs.Path(f"{location}/{table}")
        fs = path.getFileSystem(hadoop)
        if not spark.catalog.tableExists(f"{schema}.{table}"):
            if fs.exists(path):
                fs.delete(path, True)
                recovered.orphans.append(str(path))
            continue
        registered = False
        for staging in _children(fs, path):
            name = staging.getName()
            if name == "_temporary":
                fs.delete(staging, True)
                recovered.discarded.append(str(staging))
                continue
            if not name.startswith(STAGING_PREFIX):
                continue
            if not fs.exists(jvm.org.apache.hadoop.fs.Path(staging, "_temporary")):
                for partition in _partition_dirs(fs, staging):
                    final = jvm.org.apache.hadoop.fs.Path(path, partition)
                    fs.delete(final, True)
                    fs.mkdirs(final.getParent())
                    fs.rename(jvm.org.apache.hadoop.fs.Path(staging, partition), final)
                    recovered.completed.append(str(final))
                    registered = True
            else:
                recovered.discarded.append(str(staging))
            fs.delete(staging, True)
        if registered:
            spark.sql(f"alter table {schema}.{table} recover partitions")
    return recovered
