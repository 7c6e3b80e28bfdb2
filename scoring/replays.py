"""A session's replay that goes on from where this process last left it.

Every tap, and the first draw of each new version of a lei, replays the session's log. Most of
that log is finished rounds that were replayed the time before. So each process keeps, per
session, the engine's ``Checkpoint`` of its last replay: the game after its last finished
round. The next replay of that session plays only the rounds after it.

This is a cache, not state. The checkpoint is only used when the log's first rounds and
header are exactly what it was made from (the engine compares them; see ``Checkpoint``), so a
round corrected in another process, a session imported again or a renamed player replays from
the first round, and the result is the same either way (``tests/test_engine_resume.py``). A
new process, or a session this process has not seen lately, starts with a full replay. The
memory is bounded: the least recently replayed sessions are forgotten first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from scoring.engine import Checkpoint, Result, replay

# A Friday night is a few hundred tables. A checkpoint of a session of 8 rounds holds about
# 20 KiB (BENCHMARKS.md, the engine): some 20 to 40 MB a process at most, in practice.
KEEP = 1000

_lock = threading.Lock()
_checkpoints: OrderedDict[int, Checkpoint] = OrderedDict()


def replay_session(pk: int, data: Mapping[str, Any]) -> Result:
    """``replay(data, open_round=True)`` for session ``pk``, from its checkpoint if it fits."""
    with _lock:
        checkpoint = _checkpoints.get(pk)
    result = replay(data, open_round=True, resume=checkpoint, checkpoint=True)
    kept = result.checkpoint
    with _lock:
        if kept is None:
            _checkpoints.pop(pk, None)
        else:
            _checkpoints[pk] = kept
            _checkpoints.move_to_end(pk)
            if len(_checkpoints) > KEEP:
                _checkpoints.popitem(last=False)
    return result


def forget() -> None:
    """Drop every checkpoint (as a new process starts)."""
    with _lock:
        _checkpoints.clear()
