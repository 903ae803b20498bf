"""The same project on real Spark deployments, selected by WINDOW_TVF_TARGET alone: a standalone master with a
worker (target `cluster`), a Spark Connect server (`connect`) and a Spark Thrift server (`thrift`), all started
on 127.0.0.1 from the installed pyspark by scripts/spark_cluster.py and stopped by process group afterwards.

Each runs one `dbt build` of Flink's documented examples in a subprocess: this pytest process already holds the
embedded session's Derby metastore (.spark/pytest), so the cluster runs use their own .spark/cluster-test.
The three run side by side (about 2 minutes on 2 cores instead of about 4 one after the other).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from dbt_harness import REPO, SHORT_LIVED_JVM
from window_tvf_pipeline.documented_examples import DOCUMENTED_EXAMPLES

sys.path.insert(0, str(REPO / "scripts"))
from spark_cluster import KINDS, Deployment, DeploymentError, ui_json  # noqa: E402

CLUSTER_DIR = REPO / ".spark" / "cluster-test"
SELECT = ["path:seeds/flink_docs", "path:models/flink_examples"]
SEEDS = {p.stem for p in (REPO / "seeds" / "flink_docs").glob("*.csv")}
MODELS = {p.stem for p in (REPO / "models" / "flink_examples").glob("*.sql")}
DBT_TIMEOUT_S = 600
JAVA_TOOL_OPTIONS = SHORT_LIVED_JVM  # cut the CPU time of the three runs by a third


@dataclass
class ClusterBuild:
    deployment: Deployment
    dbt_dir: Path  # dbt's WINDOW_TVF_SPARK_DIR, target and logs
    returncode: int
    output: str
    start_s: float
    build_s: float

    def artifact(self, name: str) -> dict:
        return json.loads((self.dbt_dir / "target" / name).read_text())


def _start_and_build(deployment: Deployment) -> ClusterBuild:
    began = time.monotonic()
    deployment.start_on_free_ports(
        memory="2g" if deployment.kind == "standalone" else "1g", extra_env={"JAVA_TOOL_OPTIONS": JAVA_TOOL_OPTIONS}
    )
    started = time.monotonic()
    dbt_dir = CLUSTER_DIR / f"{deployment.kind}-dbt"
    # Only the deployment's variables and these: none of the caller's WINDOW_TVF_* (a schema, a warehouse).
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("WINDOW_TVF_")},
        **deployment.env,
        "WINDOW_TVF_SPARK_DIR": str(dbt_dir),
        "WINDOW_TVF_SPARK_CONF_DIR": str(REPO / "spark_conf"),
        "WINDOW_TVF_DRIVER_MEMORY": "1g",
        "JAVA_TOOL_OPTIONS": JAVA_TOOL_OPTIONS,
    }
    dbt = Path(sys.executable).with_name("dbt")
    run = subprocess.run(
        [str(dbt), "build", "--select", *SELECT, "--project-dir", str(REPO), "--profiles-dir", str(REPO),
         "--target-path", str(dbt_dir / "target"), "--log-path", str(dbt_dir / "logs")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=DBT_TIMEOUT_S,
    )
    return ClusterBuild(
        deployment, dbt_dir, run.returncode, run.stdout + run.stderr, started - began, time.monotonic() - started
    )


@pytest.fixture(scope="module")
def cluster_builds() -> Iterator[dict[str, ClusterBuild | BaseException]]:
    """Every deployment started and built once; a deployment's failure is kept for its own test to raise."""
    shutil.rmtree(CLUSTER_DIR, ignore_errors=True)
    deployments = [Deployment(kind, CLUSTER_DIR / kind) for kind in KINDS]
    try:
        with ThreadPoolExecutor(len(deployments)) as pool:
            futures = {d.kind: pool.submit(_start_and_build, d) for d in deployments}
        yield {kind: future.exception() or future.result() for kind, future in futures.items()}
    finally:
        for deployment in deployments:
            deployment.stop()


def _build(cluster_builds: dict[str, ClusterBuild | BaseException], kind: str) -> ClusterBuild:
    build = cluster_builds[kind]
    if isinstance(build, BaseException):
        raise build
    print(f"{kind}: started in {build.start_s:.0f} s, dbt build in {build.build_s:.0f} s")
    assert build.returncode == 0, build.output[-5000:]
    return build


