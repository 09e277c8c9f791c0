"""Chat → the chat's conversation and chosen scope, in a small JSON file so a restart keeps them.

A restarted bot that forgot the map would start every chat afresh, losing the conversation's memory and
its scope, so the map is written on each change (a few bytes per chat; each write replaces the file
atomically, so a crash leaves the old or the new map, never half of one). Every handler runs on the one
event loop and a chat's updates run one at a time (app/telegram/concurrency.py), so a chat's state has
one writer and each write of the file is whole (it does not await). One bot process owns the file: two
bots sharing it would each overwrite the other's chats.

The file names no one. A private chat's id is its user's Telegram id, which an erasure removes from the
database, while this file lives on the bot's host where the erasure job cannot reach. So a chat is keyed by
an HMAC of its id under a key derived from the bot token, which is never written here: the file alone ties
no entry to a person, and the bot still finds each chat's entry. A chat whose person our API no longer
knows (erased, or never added) is forgotten the moment the API says so. A map written before keys were
hashed (chat id → state) is rewritten hashed when it is loaded.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

FORMAT = 2  # 1: {"<chat id>": state}; 2: {"format": 2, "chats": {"<hmac of the chat id>": state}}


@dataclasses.dataclass
class ChatState:
    conversation_id: int | None = None
    scope: str | None = None  # "all" | "none" | "<project id>"; None: the API's default
    scope_label: str | None = None  # as our API named it last


def state_key(bot_token: str) -> bytes:
    """The key that hashes chat ids: stable while the bot token is (a new token starts every chat afresh)."""
    return hashlib.sha256(b"rag-telegram-chat-state\0" + bot_token.encode()).digest()


class ChatStore:
    def __init__(self, path: str | Path, key: bytes) -> None:
        self.path, self._key = Path(path), key
        self._chats: dict[str, ChatState] = self._load()

    def get(self, chat_id: int) -> ChatState:
        return dataclasses.replace(self._chats.get(self._hash(chat_id), ChatState()))

    def put(self, chat_id: int, state: ChatState) -> None:
        self._chats[self._hash(chat_id)] = dataclasses.replace(state)
        self._save()

    def forget(self, chat_id: int) -> None:
        """Drop the chat's entry (its person is unknown to our API): nothing of it stays in the file."""
        if self._chats.pop(self._hash(chat_id), None) is not None:
            self._save()

    def _hash(self, chat_id: int) -> str:
        return hmac.new(self._key, str(chat_id).encode(), hashlib.sha256).hexdigest()

    def _load(self) -> dict[str, ChatState]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if raw.get("format") == FORMAT:
                return {key: ChatState(**fields) for key, fields in raw["chats"].items()}
            chats = {self._hash(int(chat)): ChatState(**fields) for chat, fields in raw.items()}
        except FileNotFoundError:
            return {}
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            # A damaged map costs the chats their context, not the bot its start.
            log.warning("ignoring unreadable chat state %s: %s", self.path, exc)
            return {}
        self._chats = chats
        self._save()  # the first format named every chat by its id: rewritten at once
        log.info("rewrote the chat state %s with hashed chat ids", self.path)
        return chats

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        data = {"format": FORMAT, "chats": {key: dataclasses.asdict(state) for key, state in self._chats.items()}}
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)
