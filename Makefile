# Entry points. The README's two commands are `make pipeline` and `make test`; CI runs `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.8

# Spark's warehouse, Derby metastore and scratch files live here (git-ignored).
export WINDOW_TVF_SPARK_DIR ?= $(CURDIR)/.spark
export WINDOW_TVF_SPARK_CONF_DIR ?= $(CURDIR)/spark_conf
export DBT_PROFILES_DIR ?= $(CURDIR)
export SPARK_LOCAL_IP ?= 127.0.0.1
export DBT_SEND_ANONYMOUS_USAGE_STATS ?= False

.PHONY: setup docs docs-reference pipeline airflow airflow-stop airflow-status airflow-sql airflow-reset test-airflow bench-airflow bench-airflow-tasks test test-compat test-formats bench bench-formats bench-distinct bench-time-zones bench-paths bench-tumble bench-pipeline bench-volume bench-nexmark bench-microbatch bench-gap-fill lock clean

$(BIN)/.synced: requirements.lock
	@scripts/check_prerequisites.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(BIN)/uv pip sync --quiet --python $(BIN)/python requirements.lock
	touch $@

setup: $(BIN)/.synced

# The docs site (mkdocs-material, mkdocs.yml): docs/ built into .spark/site in strict mode, so a broken link, a missing
# anchor or a page missing from the nav fails the build (tests/python/test_docs_site.py checks the same in make test).
# Read it: open .spark/site/index.html, or serve it with `.venv/bin/mkdocs serve`.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir .spark/site

# The other supported Spark versions, each in a venv of its own (the project's dbt pins, that pyspark, pytest):
# .venv-spark35 (the oldest supported, also run by `make test`) and .venv-spark40.
COMPAT_VERSIONS := spark35 spark40
.venv-%/.synced: requirements-%.lock $(BIN)/.synced
	test -x .venv-$*/bin/python || $(PYTHON) -m venv .venv-$*
	$(BIN)/uv pip sync --quiet --python .venv-$*/bin/python requirements-$*.lock
	touch $@

