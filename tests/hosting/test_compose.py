"""The docker-compose demo's files: docker/compose.yaml read by a real Compose parser
(Debian's docker-compose 1.29, `config`), and the very commands of its MAW services, with
their environment, run as processes against ejabberd started from ejabberd.yml: the
topology plays a full game, and the file cannot drift from it. (tests/hosting/
test_docker_demo.py builds the images and plays the demo in containers.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from maw.hosting.xmpp import free_port

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker" / "compose.yaml"
PLAYERS = ["ann", "bob", "cid", "dee", "eve", "fay"]


def compose_config(extra: Path | None = None, **env: str) -> dict:
    """docker/compose.yaml (and ``extra`` over it) as Compose reads it, with ``env`` in
    the environment."""
    if shutil.which("docker-compose") is None:
        if os.environ.get("CI"):
            pytest.fail("docker-compose is not installed (.ci/run installs it)")
        pytest.skip("docker-compose is not installed (apt-get install docker-compose)")
    files = ["-f", str(COMPOSE), *(["-f", str(extra)] if extra else [])]
    # (the file's own defaults: not the base a CI run chose for its builds)
    ours = {k: v for k, v in os.environ.items() if k != "MAW_BASE"}
    proc = subprocess.run(["docker-compose", *files, "config"],
                          capture_output=True, text=True, timeout=60,
                          env={**ours, **env})
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load(proc.stdout)


def test_the_compose_file_is_valid_and_has_the_demo_topology():
    config = compose_config()
    services = config["services"]
    assert set(services) == {"ejabberd", "model", "lobby", *PLAYERS}
    # every image is built here, from the one base (MAW_BASE)
    for name, dockerfile in (("ejabberd", "docker/ejabberd.Dockerfile"),
                             ("model", "docker/model.Dockerfile"), ("lobby", "docker/Dockerfile")):
        build = services[name]["build"]
        assert build["dockerfile"] == dockerfile and build["args"]["BASE"] == "python:3.11-slim"
    based = compose_config(MAW_BASE="maw-base:bookworm")["services"]
    assert {s["build"]["args"]["BASE"] for s in based.values()} == {"maw-base:bookworm"}
    # every MAW container waits for a healthy ejabberd and model server
    for name in ["lobby", *PLAYERS]:
        s = services[name]
        assert s["image"] == "maw:latest" and s["build"]["dockerfile"] == "docker/Dockerfile"
        assert s["depends_on"]["ejabberd"]["condition"] == "service_healthy"
        assert s["depends_on"]["model"]["condition"] == "service_healthy"
        assert any(str(v).startswith("maw-data:") or (isinstance(v, dict) and
                   v.get("source") == "maw-data") for v in s["volumes"])
        if name != "lobby":  # LLM players on the model container by default
            assert s["command"][s["command"].index("--roster") + 1] == "agents/server.toml"
    assert "healthcheck" in services["ejabberd"] and "healthcheck" in services["model"]
    # the XMPP port and the web observer on the host's loopback only
    assert services["ejabberd"]["ports"] == ["127.0.0.1:5222:5222/tcp"]
    assert services["lobby"]["ports"] == ["127.0.0.1:8765:8765/tcp"]
    assert set(config["volumes"]) >= {"maw-data"}


def test_ollama_is_a_second_file_whose_pull_every_maw_container_waits_for():
    config = compose_config(extra=REPO / "docker" / "compose.ollama.yaml")
    services = config["services"]
    assert services["ollama"]["image"].startswith("ollama/ollama")
    assert services["ollama-pull"]["command"] == ["pull", "llama3.1"]
    assert compose_config(extra=REPO / "docker" / "compose.ollama.yaml", MAW_MODEL="qwen3:4b")[
        "services"]["ollama-pull"]["command"] == ["pull", "qwen3:4b"]
    for name in ["lobby", *PLAYERS]:
        s = services[name]
        assert s["depends_on"]["ollama-pull"]["condition"] == "service_completed_successfully"
        assert s["depends_on"]["ejabberd"]["condition"] == "service_healthy"  # (kept)
        assert s["environment"]["OLLAMA_HOST"] == "http://ollama:11434"


def test_the_image_runs_maw_as_a_user_with_its_agents_and_prompts():
    lines = [x.strip() for x in (REPO / "docker" / "Dockerfile").read_text().splitlines()
             if x.strip() and not x.startswith("#")]
    assert lines[0] == "ARG BASE=python:3.11-slim" and lines[1] == "FROM ${BASE} AS base"
    assert 'ENTRYPOINT ["maw"]' in lines
    assert any(x.startswith("USER ") and x != "USER root" for x in lines)
    assert "COPY agents /src/agents" in lines and "COPY prompts /src/prompts" in lines
    # every Dockerfile takes the extra CAs, and the model server's builds llama.cpp for a
    # CPU baseline, not this machine's
    for name in ("Dockerfile", "model.Dockerfile"):
        text = (REPO / "docker" / name).read_text()
        assert "COPY docker/ca/ /tmp/ca/" in text and "PIP_CERT=/etc/ssl/maw-ca.pem" in text
    model = (REPO / "docker" / "model.Dockerfile").read_text()
    assert "-DGGML_NATIVE=OFF" in model and "-DGGML_AMX_TILE=OFF" in model


def test_the_ejabberd_container_config_is_the_root_one_opened_to_other_containers(tmp_path):
    out = tmp_path / "ejabberd.yml"
    env = {**os.environ, "MAW_EJABBERD_YML": str(REPO / "ejabberd.yml"),
           "MAW_EJABBERD_OUT": str(out), "MAW_EJABBERD_DRY_RUN": "1"}
    subprocess.run(["sh", str(REPO / "docker" / "ejabberd-entrypoint.sh")], env=env,
                   check=True, timeout=30)
    root = yaml.safe_load((REPO / "ejabberd.yml").read_text())
    docker = yaml.safe_load(out.read_text())
    assert docker["listen"][0]["ip"] == "::" and root["listen"][0]["ip"] == "127.0.0.1"
    assert "172.16.0.0/12" in docker["acl"]["loopback"]["ip"]
    assert docker["certfiles"] == ["/etc/ejabberd/maw.pem"]
    # nothing else differs
    for d in (root, docker):
        d["listen"][0].pop("ip")
        d["acl"]["loopback"]["ip"] = [x for x in d["acl"]["loopback"]["ip"]
                                      if x in ("127.0.0.0/8", "::1/128")]
        d.pop("certfiles")
    assert docker == root


@pytest.mark.ejabberd
def test_the_compose_services_commands_play_a_game_on_ejabberd(ejabberd, tmp_path):
    """The lobby and the six players, each its compose command and environment in a
    process of its own, with rule players on the test's ejabberd (the web observer, which
    the container publishes, on a free port of this machine's loopback)."""
    config = compose_config(MAW_ROSTER="agents/rule.toml",
                            MAW_XMPP=f"{ejabberd.host}:{ejabberd.port}",
                            MAW_DATA=str(tmp_path), MAW_DAY_SECONDS="10",
                            MAW_NIGHT_SECONDS="5")
    services = config["services"]

    def start(name: str) -> subprocess.Popen:
        s = services[name]
        assert s["command"][0] in ("game", "player")  # the image's entry point is maw
        env = {**os.environ, **{k: str(v) for k, v in s["environment"].items()}}
        out = (tmp_path / f"{name}.out").open("w")
        command = [f"127.0.0.1:{free_port()}" if a == "0.0.0.0:8765" else a
                   for a in s["command"]]
        return subprocess.Popen([sys.executable, "-m", "maw", *command], cwd=REPO,
                                env=env, stdout=out, stderr=subprocess.STDOUT, text=True)

    lobby = start("lobby")
    players = {name: start(name) for name in PLAYERS}
    try:
        assert lobby.wait(timeout=300) == 0, (tmp_path / "lobby.out").read_text()[-3000:]
        for name, proc in players.items():
            assert proc.wait(timeout=60) == 0, (tmp_path / f"{name}.out").read_text()[-2000:]
    finally:
        for proc in [lobby, *players.values()]:
            if proc.poll() is None:
                proc.kill()
    shown = (tmp_path / "lobby.out").read_text()
    assert "won on day" in shown and "absent" not in shown
    assert "web observer: http://127.0.0.1:" in shown  # (and gone with the game: exit 0)
    assert len(list((tmp_path / "logs").glob("*.jsonl"))) == 1
    assert len(list((tmp_path / "logs" / "players").glob("*.jsonl"))) == 6
    for name in PLAYERS:
        assert "round 1:" in (tmp_path / f"{name}.out").read_text()
