"""A page in headless Chromium, driven over the Chrome DevTools Protocol (websockets, already installed with
Airflow): set a cookie, open a URL, wait until a JavaScript condition holds, read values, take a screenshot.

Chromium itself is a system package (Debian: `apt-get install -y chromium`); `find_chromium()` says whether it is
there, so a test can skip with that reason."""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


class Page:
    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict:
        message_id = next(self._ids)
        self._socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self._socket.recv())
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 90.0) -> Any:
        """Polls until the expression is truthy; returns its value (raises TimeoutError with the last one)."""
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(1)
        raise TimeoutError(f"{expression!r} still {value!r} after {timeout:.0f} s")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))


@contextmanager
def open_page(url: str, cookies: dict[str, str], port: int, size: tuple[int, int] = (1600, 900)) -> Iterator[Page]:
    """Chromium on 127.0.0.1:`port` with `cookies` set for `url`'s site, at `url` once it loaded."""
    from websockets.sync.client import connect

    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("no chromium on PATH (Debian: apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1", "--remote-allow-origins=*",
             f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
                        targets = [t for t in json.load(response) if t.get("type") == "page"]
                    if targets:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"chromium did not open its DevTools port {port}")
                time.sleep(0.5)
            with connect(targets[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=30) as socket:
                page = Page(socket)
                page.call("Network.enable")
                for name, value in cookies.items():
                    page.call("Network.setCookie", name=name, value=value, url=url)
                page.call("Page.navigate", url=url)
                yield page
        finally:
            os.killpg(process.pid, signal.SIGKILL)  # its own session: the renderer and helpers too
            process.wait(timeout=30)
