"""The bot protocol: versioned JSON messages over a ZeroMQ DEALER pair.

Shared by the referee and by Python bots, so it imports nothing from ``arena``.  Bot authors
start with ``protocol/README.md`` and :mod:`protocol.sdk`; the referee uses the constructors
and checks in :mod:`protocol.messages` and the :class:`~protocol.transport.Channel`.
"""

from protocol.faults import Fault, FaultKind, ProtocolFault
from protocol.messages import (
    BOT_MESSAGES,
    DEFAULT_MAX_MESSAGE_SIZE,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    REFEREE_MESSAGES,
    Hello,
    Limits,
    accept_action,
    accept_hello,
    decode_bot_message,
    schema,
    validate,
)
from protocol.transport import ENDPOINT_ENV, Channel, bot_endpoint, endpoint_from, private_endpoint

__all__ = [
    "BOT_MESSAGES",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "ENDPOINT_ENV",
    "MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "REFEREE_MESSAGES",
    "Channel",
    "Fault",
    "FaultKind",
    "Hello",
    "Limits",
    "ProtocolFault",
    "accept_action",
    "accept_hello",
    "bot_endpoint",
    "decode_bot_message",
    "endpoint_from",
    "private_endpoint",
    "schema",
    "validate",
]