# The pipeline end to end on the embedded Spark, as Airflow runs it: generated landing files, the reference-examples
# DAG, then the hourly DAG over consecutive intervals (late data included), then a summary.
# make pipeline TABLE_FORMAT=delta (or iceberg): the same pipeline with every table in that format, on pyspark 4.0.5,
# the newest Spark with a release of both formats (.venv-formats from requirements-formats.lock: the project's pins
# with that Spark), the format's jars from Maven Central; a warehouse, metastore and Airflow home of its own.
TABLE_FORMAT ?= parquet
PIPELINE_BIN := $(BIN)
ifneq ($(TABLE_FORMAT),parquet)
ifeq ($(filter $(TABLE_FORMAT),delta iceberg),)
$(error TABLE_FORMAT=$(TABLE_FORMAT): expected parquet (the default), delta or iceberg)
endif
PIPELINE_BIN := .venv-formats/bin
FORMAT_JARS := .spark/jars/$(TABLE_FORMAT)-spark4.0
pipeline: .venv-formats/.synced $(FORMAT_JARS)/.fetched
pipeline: export WINDOW_TVF_TARGET = embedded_$(TABLE_FORMAT)
pipeline: export WINDOW_TVF_TABLE_FORMAT = $(TABLE_FORMAT)
pipeline: export WINDOW_TVF_SPARK_DIR = $(CURDIR)/.spark/format-$(TABLE_FORMAT)
pipeline: export AIRFLOW_HOME = $(CURDIR)/.airflow/format-$(TABLE_FORMAT)
pipeline: export WINDOW_TVF_GX_DIR = $(CURDIR)/.airflow/format-$(TABLE_FORMAT)/great_expectations
pipeline: export WINDOW_TVF_SPARK_JARS = $(shell ls -d $(CURDIR)/$(FORMAT_JARS)/*.jar 2>/dev/null | paste -sd,)
endif
pipeline: setup
	@scripts/check_prerequisites.sh
	cd dags && ../$(PIPELINE_BIN)/python -m window_tvf_pipeline.run

# A real Airflow 3 deployment of the DAGs (scripts/airflow_local.py, docs/airflow_deployment.md): a Spark Connect server
# every task shares (under supervisord: restarted when it dies, its log at WARN and rotated), sample landing data, api-server on 127.0.0.1, scheduler, dag-processor and triggerer
# (LocalExecutor), all under .airflow/deployment; prints the UI's address and login and what runs when. The first run
# makes the deployment; after `make airflow-stop` the next `make airflow` resumes it (runs, task logs, tables, landing
# files, login, ports where free; the scheduler catches up from the last finished interval); it refuses while one
# runs. Only `make airflow-reset` deletes it (it stops it first and lists what it deletes).
# A deployment with only some of its services running (one was killed or died) is stopped and resumed.
# Airflow's metadata database is SQLite in the deployment's directory, or PostgreSQL for a new deployment:
# make airflow AIRFLOW_DB=postgresql://user:password@host:port/database (or AIRFLOW__DATABASE__SQL_ALCHEMY_CONN set);
# a resumed deployment keeps its own, and airflow-reset drops Airflow's tables from it.
# Options: AIRFLOW_ARGS="--hours 6" (a new deployment's catch-up), "--home DIR" (another deployment, every target).
airflow: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python scripts/airflow_local.py start $(if $(AIRFLOW_DB),--db '$(AIRFLOW_DB)') $(AIRFLOW_ARGS)

airflow-stop: setup
	@$(BIN)/python scripts/airflow_local.py stop $(AIRFLOW_ARGS)

# Running or not, the services, each DAG's next run and last runs (from the metadata database), where the logs are.
airflow-status: setup
	@$(BIN)/python scripts/airflow_local.py status $(AIRFLOW_ARGS)

# One Spark SQL statement on the running deployment's Spark Connect server, in schema window_tvf:
# make airflow-sql SQL="select count(*) from fct_item_sales_tumble_15m" (at most 100 rows printed).
airflow-sql: setup
	@$(BIN)/python scripts/airflow_local.py sql "$$AIRFLOW_SQL" $(AIRFLOW_ARGS)

airflow-sql: export AIRFLOW_SQL = $(SQL)

airflow-reset: setup
	@$(BIN)/python scripts/airflow_local.py reset $(AIRFLOW_ARGS)

# The hourly DAG under Airflow's own scheduler (not part of `make test`). tests/python/test_airflow_deployment.py:
# the deployment above in .airflow/test-deployment; its three intervals each take a fault in the middle of their dbt
# build: the Spark server SIGKILLed (supervisord restarts it, the tasks retry), the scheduler SIGKILLed then
# `make airflow`, `make airflow-stop` then `make airflow` (runs, logs, tables, landing files, login, ports kept);
# every table against dag.test()'s, the printed commands as printed, airflow-reset; the UI's grid in headless
# Chromium (skipped without it: apt-get install -y chromium), its screenshot in docs/airflow_grid.png.
# tests/python/test_airflow_cosmos.py: the per-model DAGs rendered, then a per-model deployment over a copy of the
# project with a broken model: its own red task, the retry that reruns it alone, the grid (docs/airflow_grid_per_model.png).
# tests/python/test_airflow_postgres.py: make airflow AIRFLOW_DB=postgresql://... on a PostgreSQL server it starts
# (scripts/install_postgres.sh installs Debian's postgresql package where missing), resume, status, reset.
test-airflow: setup
	@scripts/check_prerequisites.sh
	@scripts/install_postgres.sh
	WINDOW_TVF_TEST_AIRFLOW=1 $(BIN)/pytest tests/python/test_spark_server_recovery.py
	WINDOW_TVF_TEST_AIRFLOW=1 $(BIN)/pytest tests/python/test_airflow_deployment.py
	WINDOW_TVF_TEST_AIRFLOW=1 $(BIN)/pytest tests/python/test_airflow_postgres.py
	# a process of its own: its DagBag would set up Airflow before the deployment test's dag.test() home is set
	WINDOW_TVF_TEST_AIRFLOW=1 $(BIN)/pytest tests/python/test_airflow_cosmos.py

# The test suite: pytest drives dbt in-process, so one SparkSession serves every test; test_spark_versions.py runs
# the window-semantics suites on the oldest supported Spark (3.5) with Iceberg tables in a subprocess of its own,
# beside the main suite: hence the Spark 3.5 venv and Iceberg's runtime jar for it (Maven Central, as test-formats).
test: setup .venv-spark35/.synced .spark/jars/iceberg-spark3.5/.fetched
	@scripts/check_prerequisites.sh
	$(BIN)/pytest --numprocesses 3

# The conformance suites on pyspark 3.5 and 4.0 (tests/python/spark_versions.py): everything that needs neither
# Airflow nor Great Expectations, on each version's embedded Spark, failing on any difference from the expected rows.
test-compat: setup $(COMPAT_VERSIONS:%=.venv-%/.synced)
	@scripts/check_prerequisites.sh
	$(BIN)/python tests/python/spark_versions.py $(COMPAT_VERSIONS)

# Delta Lake and Apache Iceberg on the Spark versions that have a release of them (docs/table_formats.md): each
# format's pinned jars fetched from Maven Central by Maven (spark_conf/table_formats/pom.xml, one profile per format
# and Spark) into .spark/jars/<format>-spark<x.y>, Maven's cache in .spark/maven; then the conformance suites of
# test-compat on each format's tables (profiles.yml's embedded_delta / embedded_iceberg targets). Spark 4.0 by default
# (the pipeline's tests too); Spark 3.5: make test-formats FORMAT_RUNS="spark35-delta spark35-iceberg".
FORMAT_RUNS ?= spark40-delta spark40-iceberg
# spark40-delta: .spark/jars/delta-spark4.0 and .venv-formats; spark35-iceberg: .spark/jars/iceberg-spark3.5 and .venv-spark35
format_spark = $(subst spark3,3.,$(subst spark4,4.,$(word 1,$(subst -, ,$(1)))))
FORMAT_JARS = $(foreach run,$(FORMAT_RUNS),.spark/jars/$(word 2,$(subst -, ,$(run)))-spark$(call format_spark,$(run))/.fetched)
FORMAT_VENVS = $(if $(filter spark40-%,$(FORMAT_RUNS)),.venv-formats/.synced) $(if $(filter spark35-%,$(FORMAT_RUNS)),.venv-spark35/.synced)
.spark/jars/%/.fetched: spark_conf/table_formats/pom.xml
	@command -v mvn >/dev/null || { echo "Maven (mvn) is needed to fetch the table formats' jars: apt-get install -y maven"; exit 1; }
	rm -rf .spark/jars/$* && mkdir -p .spark/jars
	@echo "Fetching the $* jars from Maven Central (log: .spark/jars/$*.log) ..."
	@mvn --batch-mode -f $< -P $* -Dmaven.repo.local=$(CURDIR)/.spark/maven dependency:copy-dependencies \
		-DoutputDirectory=$(CURDIR)/.spark/jars/$* > .spark/jars/$*.log 2>&1 || { tail -20 .spark/jars/$*.log; exit 1; }
	@ls .spark/jars/$*
	@touch $@

test-formats: setup $(FORMAT_VENVS) $(FORMAT_JARS)
	@scripts/check_prerequisites.sh
	$(BIN)/python tests/python/spark_versions.py $(FORMAT_RUNS)

# The window aggregation's write step on parquet, Delta Lake and Iceberg tables in one Spark 4.0 session, three key
# shapes at 3 M events (bench/table_format_writes.py, about 8 minutes): full builds, a day rewritten by insert
# overwrite, Delta's replaceWhere and MERGE; docs/benchmarks/table_format_writes.md. FORMATS_ARGS="--rows 300000 --repeats 1".
bench-formats: setup .venv-formats/.synced .spark/jars/delta-spark4.0/.fetched .spark/jars/iceberg-spark4.0/.fetched
	@scripts/check_prerequisites.sh
	.venv-formats/bin/python bench/table_format_writes.py $(FORMATS_ARGS)

# The window aggregation benchmark (about 41 minutes on 2 cores: three key distributions, 3 M and 10 M rows, both
# shuffles of the sliced path per cell, and the input as a CTE name): prints a table and writes
# docs/benchmarks/window_aggregation.md; then local time and calendar windows against their UTC twins (bench-time-zones,
# about 3 minutes, docs/benchmarks/time_zones.md); then gap filling against a date spine (bench-gap-fill, about 5
# minutes, docs/gap_fill.md); then rolling
# distinct counts (bench-distinct at 10 M rows: about 75 minutes quiet, measured query by query; Spark's own 30-day
# window() + count(distinct) alone takes 12-13 minutes per key shape).
bench: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/window_aggregation.py
	$(BIN)/python bench/time_zones.py
	$(BIN)/python bench/gap_fill.py
	$(BIN)/python bench/distinct_counts.py

# Rolling distinct counts (exact and HLL) against Spark's window() + count(distinct) / approx_count_distinct:
# HOP 30 days / 1 day and 7 days / 1 day, month to date by day, on three key shapes (bench/distinct_counts.py;
# docs/benchmarks/distinct_counts.md, a section per command). ROWS (default 10 M), SHAPES (dense,uniform,zipf), QUERIES (names, comma-separated),
# REPEATS, NOTE; GROWTH=10000000,20000000,40000000: the sliced paths at each size against a GROUP BY floor, no baseline.
bench-distinct: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/distinct_counts.py $(if $(ROWS),--rows $(ROWS)) $(if $(SHAPES),--shapes $(SHAPES)) \
		$(if $(QUERIES),--queries "$(QUERIES)") $(if $(REPEATS),--repeats $(REPEATS)) $(if $(NOTE),--note "$(NOTE)") \
		$(if $(GROWTH),--growth $(GROWTH))

# Gap filling (window_gap_fill) against the hand-written date-spine join, 3 M events, 1,000 keys, hourly windows over
# 30 days, two key shapes (about 5 minutes; docs/gap_fill.md). Options: BENCH_ROWS, BENCH_REPEATS (environment).
bench-gap-fill: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/gap_fill.py

bench-time-zones: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/time_zones.py

# Where a tumbling window_aggregate's time goes against Spark's window(): timings, planning and Spark's per-operator
# metrics at 3 M rows on the three key distributions (about 3 minutes; it prints them: docs/benchmarks/tumble_profile.md).
bench-tumble: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/tumble_profile.py

# Whether strategy='auto' takes the faster path: each benchmark query as 'auto' and as 'rows' at 3 M rows on the
# three key distributions (about 10 minutes; docs/benchmarks/paths.md).
bench-paths: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/paths.py

# The hourly pipeline at scale: BENCH_HOURS hours of --large events through the hourly DAG, each interval timed, the
# rows each model read taken from Spark's plans; writes docs/benchmarks/pipeline_scale.md and its chart (72 hours: about 65
# minutes on 2 cores).
BENCH_HOURS ?= 72
bench-pipeline: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/pipeline_scale.py --hours $(BENCH_HOURS)

# The pipeline at production volume (bench/pipeline_volume.py, about an hour on 2 cores; landing files generated once
# into .spark/bench-volume and reused): three hourly intervals at 40,000, 400,000 and 2,000,000 events an hour, a late
# interval of a day against the day's second, and parse_json_lines against Spark's own JSON reader on 1 M and 10 M
# lines; writes docs/benchmarks/pipeline_volume.md. Options: make bench-volume
# VOLUME_ARGS="--parts shapes --shapes 40000".
bench-volume: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/pipeline_volume.py $(VOLUME_ARGS)

# Nexmark in batch (at most about 30 minutes): each query as a window_tvf model and as plain Spark SQL on 10 M events,
# then 100 M if the estimate fits; writes docs/nexmark.md. Options: make bench-nexmark NEXMARK_ARGS="--events 1000000".
bench-nexmark: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/nexmark.py $(NEXMARK_ARGS)

# A dbt microbatch backfill of window models (about 10 minutes): 48 hourly batches of four models over 72 hours of
# events, each batch timed and its reads taken from Spark's plans; writes docs/benchmarks/microbatch_backfill.md.
# Options: make bench-microbatch MICROBATCH_ARGS="--hours 12 --batches 8".
bench-microbatch: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/microbatch.py $(MICROBATCH_ARGS)

# The hourly DAG's backfill under Airflow's scheduler (make airflow's deployment, `airflow backfill create`) against the
# same intervals under dag.test(), interval by interval; its section of docs/airflow_deployment.md (24 intervals: 36
# minutes on 2 cores). Options: make bench-airflow BENCH_AIRFLOW_INTERVALS=6.
BENCH_AIRFLOW_INTERVALS ?= 24
bench-airflow: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/airflow_backfill.py --intervals $(BENCH_AIRFLOW_INTERVALS)

# One Airflow task per dbt model (astronomer-cosmos, watcher mode) against the coarse tasks, under the scheduler: two
# deployments one after the other, a backfill of the same intervals each, every table compared; its section of
# docs/airflow_deployment.md (4 intervals: about 25 minutes on 2 cores). Options: BENCH_TASKS_INTERVALS=6.
BENCH_TASKS_INTERVALS ?= 4
bench-airflow-tasks: setup
	@scripts/check_prerequisites.sh
	$(BIN)/python bench/airflow_dbt_tasks.py --intervals $(BENCH_TASKS_INTERVALS)

# The macro reference, docs/reference/ (scripts/generate_reference.py): one page per macro family, written from its
# macros/<family>/_*.yml and the macros' signatures. Run it after changing a yml or a macro's arguments; `make test`
# fails while a committed page differs from what it writes (tests/python/test_reference.py).
docs-reference: setup
	$(BIN)/python scripts/generate_reference.py

# Recompile the lock files after editing requirements.in or requirements-spark*.in.
lock: setup
	$(BIN)/uv pip compile --quiet --python-version 3.11 requirements.in -o requirements.lock
	for version in $(COMPAT_VERSIONS); do \
		$(BIN)/uv pip compile --quiet --python-version 3.11 requirements-$$version.in -o requirements-$$version.lock; \
	done
	# the formats' venv: the main lock's versions, but pyspark
	mkdir -p .spark && grep -v '^pyspark==' requirements.lock > .spark/formats-constraints.txt
	$(BIN)/uv pip compile --quiet --python-version 3.11 requirements.in --override requirements-formats.in \
		-c .spark/formats-constraints.txt -o requirements-formats.lock

clean:
	rm -rf .spark .airflow landing target logs dbt_packages $(COMPAT_VERSIONS:%=.venv-%) .venv-formats
