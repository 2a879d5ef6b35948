"""The fleet load bench in its short form, with faults (issue 29, CI form).

``bench/bench_fleet_load.py`` runs as a subprocess: the demo under gunicorn
(``--preload``) with 2 workers on a throw-away PostgreSQL database and a
redis-server of the bench's own, a small seed, 8 clients, bulk creates of 20
in alternating MCP and REST phases, and in the middle of every phase a
rolling restart (SIGHUP) and every database backend terminated. The
database is a copy of a migrated, seeded template the bench keeps on the
server (built by the first run, again when migrations or the seed change):
migrating and seeding took most of the time the short form took before.
From its JSON result:

- no acknowledged write lost, none doubled (rows counted on both sides);
- MCP answered no 5xx and no error code but a retried ``unavailable`` (HTTP
  503, or a tool result) or a retried refused connection, and every retry
  succeeded;
- the faults fired: the workers were replaced, backends were terminated.

A second run (8 s of load, a worker timeout of 5 s) restarts the bench's
Redis empty and sends slow clients in the middle of every phase: no write
fails on either side and the listing is the same before and after each
restart; a client that vanishes mid-response costs nothing, and a worker a
client holds with half a body is freed by gunicorn's timeout.

REST is the baseline, not the subject: Django answers a lost connection
with its own HTTP 500 (no retryable status), which is counted, not refused.

It needs PostgreSQL (the server ``DATABASE_URL`` names, else
127.0.0.1:5432, user ``postgres``) and ``redis-server`` on the PATH; it
skips without them, and fails without Redis when
``FRISIAN_MCP_REQUIRE_REDIS`` is set, as the other Redis tests do.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

pytestmark = [pytest.mark.live, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "bench_fleet_load.py"
SHORT = (
    "--contacts=500",
    "--devices=200",
    "--workers=2",
    "--clients=8",
    "--seconds=12",
    "--bulk=20",  # REST's bulk is 20 POSTs: phases end on time
    "--preload",  # restarted workers fork warm: a restart pauses less
    "--fault=rolling-restart",
    "--fault=pg-terminate",
)
#: The other faults, on the same fleet: the bench's Redis stopped and started
#: empty, and slow clients against a worker timeout of 5 s (the stalled one
#: holds a worker until gunicorn's timeout frees it).
CACHE_AND_CLIENT = (
    *SHORT[:4],
    "--seconds=8",
    *SHORT[5:7],
    "--fault=redis-restart",
    "--fault=slow-client",
    "--worker-timeout=5",
)
#: Seconds the short form may take at most (about 25-35 on a 2-core machine
#: at a load average of 10-12, 5 s more to build the template), before it
#: is stopped.
TIMEOUT = 240
#: What MCP may answer under these faults: retried, and then a success.
RETRIED = (
    "HTTP 503 JSON-RPC -32603 unavailable (retried)",
    "tool unavailable (retried)",
    "transport ConnectError (retried)",
)


def postgres_url() -> str:
    """A new database's URL on the PostgreSQL server the suite may use."""
    url = os.environ.get("DATABASE_URL", "")
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        parts = urlsplit("postgres://postgres@127.0.0.1:5432/x")
    name = f"frisian_fleet_ci_{uuid.uuid4().hex[:8]}"
    return urlunsplit(parts._replace(scheme="postgres", path=f"/{name}"))


def reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname, parts.port or 5432), 1).close()
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def short_form(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The bench's JSON result for the short form (and its wall time): one
    run for the module's tests."""
    return _run(tmp_path_factory, SHORT)


@pytest.fixture(scope="module")
def cache_and_client_faults(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The short form with the other two faults: Redis restarted empty, and
    slow clients (one vanishes mid-response, one stalls mid-body)."""
    return _run(tmp_path_factory, CACHE_AND_CLIENT)


def _run(factory: pytest.TempPathFactory, options: tuple[str, ...]) -> dict[str, Any]:
    """Run the bench with ``options``; its JSON result and wall time."""
    if shutil.which("redis-server") is None:
        if os.environ.get("FRISIAN_MCP_REQUIRE_REDIS"):
            pytest.fail("redis-server is not on the PATH")
        pytest.skip("redis-server is not on the PATH")
    url = postgres_url()
    if not reachable(url):
        pytest.skip("no PostgreSQL server to create the bench's database on")
    out = factory.mktemp("fleet") / "fleet.json"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    started = time.monotonic()
    bench = subprocess.Popen(
        [
            sys.executable,
            str(BENCH),
            *options,
            f"--database-url={url}",
            f"--json={out}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        stdout, stderr = bench.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        # SIGTERM first: the bench stops its servers and drops its database.
        bench.terminate()
        stdout, stderr = bench.communicate(timeout=60)
        pytest.fail(f"the short form took over {TIMEOUT} s:\n{stderr[-3000:]}")
    assert bench.returncode == 0, stderr[-3000:] + stdout[-3000:]
    result: dict[str, Any] = json.loads(out.read_text())
    result["wall_s"] = time.monotonic() - started
    return result


def test_no_write_is_lost_or_doubled_through_restarts_and_lost_connections(
    short_form: dict[str, Any],
) -> None:
    rows = short_form["rows"]
    assert rows["acknowledged"] > 0
    assert rows["lost"] == 0
    assert rows["duplicated"] == 0
    assert rows["rows"] == rows["acknowledged"] + rows["unacknowledged_present"]


def test_mcp_answers_only_retried_unavailable(short_form: dict[str, Any]) -> None:
    mcp = short_form["sides"]["MCP"]
    assert mcp["operations"] > 0
    assert mcp["unexpected_errors"] == {}
    assert set(mcp["errors"]) <= set(RETRIED)
    assert mcp["retried"] == sum(mcp["errors"].values())


def test_the_faults_fired(short_form: dict[str, Any]) -> None:
    for side in ("MCP", "REST"):
        events = short_form["sides"][side]["faults"]
        assert [e["fault"] for e in events] == ["rolling-restart", "pg-terminate"] * 2
        assert not [e for e in events if "failed" in e]
    # 2 workers at the start, and 2 more for a restart at least.
    assert short_form["server_log"]["workers_booted"] >= 2 + 2
    terminated = [
        e["terminated"]
        for side in ("MCP", "REST")
        for e in short_form["sides"][side]["faults"]
        if e["fault"] == "pg-terminate"
    ]
    assert sum(terminated) > 0


def test_a_redis_restart_fails_no_write_and_changes_no_listing(
    cache_and_client_faults: dict[str, Any],
) -> None:
    rows = cache_and_client_faults["rows"]
    assert rows["acknowledged"] > 0
    assert (rows["lost"], rows["duplicated"]) == (0, 0)
    for side in ("MCP", "REST"):
        figures = cache_and_client_faults["sides"][side]
        assert figures["errors"] == {}, side  # host writes never fail
        restarts = [e for e in figures["faults"] if e["fault"] == "redis-restart"]
        assert len(restarts) == 2
        assert all(e["listing_unchanged"] and e["tools"] > 0 for e in restarts)
        assert all(e["down_s"] > 0 for e in restarts)


def test_slow_clients_free_their_worker_within_the_timeout(
    cache_and_client_faults: dict[str, Any],
) -> None:
    for side in ("MCP", "REST"):
        events = cache_and_client_faults["sides"][side]["faults"]
        slow = [e for e in events if e["fault"] == "slow-client"]
        assert len(slow) == 2
        for event in slow:
            assert event["vanished_after_bytes"] > 0  # it was answered, then gone
            # None: still held when the bench gave up, at 3x the timeout.
            assert event["stalled_freed_s"] is not None
            assert event["stalled_freed_s"] <= event["limit_s"]
    assert cache_and_client_faults["server_log"]["worker_timeouts"] >= 1


def _bench() -> Any:
    """The bench's module (it imports its helpers from ``bench/``)."""
    import importlib

    sys.path.insert(0, str(BENCH.parent))
    try:
        return importlib.import_module("bench_fleet_load")
    finally:
        sys.path.remove(str(BENCH.parent))


@pytest.mark.parametrize("share", [0, 2.5, 5, 15])
def test_the_bulk_share_comes_out_of_the_writes(share: float) -> None:
    weights = _bench().mix_weights(share)
    assert weights["list"] == 60
    assert weights["retrieve"] == 25
    assert weights["write"] + weights["bulk"] == 15
    assert weights["bulk"] == share
    assert sum(weights.values()) == 100


def test_a_bulk_share_of_0_never_picks_a_bulk_create() -> None:
    bench = _bench()
    mix = bench.Mix("MCP", "x", {}, {}, 20, bench.mix_weights(0))
    assert set(mix.weights) == {"list", "retrieve", "write"}


def _side(ops: float, p99: float) -> dict[str, Any]:
    return {
        "ops_per_s": ops,
        "http_requests_per_s": ops,
        "p50_ms": p99 / 4,
        "p95_ms": p99 / 2,
        "p99_ms": p99,
        "p50_p99_ms_by_kind": {"list": [p99 / 4, p99]},
        "worker_cpu_ms_per_op": 10_000 / ops,
    }


def test_the_ratios_judge_the_goals_on_a_comparable_mix_only() -> None:
    ratios = _bench().ratios
    met = ratios({"MCP": _side(95, 110), "REST": _side(100, 100)}, 0)
    assert met["ops_per_s"] == 0.95
    assert met["p99_ms"] == 1.1
    assert met["p99_by_kind"] == {"list": 1.1}
    assert met["worker_cpu_ms_per_op"] == round(100 / 95, 3)
    assert met["comparable"]
    assert all(met["goals"].values())
    missed = ratios({"MCP": _side(85, 130), "REST": _side(100, 100)}, 0)
    assert not any(missed["goals"].values())
    assert not ratios({"MCP": _side(95, 110), "REST": _side(100, 100)}, 5)["comparable"]
