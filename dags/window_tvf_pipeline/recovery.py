"""Making a retry converge after a task was killed in the middle of an insert_overwrite (docs/pipeline_crash_safety.md).

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
same tables as an uninterrupted run (tested in test_crash_recovery.py).

On a Spark server (make airflow's Connect server) the writes run in the server's driver, which outlives the tasks:
a write is cut only when that driver dies, and nothing else writes while it starts again. So the server repairs its
own warehouse at each start, before it serves (`recover_warehouse`, from scripts/connect_server.py); a task on a
server target does not, since it could not tell a cut write from another task's running one."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

STAGING_PREFIX = ".spark-staging-"
# A managed table's directory (a database's are `<name>.db`, in the default database's location).
_TABLE_DIRECTORY = re.compile(r"[a-z0-9_]+")


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


def recover_warehouse(spark: Any, warehouse: str) -> dict[str, Recovered]:
    """`recover` on every table directory of every database inside `warehouse` (a server's own, before it serves:
    a directory there that the metastore does not know is what a cut CREATE TABLE AS SELECT left). Returns what it
    repaired, by database."""
    jvm = spark._jvm
    root = jvm.org.apache.hadoop.fs.Path(warehouse).toUri().getPath().rstrip("/")
    repaired = {}
    for database in spark.catalog.listDatabases():
        location = jvm.org.apache.hadoop.fs.Path(database.locationUri)
        if not (location.toUri().getPath().rstrip("/") + "/").startswith(root + "/"):
            continue  # a database kept elsewhere is not this server's to repair
        fs = location.getFileSystem(spark._jsc.hadoopConfiguration())
        directories = [path for path in _children(fs, location)
                       if _TABLE_DIRECTORY.fullmatch(path.getName()) and fs.getFileStatus(path).isDirectory()]
        known = {table.name for table in spark.catalog.listTables(database.name)}
        # A directory without a table of its name is a cut CREATE's, unless it is another table's location (an
        # external table's can be any directory): only then is it worth asking every table for its location.
        elsewhere = (_locations_of_other_tables(spark, database.name)
                     if any(path.getName() not in known for path in directories) else set())
        tables = [path.getName() for path in directories if path.toUri().getPath() not in elsewhere]
        if found := recover(spark, database.name, tables):
            repaired[database.name] = found
    return repaired


def _locations_of_other_tables(spark: Any, database: str) -> set[str]:
    """The directories of `database`'s tables that are not named after their table."""
    found = set()
    for table in spark.catalog.listTables(database):
        if table.tableType == "VIEW" or table.isTemporary:
            continue
        rows = spark.sql(f"describe table extended `{database}`.`{table.name}`").where("col_name = 'Location'").collect()
        for row in rows:
            path = spark._jvm.org.apache.hadoop.fs.Path(row.data_type)
            if path.getName() != table.name:
                found.add(path.toUri().getPath())
    return found
