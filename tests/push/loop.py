"""A coroutine run to its end on an event loop of its own, in a thread of its own: the browser
tests' Playwright keeps an event loop running in the test process's main thread, where
``asyncio.run`` then refuses to start another."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    outcome: dict[str, Any] = {}

    def main() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as error:  # handed to the test's own thread
            outcome["error"] = error

    thread = threading.Thread(target=main, name="test-loop")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
