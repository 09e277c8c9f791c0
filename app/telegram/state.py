"""Chat id → the chat's conversation and chosen scope, in a small JSON file so a restart keeps them.

A restarted bot that forgot the map would start every chat afresh, losing the conversation's memory and
its scope, so the map is written on each change (a few bytes per chat; each write replaces the file
atomically, so a crash leaves the old or the new map, never half of one). Every handler runs on the one
event loop and a chat's updates run one at a time (app/telegram/concurrency.py), so a chat's state has
one writer and each write of the file is whole (it does not await). One bot process owns the file: two
bots sharing it would each overwrite the other's chats.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


@dataclasses.dataclass
class ChatState:
    conversation_id: int | None = None
    scope: str | None = None  # "all" | "none" | "<project id>"; None: the API's default
    scope_label: str | None = None  # as our API named it last


class ChatStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._chats: dict[int, ChatState] = self._load()

    def get(self, chat_id: int) -> ChatState:
        return dataclasses.replace(self._chats.get(chat_id, ChatState()))

    def put(self, chat_id: int, state: ChatState) -> None:
        self._chats[chat_id] = dataclasses.replace(state)
        self._save()

    def _load(self) -> dict[int, ChatState]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return {int(chat): ChatState(**fields) for chat, fields in raw.items()}
        except FileNotFoundError:
            return {}
        except (ValueError, TypeError, AttributeError) as exc:
            # A damaged map costs the chats their context, not the bot its start.
            log.warning("ignoring unreadable chat state %s: %s", self.path, exc)
            return {}

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        data = {str(chat): dataclasses.asdict(state) for chat, state in self._chats.items()}
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)