def _assert_documented_examples_pass(build: ClusterBuild) -> None:
    results = {r["unique_id"]: r for r in build.artifact("run_results.json")["results"]}
    manifest = build.artifact("manifest.json")
    assert {uid: r["status"] for uid, r in results.items() if r["status"] not in ("success", "pass")} == {}
    built = {uid.split(".")[-1] for uid in results if uid.startswith(("seed.", "model."))}
    assert built == SEEDS | MODELS
    compared = {}
    for uid, result in results.items():
        node = manifest["nodes"].get(uid, {})
        if node.get("test_metadata", {}).get("name") == "equality":
            model = node["attached_node"].split(".")[-1]
            seed = next(d.split(".")[-1] for d in node["depends_on"]["nodes"] if d.startswith("seed."))
            compared[model] = (seed, result["status"], result["failures"])
    assert compared == {model: (seed, "pass", 0) for model, seed in DOCUMENTED_EXAMPLES.items()}


def _assert_server_holds_tables(build: ClusterBuild) -> None:
    """A server target: the server's warehouse has every table, and dbt's side ran no Spark driver of its own."""
    schema_dir = build.deployment.state_dir / "warehouse" / "window_tvf.db"
    tables = {p.name for p in schema_dir.iterdir() if any(p.glob("*.parquet"))}
    assert tables == SEEDS | MODELS
    assert sorted(p.name for p in build.dbt_dir.iterdir()) == ["logs", "target"]


@pytest.mark.slow
def test_standalone_master_runs_the_build_on_its_worker(cluster_builds) -> None:
    build = _build(cluster_builds, "standalone")
    _assert_documented_examples_pass(build)
    master = ui_json(build.deployment.info["master_ui"])
    apps = [(app["name"], app["state"]) for app in master["activeapps"] + master["completedapps"]]
    assert apps == [("window_tvf", "FINISHED")]
    app_id = master["completedapps"][0]["id"]
    worker = ui_json(build.deployment.info["worker_ui"])
    assert {e["appid"] for e in worker["executors"] + worker["finishedexecutors"]} == {app_id}
    # The driver (and its Derby metastore) stayed in dbt's process: one driver at a time, as embedded.
    assert (build.dbt_dir / "metastore_db").is_dir()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "log_shows_dbt"),
    [
        ("connect", "SessionHolder: Session with userId"),
        ("thrift", "Submitting query 'insert into window_tvf.bid values"),
    ],
)
def test_server_runs_the_build(cluster_builds, kind: str, log_shows_dbt: str) -> None:
    build = _build(cluster_builds, kind)
    _assert_documented_examples_pass(build)
    _assert_server_holds_tables(build)
    assert log_shows_dbt in build.deployment.log(kind)


def test_a_taken_port_is_named_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        deployment = Deployment("thrift", tmp_path)
        with pytest.raises(DeploymentError) as error:
            deployment.start({"thrift": port})
    assert str(error.value).startswith(f"thrift thrift: port {port} on 127.0.0.1 is already taken")
    assert deployment.pids == []


def test_a_port_taken_at_start_means_new_ports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A port free when chosen can be bound by any other process before the start checks it (CI saw it once): the
    start picks new ports, says so, and gives up after its attempts."""
    import spark_cluster

    started, said = [], []
    monkeypatch.setitem(spark_cluster._STARTERS, "connect", lambda d, ports, *rest: started.append(ports["connect"]))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        chosen = iter([port, port, 0])  # taken twice, then whatever free_port picks
        real_free_port = spark_cluster.free_port
        monkeypatch.setattr(spark_cluster, "free_port", lambda host: next(chosen) or real_free_port(host))
        Deployment("connect", tmp_path / "a").start_on_free_ports(say=said.append)
        assert len(started) == 1 and started[0] != port
        assert said == [f"connect: connect connect: port {port} on 127.0.0.1 is already taken (Address already in use); "
                        "another Spark may be running. Stop it or choose another port (see `scripts/spark_cluster.py "
                        "start --help`). Starting again on other ports."] * 2

        # A port the caller chose and already handed out (make airflow's dbt parse) is tried first, then new ones.
        monkeypatch.setattr(spark_cluster, "free_port", real_free_port)
        Deployment("connect", tmp_path / "c").start_on_free_ports(say=said.append, first_ports={"connect": port})
        assert len(started) == 2 and started[1] != port and len(said) == 3
        free = real_free_port("127.0.0.1")
        Deployment("connect", tmp_path / "d").start_on_free_ports(say=said.append, first_ports={"connect": free})
        assert started[2:] == [free] and len(said) == 3

        monkeypatch.setattr(spark_cluster, "free_port", lambda host: port)
        with pytest.raises(spark_cluster.PortTakenError, match=f"port {port} on 127.0.0.1 is already taken"):
            Deployment("connect", tmp_path / "b").start_on_free_ports(attempts=2, say=said.append)
    assert len(started) == 3 and len(said) == 4


def test_missing_java_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(DeploymentError, match=f"Spark needs Java 17 or newer: JAVA_HOME={tmp_path} has no bin/java"):
        Deployment("standalone", tmp_path).start()
