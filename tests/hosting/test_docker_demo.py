"""The compose demo for real: docker/compose.yaml's images built (on the base .ci/run
chose: the slim Python image where a registry answers, else scripts/docker-base.sh's
from Debian's packages, MAW_BASE) and its game played by containers: ejabberd, the model
server, a lobby and six players, each in its own container, every message crossing the
XMPP server in the ejabberd container."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from maw.hosting.xmpp import free_port

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker" / "compose.yaml"
SERVICES = {"ejabberd", "model", "lobby", "ann", "bob", "cid", "dee", "eve", "fay"}

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def engine() -> None:
    """A Docker engine and Compose, or the reason there are none (a failure in CI); and
    the base the images are built on: ``MAW_BASE``, else scripts/docker-base.sh's where it
    was built, else the slim Python image from a registry."""
    why = None
    if shutil.which("docker") is None or shutil.which("docker-compose") is None:
        why = "docker or docker-compose is not installed (.ci/run installs them)"
    elif subprocess.run(["docker", "info"], capture_output=True, timeout=60).returncode:
        why = "no Docker engine answers (.ci/run starts dockerd)"
    if why:
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    if not os.environ.get("MAW_BASE") and subprocess.run(
            ["docker", "image", "inspect", "maw-base:bookworm"], capture_output=True,
            timeout=60).returncode == 0:
        os.environ["MAW_BASE"] = "maw-base:bookworm"


@pytest.mark.timeout(1500)
def test_the_demo_plays_a_game_of_containers(tmp_path):
    engine()
    project = f"mawtest{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "MAW_ROSTER": "agents/rule.toml", "MAW_DAY_SECONDS": "10",
           "MAW_NIGHT_SECONDS": "5", "MAW_XMPP_PORT": str(free_port()),
           "MAW_WEB_PORT": str(free_port()), "MAW_SEED": "3"}
    compose = ["docker-compose", "-p", project, "-f", str(COMPOSE)]
    seen: list[set[str]] = []
    done = threading.Event()

    def watch() -> None:  # docker ps, as the game goes
        while not done.is_set():
            out = subprocess.run(
                ["docker", "ps", "--filter", f"label=com.docker.compose.project={project}",
                 "--format", '{{.Label "com.docker.compose.service"}}'],
                capture_output=True, text=True, timeout=60).stdout
            seen.append(set(out.split()))
            done.wait(1.0)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        proc = subprocess.run([*compose, "up", "--build", "--exit-code-from", "lobby"],
                              env=env, capture_output=True, text=True, timeout=1400)
    finally:
        done.set()
        watcher.join(10)
        logs = subprocess.run([*compose, "logs", "--no-color"], env=env, capture_output=True,
                              text=True, timeout=120).stdout
        subprocess.run([*compose, "down", "-v", "--remove-orphans"], env=env,
                       capture_output=True, timeout=300)
    (tmp_path / "up.out").write_text(proc.stdout + proc.stderr)
    (tmp_path / "logs.out").write_text(logs)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    # all nine containers ran at once while the game was played
    assert any(s == SERVICES for s in seen), seen[-5:]
    lobby = [line.split("|", 1)[1] for line in logs.splitlines()
             if line.startswith("lobby") and "|" in line]
    shown = "\n".join(lobby)
    assert "won on day" in shown and "absent" not in shown
    # the six players, each from its own container, sat at the table (what each printed
    # last may be cut: --exit-code-from stops them all once the lobby exits)
    assert "A game of maw with Ann, Bob, Cid, Dee, Eve, Fay" in shown


CLUSTER = REPO / "docker" / "compose.cluster.yaml"


def _logs(compose: list[str], env: dict, *services: str) -> str:
    return subprocess.run([*compose, "logs", "--no-color", *services], env=env,
                          capture_output=True, text=True, timeout=120).stdout


@pytest.mark.timeout(1500)
def test_a_tournament_across_a_two_node_cluster_outlives_a_node_restart(tmp_path):
    """docker/compose.cluster.yaml: two ejabberd nodes clustered, a coordinator and four
    workers, two on each node; ej2 is restarted once the games are under way, and every
    game still ends up in the one database."""
    engine()
    # (60: rule players' games take 0.1 to 0.2 s on a fast machine, and 12 were over
    # before the workers of the first node had joined)
    games = 60
    project = f"mawcluster{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "MAW_GAMES": str(games), "MAW_SEED": "5"}
    compose = ["docker-compose", "-p", project, "-f", str(CLUSTER)]
    try:
        up = subprocess.run([*compose, "up", "--build", "-d"], env=env, capture_output=True,
                            text=True, timeout=900)
        assert up.returncode == 0, up.stderr[-3000:]
        ids = {s: subprocess.run([*compose, "ps", "-q", s], env=env, capture_output=True,
                                 text=True).stdout.strip() for s in ("ej1", "coordinator")}
        cluster = subprocess.run(["docker", "exec", ids["ej1"], "ejabberdctl", "list_cluster"],
                                 capture_output=True, text=True, timeout=60).stdout
        assert "ejabberd@ej1" in cluster and "ejabberd@ej2" in cluster, cluster
        # once a few games are done, the second node goes down and comes back
        end = time.monotonic() + 600
        while _logs(compose, env).count(" done in ") < 4:
            assert time.monotonic() < end, _logs(compose, env)[-3000:]
            time.sleep(2)
        assert subprocess.run([*compose, "restart", "ej2"], env=env, capture_output=True,
                              timeout=300).returncode == 0
        waited = subprocess.run(["docker", "wait", ids["coordinator"]], capture_output=True,
                                text=True, timeout=1200)
        logs = _logs(compose, env)
        (tmp_path / "logs.out").write_text(logs)
        assert waited.stdout.strip() == "0", logs[-4000:]
        report = subprocess.run([*compose, "run", "--rm", "--no-deps", "--entrypoint", "maw",
                                 "coordinator", "report", "/data/cluster.db"], env=env,
                                capture_output=True, text=True, timeout=300)
    finally:
        subprocess.run([*compose, "down", "-v", "--remove-orphans"], env=env,
                       capture_output=True, timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    assert f"games: {games}," in report.stdout, report.stdout[-2000:]
    # workers on both nodes played
    played = {line.split("|")[0].strip().rsplit("_", 1)[0].rsplit("_", 1)[-1]
              for line in logs.splitlines() if " done in " in line}
    assert {"worker1", "worker3"} & played and {"worker2", "worker4"} & played, played
