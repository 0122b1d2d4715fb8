"""Headless Chromium (Debian's ``chromium``) driven over the DevTools protocol.

A fresh profile in a temp dir, no network of its own, a debugging port on 127.0.0.1
read from the profile's ``DevToolsActivePort``; every wait has a deadline and
:meth:`Chromium.close` kills the process (tests call it in ``finally``).
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

from tests.helpers import wait_until

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    "--window-size=1280,900",
]


class Chromium:
    """One headless browser with one page; console errors and exceptions collected."""

    def __init__(self, profile: Path, *, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._id = 0
        assert Path(CHROMIUM).is_file(), (
            "no chromium: apt-get install chromium (scripts/test.sh does)"
        )
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port_file = profile / "DevToolsActivePort"
            wait_until(
                lambda: port_file.is_file() and port_file.read_text().strip() != "",
                "Chromium's DevToolsActivePort",
                timeout=timeout,
            )
            port = int(port_file.read_text().splitlines()[0])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                targets = json.load(r)
            target = next(t for t in targets if t["type"] == "page")
            self.ws = websocket.create_connection(
                target["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True
            )
            for domain in ("Page", "Runtime", "Log"):
                self.send(f"{domain}.enable")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            ws.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)

    # --- protocol ---------------------------------------------------------------

    def _receive(self, deadline: float) -> dict[str, Any]:
        self.ws.settimeout(max(0.05, deadline - time.monotonic()))
        message: dict[str, Any] = json.loads(self.ws.recv())
        method = message.get("method")
        if method is not None:
            self.events.append(message)
            self._note_error(message)
        return message

    def _note_error(self, event: dict[str, Any]) -> None:
        params = event.get("params", {})
        method = event["method"]
        if method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(json.dumps(params.get("args", []))[:500])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(str(params["entry"].get("text", ""))[:500])

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._id += 1
        wanted = self._id
        self.ws.send(json.dumps({"id": wanted, "method": method, "params": params or {}}))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
        raise AssertionError(f"no answer to {method} within {self.timeout} s")

    def wait_event(self, method: str, since: int) -> dict[str, Any]:
        """The first ``method`` event after position ``since`` of :attr:`events`."""
        deadline = time.monotonic() + self.timeout
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            if time.monotonic() > deadline:
                raise AssertionError(f"no {method} within {self.timeout} s")
            try:
                self._receive(deadline)
            except websocket.WebSocketTimeoutException:
                continue

    # --- page -------------------------------------------------------------------

    def goto(self, url: str) -> None:
        mark = len(self.events)
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", mark)

    def eval(self, expression: str) -> Any:
        found = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in found:
            raise AssertionError(f"{expression}: {found['exceptionDetails']}")
        return found["result"].get("value")

    def click(self, selector: str, *, navigates: bool) -> None:
        """A real mouse click on the element (its first line box); waits for the page or anchor."""
        point = self.eval(
            "(function(){var e=document.querySelector(" + json.dumps(selector) + ");"
            "if(!e){return null;} e.scrollIntoView({block:'center'});"
            "var r=e.getClientRects()[0]; return [r.left+r.width/2, r.top+r.height/2];})()"
        )
        assert point is not None, f"no element {selector} on {self.eval('location.href')}"
        mark = len(self.events)
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": point[0], "y": point[1], "button": "left", "clickCount": 1},
            )
        self.wait_event(
            "Page.loadEventFired" if navigates else "Page.navigatedWithinDocument", mark
        )

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path
