"""Fan-out of live messages to Server-Sent Events streams.

Each SSE connection holds one :class:`Subscription` (a bounded queue) for one
table; :meth:`Bus.publish` reaches the table's subscribers, :meth:`Bus.broadcast`
every subscriber (camera online/offline). A stalled client never blocks the
publisher: when its queue is full its oldest message is dropped.

>>> bus = Bus()
>>> sub = bus.subscribe("t1")
>>> bus.publish("t1", "state", {"seq": 1}); bus.broadcast("camera", {"online": False})
>>> [m.kind for m in (sub.get(0.1), sub.get(0.1))]
['state', 'camera']
>>> print(sub.get(0.1))
None
>>> sub.close()
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True)
class Message:
    id: int
    kind: str
    data: JSON

    def sse(self) -> str:
        """The message as one SSE event (``event:``, ``id:``, one ``data:`` line)."""
        body = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return f"event: {self.kind}\nid: {self.id}\ndata: {body}\n\n"


class Subscription:
    def __init__(self, bus: "Bus", topic: str, size: int) -> None:
        self._bus = bus
        self.topic = topic
        self._queue: queue.Queue[Message] = queue.Queue(maxsize=size)

    def put(self, message: Message) -> None:
        while True:
            try:
                self._queue.put_nowait(message)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    pass

    def get(self, timeout: float) -> Message | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self._bus._remove(self)


class Bus:
    def __init__(self, queue_size: int = 64) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscription]] = {}
        self._ids = itertools.count(1)
        self._size = queue_size

    def subscribe(self, topic: str) -> Subscription:
        sub = Subscription(self, topic, self._size)
        with self._lock:
            self._subs.setdefault(topic, set()).add(sub)
        return sub

    def _remove(self, sub: Subscription) -> None:
        with self._lock:
            subs = self._subs.get(sub.topic)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.topic]

    def subscribers(self, topic: str | None = None) -> int:
        with self._lock:
            if topic is None:
                return sum(len(s) for s in self._subs.values())
            return len(self._subs.get(topic, ()))

    def publish(self, topic: str, kind: str, data: JSON) -> None:
        with self._lock:
            message = Message(next(self._ids), kind, data)
            targets = list(self._subs.get(topic, ()))
        for sub in targets:
            sub.put(message)

    def broadcast(self, kind: str, data: JSON) -> None:
        with self._lock:
            message = Message(next(self._ids), kind, data)
            targets = [s for subs in self._subs.values() for s in subs]
        for sub in targets:
            sub.put(message)
